//! A column step against per-entity iteration: integrating the positions of
//! 1 000 000 entities created together (`position += velocity * dt`, 2D,
//! `contiguous`), one thread, in one run:
//!
//! - `column step`: a system declared `kind: columns`, whose one run is a
//!   pair of slices, walked by a plain `zip` loop;
//! - `for_each (blocks)`: an entity system's `for_each`, which walks this
//!   query in blocks of 8 (one small written `contiguous` component);
//! - `for_each_in_place`: one entity at a time;
//! - `hand-written`: the best-effort yardstick, a `zip` loop over two `Vec`s
//!   holding the same values;
//! - `column step, 2 threads`: the step split evenly per core.
//!
//! Each round runs every variant once, in turn, so that they are measured
//! close together; the medians and their ratios to the hand-written loop
//! are printed, and every variant's positions are checked against the
//! hand-written ones at the end (bit for bit).
//!
//! `--rounds N` (default 31). `--only VARIANT --rounds N` runs one variant
//! alone (`step`, `blocks`, `in_place`, `hand`, `step2`), for instruction
//! counts: `valgrind --tool=callgrind` on `--rounds 0` and `--rounds 4`, the
//! difference over 4 000 000 is instructions per entity.

#[path = "support/rounds.rs"]
mod rounds;

use ecs::{ColumnSystem, Columns, Data, System};
use rounds::{Args, Variants as _};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity {
    pub x: f32,
    pub y: f32,
}

const N: usize = 1_000_000;
const DT: f32 = 1.0 / 64.0;

#[derive(Default)]
pub struct Step;
#[derive(Default)]
pub struct Blocks;
#[derive(Default)]
pub struct InPlace;

ecs::declare_context! {
    pub context Stepping {
        settings { entities: fixed(1_000_000), threads: 1 }
        components { Position, Velocity: contiguous; }
        systems { integrate: Step { kind: columns, read: [Velocity], write: [Position], parallelism: split_evenly_per_core } }
    }
}

ecs::declare_context! {
    pub context Iterating {
        settings { entities: fixed(1_000_000), threads: 1 }
        components { Position, Velocity: contiguous; }
        systems {
            blocks: Blocks { read: [Velocity], write: [Position] }
            in_place: InPlace { read: [Velocity], write: [Position], after: [blocks] }
        }
    }
}

/// The integration of one run, as the step and the hand-written loop write it.
#[inline(always)]
fn integrate(p: &mut [Position], v: &[Velocity], dt: f32) {
    for (p, v) in p.iter_mut().zip(v) {
        p.x += v.x * dt;
        p.y += v.y * dt;
    }
}

impl ColumnSystem<Stepping, f32> for Step {
    fn process(&self, columns: &mut Columns<'_, Stepping, Self>, dt: &f32) {
        let dt = *dt;
        columns.for_each_run::<(&mut Position, &Velocity)>(|(p, v)| integrate(p, v, dt));
    }
}

impl System<Iterating, f32> for Blocks {
    fn process(&self, data: &mut Data<'_, Iterating, Self>, dt: &f32) {
        let dt = *dt;
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| {
            p.x += v.x * dt;
            p.y += v.y * dt;
        });
    }
}

impl System<Iterating, f32> for InPlace {
    fn process(&self, data: &mut Data<'_, Iterating, Self>, dt: &f32) {
        let dt = *dt;
        data.for_each_in_place::<(&mut Position, &Velocity)>(|(p, v)| {
            p.x += v.x * dt;
            p.y += v.y * dt;
        });
    }
}

fn start(i: usize) -> (Position, Velocity) {
    let f = i as f32;
    (
        Position { x: f, y: -f },
        Velocity {
            x: (i % 7) as f32 - 3.0,
            y: (i % 5) as f32 * 0.5,
        },
    )
}

fn stepping(threads: usize) -> Stepping {
    let mut w = Stepping::with_threads(Default::default(), Some(threads));
    w.step(|p| p.spawn_batch((0..N).map(start)).map(drop).expect("room"));
    w
}

fn iterating() -> Iterating {
    let mut w = Iterating::new();
    w.step(|p| p.spawn_batch((0..N).map(start)).map(drop).expect("room"));
    w
}

/// The variants, each a world and a way to run one integration of it.
struct Variants {
    step: Stepping,
    step2: Stepping,
    blocks: Iterating,
    in_place: Iterating,
    hand: (Vec<Position>, Vec<Velocity>),
}

const KEYS: [&str; 5] = ["step", "blocks", "in_place", "hand", "step2"];

impl rounds::Variants for Variants {
    const NAMES: &'static [&'static str] = &[
        "column step",
        "for_each (blocks)",
        "for_each_in_place",
        "hand-written",
        "column step, 2 threads",
    ];

    fn run(&mut self, k: usize) -> Duration {
        let dt = black_box(DT);
        let t = Instant::now();
        match k {
            0 => self.step.step(|p| p.run_all(&dt)),
            1 => self
                .blocks
                .step(|p| p.run_adapted(&ecs::Adapters::new().system::<Blocks>(|s, data| s.process(data, &dt)))),
            2 => self
                .in_place
                .step(|p| p.run_adapted(&ecs::Adapters::new().system::<InPlace>(|s, data| s.process(data, &dt)))),
            3 => {
                let (p, v) = &mut self.hand;
                integrate(black_box(p), black_box(v), dt);
            }
            _ => self.step2.step(|p| p.run_all(&dt)),
        }
        t.elapsed()
    }
}

impl Variants {
    fn new(only: Option<usize>) -> Self {
        let want = |k: usize| only.is_none_or(|o| o == k);
        Variants {
            step: if want(0) { stepping(1) } else { Stepping::new() },
            blocks: if want(1) { iterating() } else { Iterating::new() },
            in_place: if want(2) { iterating() } else { Iterating::new() },
            hand: if want(3) {
                (0..N).map(start).unzip()
            } else {
                Default::default()
            },
            step2: if want(4) { stepping(2) } else { Stepping::new() },
        }
    }

    fn positions(&mut self, k: usize) -> Vec<Position> {
        fn of_stepping(w: &mut Stepping) -> Vec<Position> {
            w.step(|p| p.query::<&Position>().map(|(_, p)| *p).collect())
        }
        fn of_iterating(w: &mut Iterating) -> Vec<Position> {
            w.step(|p| p.query::<&Position>().map(|(_, p)| *p).collect())
        }
        match k {
            0 => of_stepping(&mut self.step),
            1 => of_iterating(&mut self.blocks),
            2 => of_iterating(&mut self.in_place),
            3 => self.hand.0.clone(),
            _ => of_stepping(&mut self.step2),
        }
    }
}

fn main() {
    let Args { rounds, only } = Args::parse(31, &KEYS);
    let mut variants = Variants::new(only);
    if let Some(k) = only {
        return rounds::run_only(&mut variants, k, rounds);
    }
    let medians = rounds::medians(&mut variants, rounds);
    let want = variants.positions(3);
    for k in [0, 1, 2, 4] {
        assert!(
            variants.positions(k) == want,
            "`{}` computed other positions",
            Variants::NAMES[k]
        );
    }
    rounds::print_ratios::<Variants>(
        &format!("integrate positions of {N} contiguous entities (median of {rounds} rounds; ratio to hand-written)"),
        &medians,
        3,
    );
    let step = medians[0].as_secs_f64();
    println!(
        "  for_each (blocks) / column step: {:.2}x, for_each_in_place / column step: {:.2}x",
        medians[1].as_secs_f64() / step,
        medians[2].as_secs_f64() / step
    );
}
