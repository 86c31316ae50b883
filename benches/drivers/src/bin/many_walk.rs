//! What a system walk costs per entity over a `many` component whose
//! entities each hold one instance, against the same values `contiguous`.
//!
//! ```sh
//! cargo build --release --manifest-path benches/drivers/Cargo.toml
//! valgrind --tool=callgrind benches/drivers/target/release/many_walk many 20000
//! valgrind --tool=callgrind benches/drivers/target/release/many_walk many 40000
//! ```
//!
//! Each run creates the entities, then runs the system `STEPS` times; the
//! cost per entity and step is (count at 2N - count at N) / (N * STEPS)
//! minus the same difference for the creation alone (`... many-setup N`).

use ecs::{Data, Many, System};
use std::hint::black_box;

const STEPS: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub f32);
/// The instance type, `many` in one context, `contiguous` in the other.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Emitter(pub f32);

#[derive(Default)]
pub struct Emit;

mod many {
    use super::*;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: dynamic(1024), threads: 1 }
            components { Emitter: many; Pos: contiguous; }
            systems { emit: Emit { read: [Pos], write: [Emitter] } }
        }
    }

    impl System<Ctx> for Emit {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            data.for_each::<(&mut Many<Emitter>, &Pos)>(|(set, p)| {
                for e in set.iter_mut() {
                    e.0 += p.0;
                }
            });
        }
    }

    pub fn run(n: usize, steps: usize) -> f32 {
        let mut cx = Ctx::new();
        cx.step(|p| {
            for i in 0..n {
                p.spawn((Many::new(Emitter(0.0)), Pos(i as f32))).unwrap();
            }
        });
        for _ in 0..steps {
            cx.step(|p| p.run_all(&()));
        }
        cx.step(|p| p.query::<&Many<Emitter>>().map(|(_, s)| s[0].0).sum())
    }
}

mod plain {
    use super::*;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: dynamic(1024), threads: 1 }
            components { Emitter, Pos: contiguous; }
            systems { emit: Emit { read: [Pos], write: [Emitter] } }
        }
    }

    impl System<Ctx> for Emit {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            data.for_each::<(&mut Emitter, &Pos)>(|(e, p)| e.0 += p.0);
        }
    }

    pub fn run(n: usize, steps: usize) -> f32 {
        let mut cx = Ctx::new();
        cx.step(|p| {
            for i in 0..n {
                p.spawn((Emitter(0.0), Pos(i as f32))).unwrap();
            }
        });
        for _ in 0..steps {
            cx.step(|p| p.run_all(&()));
        }
        cx.step(|p| p.query::<&Emitter>().map(|(_, e)| e.0).sum())
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "many".into());
    let n: usize = args.next().map_or(20_000, |s| s.parse().unwrap());
    let sum = match what.as_str() {
        "many" => many::run(n, STEPS),
        "many-setup" => many::run(n, 0),
        "plain" => plain::run(n, STEPS),
        "plain-setup" => plain::run(n, 0),
        _ => panic!("many, many-setup, plain or plain-setup"),
    };
    println!("{what} {n}: {}", black_box(sum));
}
