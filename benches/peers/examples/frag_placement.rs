//! A diagnosis of `frag_iter`'s sensitivity to code placement (BENCHMARKS.md,
//! "frag_iter and code placement"): the table's ecs step (a prepared query
//! doubling the `Data` of 520 entities, run from the step proxy), the same
//! walk in a system run by `run_all` (the table's variant; the system's
//! body calls one of the 64 copies of a function holding its `for_each`)
//! and the best-effort version's loop (one array of 520 `Data`) are each
//! compiled 64 times, each copy's body starting `K` bytes past a 64-byte
//! boundary (a jump over `.p2align 6` and `.skip K`, K = 0..63), as
//! `churn_placement.rs` does for `fragmented_churn`. Each copy is timed in
//! turn, in rounds; the minimum over rounds of each copy's mean step time is
//! printed, then the spread over the 64 placements of each version and of
//! their ratio.
//!
//! Built as the table builds it, LLVM aligns each copy's loop to 16 bytes,
//! so the loop starts at offset 0, 16, 32 or 48 of a 64-byte line as `K`
//! varies; with `-align-loops=1` it starts at every offset.
//!
//! ```sh
//! cargo build --release --manifest-path benches/peers/Cargo.toml --example frag_placement
//! benches/peers/target/release/examples/frag_placement [ROUNDS]
//! objdump -d --no-show-raw-insn -C benches/peers/target/release/examples/frag_placement | grep -A60 'frag_placement::best_step<16>'
//! ```

#[macro_use]
#[path = "common/place.rs"]
mod place;
#[path = "common/timing.rs"]
mod timing;

use ecs::{Data as Proxy, Entity, PreparedQuery, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The value every entity's `Data` holds and doubles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Data(pub f32);

macro_rules! markers {
    ($($m:ident),*) => {$(
        /// A marker that sorts the entities into 26 kinds.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $m(pub f32);
    )*};
}
markers!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);

ecs::declare_context! {
    pub context Frag {
        settings { entities: fixed(520), threads: 1 }
        components {
            Data, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z: contiguous;
        }
        systems { double: Double { write: [Data] } }
    }
}

/// Doubles every `Data` through the copy of [`system_body`] that
/// `SYSTEM_COPY` picks.
#[derive(Default)]
pub struct Double;

/// Which copy of [`system_body`] the system runs.
static SYSTEM_COPY: AtomicUsize = AtomicUsize::new(0);

type BodyFn = for<'a> fn(&mut Proxy<'a, Frag, Double>);

impl System<Frag> for Double {
    fn process(&self, data: &mut Proxy<'_, Frag, Self>, _: &()) {
        SYSTEM_BODIES[SYSTEM_COPY.load(Ordering::Relaxed)](data);
    }
}

/// Entities of each marker (the workload's 20 of each of 26).
const PER_KIND: usize = 20;

/// Spawns `PER_KIND` entities with `Data` and each marker in turn.
macro_rules! spawn_kinds {
    ($p:expr, $out:expr, $($m:ident),+) => {$(
        for _ in 0..PER_KIND {
            $out.push($p.spawn(($m(1.0), Data(1.0))).expect("room"));
        }
    )+};
}

/// The table's ecs step, its body starting `K` bytes past a 64-byte
/// boundary.
#[inline(never)]
fn ecs_step<const K: usize>(world: &mut Frag, query: &mut PreparedQuery<Frag, &'static mut Data>) {
    place!(K);
    world.step(|p| query.for_each(p, |d| d.0 *= 2.0));
}

/// The system's walk, placed likewise.
#[inline(never)]
fn system_body<const K: usize>(data: &mut Proxy<'_, Frag, Double>) {
    place!(K);
    data.for_each::<&mut Data>(|d| d.0 *= 2.0);
}

/// The best-effort version's step, placed likewise.
#[inline(never)]
fn best_step<const K: usize>(data: &mut [Data]) {
    place!(K);
    for d in data {
        d.0 *= 2.0;
    }
}

type EcsFn = fn(&mut Frag, &mut PreparedQuery<Frag, &'static mut Data>);

macro_rules! bodies {
    ($($k:literal)*) => { [$(system_body::<$k> as BodyFn),*] };
}

/// The 64 copies of the system's walk.
static SYSTEM_BODIES: [BodyFn; 64] = bodies!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
);
type BestFn = fn(&mut [Data]);

/// Steps timed per measurement of one copy.
const ITERATIONS: usize = 20_000;

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(5, |s| s.parse().unwrap());
    macro_rules! copies {
        ($($k:literal)*) => {
            (
                [$(ecs_step::<$k> as EcsFn),*],
                [$(best_step::<$k> as BestFn),*],
            )
        };
    }
    let (ecs, best): ([EcsFn; 64], [BestFn; 64]) = copies!(
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    );
    let mut world = Frag::new();
    let entities: Vec<Entity> = world.step(|p| {
        let mut out = Vec::new();
        spawn_kinds!(p, out, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        out
    });
    assert_eq!(entities.len(), 520);
    let mut query = PreparedQuery::new();
    let mut data = vec![Data(1.0); 520];
    let mut ecs_ns = [f64::INFINITY; 64];
    let mut system_ns = [f64::INFINITY; 64];
    let mut best_ns = [f64::INFINITY; 64];
    for _ in 0..rounds {
        for k in 0..64 {
            ecs_ns[k] = ecs_ns[k].min(timing::time(ITERATIONS, || ecs[k](&mut world, &mut query)));
            SYSTEM_COPY.store(k, Ordering::Relaxed);
            system_ns[k] = system_ns[k].min(timing::time(ITERATIONS, || world.step(|p| p.run_all(&()))));
            best_ns[k] = best_ns[k].min(timing::time(ITERATIONS, || best[k](black_box(&mut data))));
        }
    }
    black_box((&world, &data));
    println!("K   ecs ns  system ns  best ns  ecs / best");
    let mut ratios = Vec::with_capacity(64);
    for k in 0..64 {
        let r = ecs_ns[k] / best_ns[k];
        ratios.push(r);
        println!(
            "{k:2}  {:6.1}  {:9.1}  {:7.1}  {r:.2}",
            ecs_ns[k], system_ns[k], best_ns[k]
        );
    }
    for (name, xs) in [
        ("ecs", &ecs_ns[..]),
        ("system", &system_ns[..]),
        ("best effort", &best_ns[..]),
        ("ecs / best", &ratios[..]),
    ] {
        let (lo, mid, hi) = timing::spread(xs);
        println!("{name:11}: min {lo:.2}, median {mid:.2}, max {hi:.2} over the 64 placements");
    }
}
