//! The contexts of the benchmark: one declaration of the systems
//! ([`particle_context!`]) instantiated for each combination of settings.
//!
//! Settings are compile-time, so each combination is its own type: entity
//! storage (fixed or dynamic) x inner parallelism (on or off) x the number of
//! worker threads. Thread counts are limited to [`THREADS`]; the contexts for
//! other counts would only cost build time.

use crate::sim::*;

/// Entity storage of a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Storage {
    /// Room for 400 000 entities, allocated once.
    Fixed,
    /// Room for 50 000 entities at first, growing as needed.
    Dynamic,
}

impl Storage {
    /// The storage's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Storage::Fixed => "fixed",
            Storage::Dynamic => "dynamic",
        }
    }
}

macro_rules! contexts {
    ($($name:ident: $storage:ident $kind:ident($capacity:tt), $inner:ident = $on:literal, threads $threads:literal;)+) => {
        $(
            particle_context! {
                #[doc = concat!(
                    "The particle simulation with `entities: ", stringify!($kind), "(", stringify!($capacity),
                    ")`, `inner_parallelism: ", stringify!($inner), "`, `threads: ", stringify!($threads), "`."
                )]
                pub context $name {
                    entities: $kind($capacity), inner_parallelism: $inner, threads: $threads
                }
            }
        )+

        /// Every thread count a context is declared for.
        pub const THREADS: &[usize] = &[1, 2, 4];

        /// The library's simulation with these settings; `None` for a thread
        /// count not in [`THREADS`].
        pub fn ecs(storage: Storage, inner_parallelism: bool, threads: usize) -> Option<Box<dyn Simulation>> {
            $(
                if storage == Storage::$storage && inner_parallelism == $on && threads == $threads {
                    return Some(Box::new(Ecs::<$name>::default()));
                }
            )+
            None
        }
    };
}

contexts! {
    FixedInner1: Fixed fixed(400_000), allow = true, threads 1;
    FixedSerial1: Fixed fixed(400_000), deny = false, threads 1;
    DynamicInner1: Dynamic dynamic(50_000), allow = true, threads 1;
    DynamicSerial1: Dynamic dynamic(50_000), deny = false, threads 1;
    FixedInner2: Fixed fixed(400_000), allow = true, threads 2;
    FixedSerial2: Fixed fixed(400_000), deny = false, threads 2;
    DynamicInner2: Dynamic dynamic(50_000), allow = true, threads 2;
    DynamicSerial2: Dynamic dynamic(50_000), deny = false, threads 2;
    FixedInner4: Fixed fixed(400_000), allow = true, threads 4;
    FixedSerial4: Fixed fixed(400_000), deny = false, threads 4;
    DynamicInner4: Dynamic dynamic(50_000), allow = true, threads 4;
    DynamicSerial4: Dynamic dynamic(50_000), deny = false, threads 4;
}
