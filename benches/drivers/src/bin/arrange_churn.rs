//! The cost of `layout: archetypes`'s sort after a change of a named
//! component: 100 000 entities (as `benches/peers`'s `fragmented`), Move
//! over the tenth holding `Vel`; each step toggles `Vel` (which Move names)
//! on 1 000 entities (every 100th by creation), or with `filler` toggles
//! `F0` (which no system names), then runs Move.
//!
//! ```sh
//! cargo build --release --manifest-path benches/drivers/Cargo.toml
//! valgrind --tool=callgrind benches/drivers/target/release/arrange_churn vel 10
//! valgrind --tool=callgrind benches/drivers/target/release/arrange_churn vel 20
//! ```
//!
//! A figure per step is the count of the long run minus that of the short
//! one, divided by the steps between them.

use ecs::{Data, Entity, System};
use std::hint::black_box;

const ENTITIES: usize = 100_000;
const CHURN_STEP: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub [f32; 2]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vel(pub [f32; 2]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct F0(pub [f32; 4]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct F1(pub [f32; 4]);

#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context Frags {
        settings { entities: fixed(100_000), threads: 1, layout: archetypes }
        components { Pos, Vel, F0, F1: contiguous; }
        systems { movement: Move { read: [Vel], write: [Pos] } }
    }
}

impl System<Frags> for Move {
    fn process(&self, data: &mut Data<'_, Frags, Self>, _: &()) {
        data.for_each::<(&mut Pos, &Vel)>(|(p, v)| {
            p.0[0] += v.0[0];
            p.0[1] += v.0[1];
        });
    }
}

fn hash(i: usize) -> u32 {
    let mut x = (i as u32).wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995;
    x ^= x >> 15;
    x = x.wrapping_mul(0x2c1b_3c6d);
    x ^ (x >> 12)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "vel".into());
    let steps: usize = args.next().map_or(10, |s| s.parse().unwrap());
    let mut cx = Frags::new();
    let churned: Vec<Entity> = cx.step(|p| {
        let mut churned = Vec::new();
        for i in 0..ENTITIES {
            let h = hash(i);
            let e = p.spawn((Pos([i as f32, 0.0]),)).unwrap();
            if h.is_multiple_of(10) {
                p.add(e, Vel([1.0, 2.0])).unwrap();
            }
            if (h >> 16) & 1 != 0 {
                p.add(e, F0([0.0; 4])).unwrap();
            }
            if (h >> 17) & 1 != 0 {
                p.add(e, F1([0.0; 4])).unwrap();
            }
            if i.is_multiple_of(CHURN_STEP) {
                churned.push(e);
            }
        }
        churned
    });
    cx.step(|p| p.run_all(&()));
    for _ in 0..steps {
        cx.step(|p| {
            for &e in &churned {
                match mode.as_str() {
                    "vel" if p.remove::<Vel>(e).is_none() => {
                        p.add(e, Vel([1.0, 1.0])).unwrap();
                    }
                    "filler" if p.remove::<F0>(e).is_none() => {
                        p.add(e, F0([1.0; 4])).unwrap();
                    }
                    _ => {}
                }
            }
            p.run_all(&());
        });
    }
    // A checksum, so that no run is optimised away.
    let sum = cx.step(|p| {
        p.run_all(&());
        churned
            .iter()
            .map(|&e| p.get::<Pos>(e).map_or(0.0, |x| x.0[0] + x.0[1]))
            .sum::<f32>()
    });
    println!("{mode} {steps}: {sum}");
    black_box(&cx);
}
