//! The contexts of the benchmark: one declaration of the systems
//! ([`particle_context!`]) instantiated for each combination of settings.
//!
//! Entity storage and inner parallelism are compile-time settings, so each
//! combination is its own type; the number of worker threads is chosen when
//! a context is created (`with_threads`).

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
    ($($name:ident: $storage:ident $kind:ident($capacity:tt), $inner:ident = $on:literal;)+) => {
        $(
            particle_context! {
                #[doc = concat!(
                    "The particle simulation with `entities: ", stringify!($kind), "(", stringify!($capacity),
                    ")`, `inner_parallelism: ", stringify!($inner), "`."
                )]
                pub context $name {
                    entities: $kind($capacity), inner_parallelism: $inner, threads: auto
                }
            }
        )+

        /// The library's simulation with these settings on `threads` worker
        /// threads.
        pub fn ecs(storage: Storage, inner_parallelism: bool, threads: usize) -> Box<dyn Simulation> {
            $(
                if storage == Storage::$storage && inner_parallelism == $on {
                    return Box::new(Ecs::new($name::with_threads(Default::default(), Some(threads))));
                }
            )+
            unreachable!("every combination is declared")
        }
    };
}

contexts! {
    FixedInner: Fixed fixed(400_000), allow = true;
    FixedSerial: Fixed fixed(400_000), deny = false;
    DynamicInner: Dynamic dynamic(50_000), allow = true;
    DynamicSerial: Dynamic dynamic(50_000), deny = false;
}
