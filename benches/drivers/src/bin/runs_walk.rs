//! A system whose entities are several runs of ids under `layout:
//! archetypes`: Move over `Pos` and `Vel`, with the entities that also hold
//! `Spin` (which another system names) a run of their own, and entities
//! holding `Pos` and `Spin` only between the two. `one` gives every mover
//! the same set instead (one run).
//!
//! ```sh
//! cargo build --release --manifest-path benches/drivers/Cargo.toml
//! valgrind --tool=callgrind benches/drivers/target/release/runs_walk two 20000
//! valgrind --tool=callgrind benches/drivers/target/release/runs_walk two 40000
//! ```
//!
//! Per mover and step: (count at 2N - count at N) minus the same for the
//! creation alone (`two-setup`), over N * STEPS.

use ecs::{Data, System};
use std::hint::black_box;

const STEPS: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub [f32; 2]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vel(pub [f32; 2]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spin(pub f32);

#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Turn;

ecs::declare_context! {
    pub context Ctx {
        settings { entities: dynamic(1024), threads: 1, layout: archetypes }
        components { Pos, Vel, Spin: contiguous; }
        systems {
            movement: Move { read: [Vel], write: [Pos] }
            turn: Turn { write: [Spin] }
        }
    }
}

impl System<Ctx> for Move {
    fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
        data.for_each::<(&mut Pos, &Vel)>(|(p, v)| {
            p.0[0] += v.0[0];
            p.0[1] += v.0[1];
        });
    }
}

impl System<Ctx> for Turn {
    fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
        data.for_each::<&mut Spin>(|s| s.0 += 1.0);
    }
}

/// `n` movers, half of them spinning unless `one`, and `n` spinners in all
/// (those that do not move: `n / 2`, or `n` when `one`).
fn run(n: usize, steps: usize, one: bool) -> f32 {
    let mut cx = Ctx::new();
    cx.step(|p| {
        for i in 0..n {
            let e = p.spawn((Pos([i as f32, 0.0]), Vel([1.0, 2.0]))).unwrap();
            if !one && i % 2 == 0 {
                p.add(e, Spin(0.0)).unwrap();
            }
            if i % 2 == 0 {
                p.spawn((Pos([0.0, 0.0]), Spin(0.0))).unwrap();
                // As many spinners either way: Turn does the same work.
                if one {
                    p.spawn((Pos([0.0, 0.0]), Spin(0.0))).unwrap();
                }
            }
        }
    });
    for _ in 0..steps {
        cx.step(|p| p.run_all(&()));
    }
    cx.step(|p| p.query::<&Pos>().map(|(_, x)| x.0[0] + x.0[1]).sum())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "two".into());
    let n: usize = args.next().map_or(20_000, |s| s.parse().unwrap());
    let sum = match what.as_str() {
        "two" => run(n, STEPS, false),
        "two-setup" => run(n, 0, false),
        "one" => run(n, STEPS, true),
        "one-setup" => run(n, 0, true),
        _ => panic!("two, one, two-setup or one-setup"),
    };
    println!("{what} {n}: {}", black_box(sum));
}
