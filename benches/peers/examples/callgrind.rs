//! Drivers for instruction counts (BENCHMARKS.md, "Where the gaps come
//! from"): one workload's code as the table's ecs and best-effort versions
//! write it, run `ITERATIONS` times, for `valgrind --tool=callgrind`.
//!
//! ```sh
//! cargo build --release --manifest-path benches/peers/Cargo.toml --example callgrind
//! valgrind --tool=callgrind benches/peers/target/release/examples/callgrind insert ecs 11
//! ```
//!
//! Workloads: `insert` (`spawn_n`), `insert_batch` (`spawn_batch`),
//! `add_remove`, `schedule` (one thread), `schedule_team` (two threads, the
//! systems chained: the team's scheduler on the caller alone), `heavy`, `iter` (simple_iter),
//! `frag` (frag_iter);
//! versions: `ecs`, `best`, and for `iter` and `frag` also `system` (the
//! query in a system run by `run_all`; `ecs` is the table's `PreparedQuery`). A figure per iteration is the count of a long
//! run minus that of a short one, divided by the iterations between them.

#[macro_use]
#[path = "common/schedule_data.rs"]
mod schedule_data;

#[path = "../src/math.rs"]
#[allow(dead_code)]
mod math;

use ecs::{Data, PreparedQuery, System};
use rayon::prelude::*;
use std::hint::black_box;

const N: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform(pub math::Mat4);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Matrix4(pub math::Mat4);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub [f32; 3]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rotation(pub [f32; 3]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub [f32; 3]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct A(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct B(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct C(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct E(pub f32);

fn transform() -> Transform {
    Transform(math::IDENTITY)
}
fn position() -> Position {
    Position([1.0, 0.0, 0.0])
}
fn rotation() -> Rotation {
    Rotation([1.0, 0.0, 0.0])
}
fn velocity() -> Velocity {
    Velocity([1.0, 0.0, 0.0])
}

fn heavy(m: &mut Matrix4, p: &mut Position) {
    for _ in 0..100 {
        m.0 = math::invert(&m.0).expect("a rotation is invertible");
    }
    p.0 = math::transform_vector(&m.0, p.0);
}

ecs::declare_context! {
    pub context Insert {
        settings { entities: fixed(10_000), threads: 1 }
        components { Transform, Position, Rotation, Velocity: contiguous; }
    }
}

#[derive(Default)]
pub struct UsesB;

ecs::declare_context! {
    pub context AddRem {
        settings { entities: fixed(10_000), threads: 1 }
        components { A, B: contiguous; }
        systems { uses_b: UsesB { read: [A, B] } }
    }
}

impl System<AddRem> for UsesB {
    fn process(&self, data: &mut Data<'_, AddRem, Self>, _: &()) {
        let mut sum = 0.0;
        data.for_each::<(&A, &B)>(|(a, b)| sum += a.0 + b.0);
        black_box(sum);
    }
}

#[derive(Default)]
pub struct SwapAb;
#[derive(Default)]
pub struct SwapCd;
#[derive(Default)]
pub struct SwapCe;

ecs::declare_context! {
    pub context Sched {
        settings { entities: fixed(40_000), threads: 1 }
        components { A, B, C, D, E: contiguous; }
        systems {
            ab: SwapAb { write: [A, B], parallelism: none }
            cd: SwapCd { write: [C, D] }
            ce: SwapCe { write: [C, E], after: [cd] }
        }
    }
}

// `schedule_team`: the same systems on two threads, chained (`cd` after
// `ab`), so that every step goes through the team's scheduler (the
// dependency counters, the graph, the wait for it) while its caller runs
// every system: no helper is ever asked for, and the count does not depend
// on how the threads interleave. What this counts is what the caller of a
// two-thread `schedule` step executes around its systems, but for the
// roots it publishes (BENCHMARKS.md).
ecs::declare_context! {
    pub context SchedTeam {
        settings { entities: fixed(40_000), threads: 2 }
        components { A, B, C, D, E: contiguous; }
        systems {
            ab: SwapAb { write: [A, B], parallelism: none }
            cd: SwapCd { write: [C, D], after: [ab] }
            ce: SwapCe { write: [C, E], after: [cd] }
        }
    }
}

macro_rules! swaps {
    ($($cx:ty),*) => {$(
        impl System<$cx> for SwapAb {
            fn process(&self, data: &mut Data<'_, $cx, Self>, _: &()) {
                data.for_each::<(&mut A, &mut B)>(|(a, b)| core::mem::swap(&mut a.0, &mut b.0));
            }
        }

        impl System<$cx> for SwapCd {
            fn process(&self, data: &mut Data<'_, $cx, Self>, _: &()) {
                data.for_each::<(&mut C, &mut D)>(|(c, d)| core::mem::swap(&mut c.0, &mut d.0));
            }
        }

        impl System<$cx> for SwapCe {
            fn process(&self, data: &mut Data<'_, $cx, Self>, _: &()) {
                data.for_each::<(&mut C, &mut E)>(|(c, e)| core::mem::swap(&mut c.0, &mut e.0));
            }
        }
    )*};
}
swaps!(Sched, SchedTeam);

#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context Iter {
        settings { entities: fixed(10_000), threads: 1 }
        components { Transform, Position, Rotation, Velocity: contiguous; }
        systems { movement: Move { read: [Velocity], write: [Position] } }
    }
}

fn advance(p: &mut Position, v: &Velocity) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
    p.0[2] += v.0[2];
}

impl System<Iter> for Move {
    fn process(&self, data: &mut Data<'_, Iter, Self>, _: &()) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| advance(p, v));
    }
}

/// `frag_iter`'s components: what the system doubles, and 26 markers.
pub mod frag {
    macro_rules! markers {
        ($($m:ident),+) => {$(
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct $m(pub f32);
        )+};
    }
    markers!(Data, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
}

#[derive(Default)]
pub struct Double;

ecs::declare_context! {
    pub context Frag {
        settings { entities: fixed(520), threads: 1 }
        components {
            frag::Data, frag::A, frag::B, frag::C, frag::D, frag::E, frag::F, frag::G, frag::H, frag::I, frag::J,
            frag::K, frag::L, frag::M, frag::N, frag::O, frag::P, frag::Q, frag::R, frag::S, frag::T, frag::U,
            frag::V, frag::W, frag::X, frag::Y, frag::Z: contiguous;
        }
        systems { double: Double { write: [frag::Data] } }
    }
}

impl System<Frag> for Double {
    fn process(&self, data: &mut Data<'_, Frag, Self>, _: &()) {
        data.for_each::<&mut frag::Data>(|d| d.0 *= 2.0);
    }
}

#[derive(Default)]
pub struct Heavy;

ecs::declare_context! {
    pub context Compute {
        settings { entities: fixed(1_000), inner_parallelism: allow, threads: auto }
        components { Matrix4, Position, Rotation, Velocity: contiguous; }
        systems { heavy: Heavy { write: [Matrix4, Position], parallelism: split_every(50) } }
    }
}

impl System<Compute> for Heavy {
    fn process(&self, data: &mut Data<'_, Compute, Self>, _: &()) {
        data.for_each::<(&mut Matrix4, &mut Position)>(|(m, p)| heavy(m, p));
    }
}

fn insert(best: bool, iterations: usize) {
    for _ in 0..iterations {
        if best {
            black_box((
                vec![transform(); N],
                vec![position(); N],
                vec![rotation(); N],
                vec![velocity(); N],
            ));
        } else {
            let mut world = Insert::new();
            world.step(|p| {
                p.spawn_n(N, (transform(), position(), rotation(), velocity()))
                    .expect("room for N");
            });
            drop(black_box(world));
        }
    }
}

/// `insert` through `spawn_batch`, with an iterator of bundles (not the
/// table's code since `spawn_n`: kept to measure `spawn_batch`).
fn insert_batch(iterations: usize) {
    for _ in 0..iterations {
        let mut world = Insert::new();
        world.step(|p| {
            p.spawn_batch((0..N).map(|_| (transform(), position(), rotation(), velocity())))
                .expect("room for N");
        });
        drop(black_box(world));
    }
}

fn add_remove(iterations: usize) {
    let mut world = AddRem::new();
    world.step(|p| {
        p.spawn_batch((0..N).map(|_| (A(0.0),))).expect("room for N");
    });
    for _ in 0..iterations {
        world.step(|p| {
            p.add_to_all::<(A,), _>(|_| B(0.0));
            p.run_all(&());
        });
        world.step(|p| {
            p.remove_from_all::<B>();
            p.run_all(&());
        });
    }
}

fn schedule(best: bool, iterations: usize) {
    if best {
        let (mut a, mut b) = (vec![A(0.0); 4 * N], vec![B(1.0); 4 * N]);
        let (mut c, mut d, mut e) = (vec![C(2.0); 3 * N], vec![D(3.0); N], vec![E(4.0); N]);
        for _ in 0..iterations {
            for (x, y) in a.iter_mut().zip(&mut b) {
                core::mem::swap(&mut x.0, &mut y.0);
            }
            for (x, y) in c[N..2 * N].iter_mut().zip(&mut d) {
                core::mem::swap(&mut x.0, &mut y.0);
            }
            for (x, y) in c[2 * N..].iter_mut().zip(&mut e) {
                core::mem::swap(&mut x.0, &mut y.0);
            }
            black_box((&mut a, &mut b, &mut c, &mut d, &mut e));
        }
    } else {
        let mut world = Sched::new();
        spawn_schedule!(world);
        for _ in 0..iterations {
            world.step(|p| p.run_all(&()));
        }
    }
}

fn schedule_team(iterations: usize) {
    let mut world = SchedTeam::new();
    spawn_schedule!(world);
    for _ in 0..iterations {
        world.step(|p| p.run_all(&()));
    }
}

fn heavy_compute(best: bool, iterations: usize) {
    let (matrix, position) = (Matrix4(math::rotation_x(1.2)), Position([0.0, 1.0, 0.0]));
    if best {
        let (mut ms, mut ps) = (vec![matrix; 1_000], vec![position; 1_000]);
        for _ in 0..iterations {
            ms.par_iter_mut().zip(ps.par_iter_mut()).for_each(|(m, p)| heavy(m, p));
        }
        black_box((&ms, &ps));
    } else {
        let mut world = Compute::new();
        world.step(|p| {
            for _ in 0..1_000 {
                p.spawn((matrix, position, rotation(), velocity())).expect("room");
            }
        });
        for _ in 0..iterations {
            world.step(|p| p.run_all(&()));
        }
    }
}

fn simple_iter(best: bool, system: bool, iterations: usize) {
    if best {
        // As benches/peers/src/libs/best.rs: positions staged 8 at a time.
        let (mut ps, vs) = (vec![position(); N], vec![velocity(); N]);
        for _ in 0..iterations {
            let mut pc = ps.chunks_exact_mut(8);
            let mut vc = vs.chunks_exact(8);
            for (p, v) in (&mut pc).zip(&mut vc) {
                let mut staged: [Position; 8] = core::array::from_fn(|i| p[i]);
                for (p, v) in staged.iter_mut().zip(v) {
                    advance(p, v);
                }
                p.copy_from_slice(&staged);
            }
            for (p, v) in pc.into_remainder().iter_mut().zip(vc.remainder()) {
                advance(p, v);
            }
            black_box(&mut ps);
        }
    } else {
        let mut world = Iter::new();
        world.step(|p| {
            for _ in 0..N {
                p.spawn((transform(), position(), rotation(), velocity()))
                    .expect("room");
            }
        });
        let mut q = PreparedQuery::<Iter, (&mut Position, &Velocity)>::new();
        for _ in 0..iterations {
            if system {
                world.step(|p| p.run_all(&()));
            } else {
                world.step(|p| q.for_each(p, |(p, v)| advance(p, v)));
            }
        }
    }
}

/// Spawns 20 entities with `Data` and marker `$m`, for each marker in turn.
macro_rules! spawn_groups {
    ($p:expr, $($m:ident),+) => {$(
        for _ in 0..20 {
            $p.spawn((frag::$m(1.0), frag::Data(1.0))).expect("room");
        }
    )+};
}

fn frag_iter(best: bool, system: bool, iterations: usize) {
    if best {
        let mut data = vec![frag::Data(1.0); 520];
        for _ in 0..iterations {
            for d in &mut data {
                d.0 *= 2.0;
            }
            black_box(&mut data);
        }
    } else {
        let mut world = Frag::new();
        world.step(|p| {
            spawn_groups!(p, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        });
        let mut q = PreparedQuery::<Frag, &mut frag::Data>::new();
        for _ in 0..iterations {
            if system {
                world.step(|p| p.run_all(&()));
            } else {
                world.step(|p| q.for_each(p, |d| d.0 *= 2.0));
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: callgrind insert|insert_batch|add_remove|schedule|schedule_team|heavy|iter|frag ecs|best|system ITERATIONS";
    let (Some(workload), Some(version)) = (args.get(1), args.get(2)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let iterations: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let system = version == "system" && matches!(workload.as_str(), "iter" | "frag");
    let best = match version.as_str() {
        "ecs" => false,
        "system" if system => false,
        "best" => true,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    match workload.as_str() {
        "insert" => insert(best, iterations),
        "insert_batch" if !best => insert_batch(iterations),
        "add_remove" if !best => add_remove(iterations),
        "schedule" => schedule(best, iterations),
        "schedule_team" if !best => schedule_team(iterations),
        "heavy" => heavy_compute(best, iterations),
        "iter" => simple_iter(best, system, iterations),
        "frag" => frag_iter(best, system, iterations),
        _ => {
            eprintln!("{usage} (insert_batch, add_remove, schedule_team: ecs only; system: iter and frag only)");
            std::process::exit(2);
        }
    }
}
