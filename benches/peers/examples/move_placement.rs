//! A diagnosis of the best-effort versions' movement loops (BENCHMARKS.md,
//! "Where the gaps come from"): `position += velocity` over two arrays of
//! 10 000 `[f32; W]`, `W` = 2 (the movers of `fragmented`, which has 10 030)
//! or 3 (`simple_iter`), written several ways, each compiled 64 times with
//! its body starting `K` bytes past a 64-byte boundary (`place!`, as
//! `frag_placement.rs` does):
//!
//! - `zip`: `iter_mut().zip(..)`, the plain loop;
//! - `staged8`: chunks of 8 copied to a local array, moved there and copied
//!   back (the best effort of `simple_iter`);
//! - `chunksC`: chunks of `C` entities as arrays, each moved in a loop of
//!   constant count (`libs/chunked.rs`, the best efforts' walk; ecs's
//!   blocks have 8).
//!
//! Each copy is timed in turn, in rounds; the minimum over rounds of each
//! copy's mean time is kept, and each form's spread over the 64 placements
//! printed. `DATA_AT=K` starts both arrays `K` bytes past a 64-byte line,
//! `PAGE_AT=P,V` the positions `P` bytes past a page's start and the
//! velocities `V` (otherwise where the allocator puts them).
//!
//! Then ecs's walk of the same `[f32; 2]` move: `fragmented`'s system
//! (`for_each::<(&mut Pos, &Vel)>`, run by `run_all` on one thread) over
//! 10 000 entities, its body placed likewise, with the step's fixed cost
//! (a step moving 8 entities) to set apart.
//!
//! ```sh
//! cargo build --release --manifest-path benches/peers/Cargo.toml --example move_placement
//! benches/peers/target/release/examples/move_placement [ROUNDS]
//! ```

#[macro_use]
#[path = "common/place.rs"]
mod place;
/// The best efforts' walk in chunks (the peers binary's module: examples
/// cannot import a binary's modules).
#[path = "../src/libs/chunked.rs"]
mod chunked;
#[path = "common/timing.rs"]
mod timing;

use ecs::{Data, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A position, as `fragmented`'s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub [f32; 2]);
/// A velocity, as `fragmented`'s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vel(pub [f32; 2]);

ecs::declare_context! {
    pub context Movers {
        settings { entities: fixed(10_000), threads: 1 }
        components { Pos, Vel: contiguous; }
        systems { movement: Move { read: [Vel], write: [Pos] } }
    }
}

/// Moves every entity through the copy of [`system_body`] `SYSTEM_COPY`
/// picks.
#[derive(Default)]
pub struct Move;

/// Which copy of [`system_body`] the system runs.
static SYSTEM_COPY: AtomicUsize = AtomicUsize::new(0);

impl System<Movers> for Move {
    fn process(&self, data: &mut Data<'_, Movers, Self>, _: &()) {
        SYSTEM_BODIES[SYSTEM_COPY.load(Ordering::Relaxed)](data);
    }
}

/// ecs's walk (`fragmented`'s system), its body starting `K` bytes past a
/// 64-byte boundary.
#[inline(never)]
fn system_body<const K: usize>(data: &mut Data<'_, Movers, Move>) {
    place!(K);
    data.for_each::<(&mut Pos, &Vel)>(|(p, v)| advance(&mut p.0, &v.0));
}

type BodyFn = for<'a> fn(&mut Data<'a, Movers, Move>);

macro_rules! bodies {
    ($($k:literal)*) => { [$(system_body::<$k> as BodyFn),*] };
}

/// The 64 copies of the system's walk.
static SYSTEM_BODIES: [BodyFn; 64] = bodies!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
);

/// ecs's `fragmented` system over 10 000 movers, run by `run_all` on one
/// thread, at each placement; then the step alone (no system selected) to
/// set its fixed cost apart.
fn run_ecs(rounds: usize) {
    let mut world = Movers::new();
    let first = world.step(|p| {
        let first = p.spawn((Pos([0.0; 2]), Vel([0.0; 2]))).expect("room");
        for i in 1..N {
            p.spawn((Pos([i as f32; 2]), Vel([i as f32 * 1e-3; 2]))).expect("room");
        }
        first
    });
    let (pa, va) = world.step(|p| {
        let pa = p.get::<Pos>(first).expect("alive") as *const Pos as usize;
        let va = p.get::<Vel>(first).expect("alive") as *const Vel as usize;
        (pa, va)
    });
    println!(
        "ecs: positions {} bytes past a page, velocities {}",
        pa % 4096,
        va % 4096
    );
    let mut few = Movers::new();
    few.step(|p| {
        for i in 0..8 {
            p.spawn((Pos([i as f32; 2]), Vel([i as f32 * 1e-3; 2]))).expect("room");
        }
    });
    SYSTEM_COPY.store(0, Ordering::Relaxed);
    let mut few_ns = f64::INFINITY;
    for _ in 0..rounds {
        few_ns = few_ns.min(timing::time(ITERATIONS, || few.step(|p| p.run_all(&()))));
    }
    println!("ecs: a step moving 8 entities {few_ns:.0} ns");
    let mut ns = [f64::INFINITY; 64];
    let mut empty = f64::INFINITY;
    for _ in 0..rounds {
        for (k, t) in ns.iter_mut().enumerate() {
            SYSTEM_COPY.store(k, Ordering::Relaxed);
            *t = t.min(timing::time(ITERATIONS, || world.step(|p| p.run_all(&()))));
        }
        empty = empty.min(timing::time(ITERATIONS, || world.step(|_| ())));
    }
    black_box(&world);
    let (lo, mid, hi) = timing::spread(&ns);
    let slow = ns.iter().filter(|&&x| x > lo * 1.1).count();
    println!(
        "ecs, [f32; 2] (`for_each` in a system, `run_all`): min {lo:.0} ns, median {mid:.0}, max {hi:.0}; \
         {slow} of 64 placements over 1.1x the min; a step without systems {empty:.0} ns"
    );
}

/// Entities moved per call.
const N: usize = 10_000;

#[inline(always)]
fn advance<const W: usize>(p: &mut [f32; W], v: &[f32; W]) {
    for (p, v) in p.iter_mut().zip(v) {
        *p += v;
    }
}

#[inline(never)]
fn zip<const K: usize, const W: usize>(pos: &mut [[f32; W]], vel: &[[f32; W]]) {
    place!(K);
    for (p, v) in pos.iter_mut().zip(vel) {
        advance(p, v);
    }
}

#[inline(never)]
fn staged8<const K: usize, const W: usize>(pos: &mut [[f32; W]], vel: &[[f32; W]]) {
    place!(K);
    let mut ps = pos.chunks_exact_mut(8);
    let mut vs = vel.chunks_exact(8);
    for (p, v) in (&mut ps).zip(&mut vs) {
        let mut staged: [[f32; W]; 8] = core::array::from_fn(|i| p[i]);
        for (p, v) in staged.iter_mut().zip(v) {
            advance(p, v);
        }
        p.copy_from_slice(&staged);
    }
    for (p, v) in ps.into_remainder().iter_mut().zip(vs.remainder()) {
        advance(p, v);
    }
}

#[inline(never)]
fn chunks8<const K: usize, const W: usize>(pos: &mut [[f32; W]], vel: &[[f32; W]]) {
    place!(K);
    chunked::in_chunks::<_, _, 8>(pos, vel, advance);
}

#[inline(never)]
fn chunks32<const K: usize, const W: usize>(pos: &mut [[f32; W]], vel: &[[f32; W]]) {
    place!(K);
    chunked::in_chunks::<_, _, 32>(pos, vel, advance);
}

#[inline(never)]
fn chunks64<const K: usize, const W: usize>(pos: &mut [[f32; W]], vel: &[[f32; W]]) {
    place!(K);
    chunked::in_chunks::<_, _, 64>(pos, vel, advance);
}

/// Calls timed per measurement of one copy.
const ITERATIONS: usize = 4_000;

/// One form's copy: moves `pos` by `vel`.
type MoveFn<const W: usize> = fn(&mut [[f32; W]], &[[f32; W]]);

const NAMES: [&str; 5] = ["zip", "staged8", "chunks8", "chunks32", "chunks64"];

/// Every form's 64 copies for elements of `W` floats.
macro_rules! forms {
    ($w:literal: $($k:literal)*) => {
        [
            [$(zip::<$k, $w> as MoveFn<$w>),*],
            [$(staged8::<$k, $w> as MoveFn<$w>),*],
            [$(chunks8::<$k, $w> as MoveFn<$w>),*],
            [$(chunks32::<$k, $w> as MoveFn<$w>),*],
            [$(chunks64::<$k, $w> as MoveFn<$w>),*],
        ]
    };
}

/// Times every form's copies over two arrays of `[f32; W]` and prints their
/// spreads.
fn run<const W: usize>(rounds: usize, forms: &[[MoveFn<W>; 64]; 5]) {
    // `DATA_AT=K`: both arrays start `K` bytes past a 64-byte line;
    // `PAGE_AT=P,V`: the positions `P` bytes past a page's start and the
    // velocities `V` (multiples of the element's size apart from where the
    // buffers start); otherwise where the allocator puts them.
    let at: Option<usize> = std::env::var("DATA_AT").ok().and_then(|v| v.parse().ok());
    let page_at: Option<(usize, usize)> = std::env::var("PAGE_AT").ok().and_then(|v| {
        let (p, v) = v.split_once(',')?;
        Some((p.parse().ok()?, v.parse().ok()?))
    });
    let elem = 4 * W;
    let place_at = |v: &Vec<[f32; W]>, page: Option<usize>| -> core::ops::Range<usize> {
        let (m, want) = match (page, at) {
            (Some(p), _) => (4096, p),
            (None, Some(a)) => (64, a),
            (None, None) => (1, 0),
        };
        let skip = (0..4096)
            .find(|&s| (v.as_ptr() as usize + s * elem) % m == want % m)
            .expect("an element boundary at that offset");
        skip..skip + N
    };
    let mut pos_buf: Vec<[f32; W]> = (0..N + 4096).map(|i| [i as f32; W]).collect();
    let vel_buf: Vec<[f32; W]> = (0..N + 4096).map(|i| [i as f32 * 1e-3; W]).collect();
    let (pr, vr) = (
        place_at(&pos_buf, page_at.map(|p| p.0)),
        place_at(&vel_buf, page_at.map(|p| p.1)),
    );
    let pos = &mut pos_buf[pr];
    let vel = &vel_buf[vr];
    println!(
        "[f32; {W}]: positions {} bytes past a page, velocities {}",
        pos.as_ptr() as usize % 4096,
        vel.as_ptr() as usize % 4096
    );
    let mut ns = [[f64::INFINITY; 64]; 5];
    for _ in 0..rounds {
        for k in 0..64 {
            for (f, form) in forms.iter().enumerate() {
                ns[f][k] = ns[f][k].min(timing::time(ITERATIONS, || {
                    form[k](black_box(&mut *pos), black_box(vel))
                }));
            }
        }
    }
    black_box(&pos);
    for (f, name) in NAMES.iter().enumerate() {
        let (lo, mid, hi) = timing::spread(&ns[f]);
        let slow = ns[f].iter().filter(|&&x| x > lo * 1.1).count();
        println!("  {name:8}: min {lo:.0} ns, median {mid:.0}, max {hi:.0}; {slow} of 64 placements over 1.1x the min");
    }
}

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(3, |s| s.parse().unwrap());
    let two = forms!(2: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
    run::<2>(rounds, &two);
    let three = forms!(3: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
    run::<3>(rounds, &three);
    run_ecs(rounds);
}
