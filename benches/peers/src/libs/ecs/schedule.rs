//! `schedule`: three systems run by `run_all` on one thread per core (the
//! caller and a helper); `ab` may overlap `cd` and `ce`, and `ce` runs
//! after `cd` since both write `C`. `ab` is split every 10 000 entities:
//! the caller takes its subtasks from the last, the helper from the first
//! once it has run `cd` and `ce`, so that each thread does about 30 000
//! swaps, on the same columns every step (they stay in its core's cache).
//! `ab` unsplit, beside `cd` then `ce`, is measured as a variant.

use crate::components::letters::*;
use crate::components::{letters, swap};
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::N;
use ecs::{Data, Entity, System};

/// The workload's context with `ab` split as `$($split)*` says, its systems
/// and its bench.
macro_rules! schedule {
    ($module:ident, $($split:tt)*) => {
        pub mod $module {
            use super::*;

            /// Swaps `A` and `B`.
            #[derive(Default)]
            pub struct SwapAb;
            /// Swaps `C` and `D`.
            #[derive(Default)]
            pub struct SwapCd;
            /// Swaps `C` and `E`.
            #[derive(Default)]
            pub struct SwapCe;

            ecs::declare_context! {
                pub context Sched {
                    settings { entities: fixed(40_000), threads: auto }
                    components { A, B, C, D, E: contiguous; }
                    systems {
                        ab: SwapAb { write: [A, B], parallelism: $($split)* }
                        cd: SwapCd { write: [C, D] }
                        ce: SwapCe { write: [C, E], after: [cd] }
                    }
                }
            }

            impl System<Sched> for SwapAb {
                fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
                    data.for_each::<(&mut A, &mut B)>(|(a, b)| swap(&mut a.0, &mut b.0));
                }
            }

            impl System<Sched> for SwapCd {
                fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
                    data.for_each::<(&mut C, &mut D)>(|(c, d)| swap(&mut c.0, &mut d.0));
                }
            }

            impl System<Sched> for SwapCe {
                fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
                    data.for_each::<(&mut C, &mut E)>(|(c, e)| swap(&mut c.0, &mut e.0));
                }
            }

            pub struct Schedule {
                world: Sched,
                entities: Vec<Entity>,
            }

            impl Schedule {
                pub fn new() -> Self {
                    let mut world = Sched::new();
                    let (a, b, c, d, e) = letters();
                    let entities = world.step(|p| {
                        let mut out = Vec::with_capacity(4 * N);
                        out.extend((0..N).map(|_| p.spawn((a, b)).expect("room")));
                        out.extend((0..N).map(|_| p.spawn((a, b, c)).expect("room")));
                        out.extend((0..N).map(|_| p.spawn((a, b, c, d)).expect("room")));
                        out.extend((0..N).map(|_| p.spawn((a, b, c, e)).expect("room")));
                        out
                    });
                    Schedule { world, entities }
                }
            }

            impl Bench for Schedule {
                fn run(&mut self) {
                    self.world.step(|p| p.run_all(&()));
                }

                fn check(&mut self) -> Check {
                    self.run();
                    let es = &self.entities;
                    let s = self.world.step(|p| {
                        let mut s = expect::Schedule::default();
                        for &e in es {
                            let (a, b) = (p.get::<A>(e), p.get::<B>(e));
                            let (c, d, x) = (p.get::<C>(e), p.get::<D>(e), p.get::<E>(e));
                            if let (Some(a), Some(b)) = (a, b) {
                                s.ab.push((a.0, b.0));
                            }
                            if let (Some(c), Some(d)) = (c, d) {
                                s.cd.push((c.0, d.0));
                            }
                            if let (Some(c), Some(x)) = (c, x) {
                                s.ce.push((c.0, x.0));
                            }
                            s.c.extend(c.map(|c| c.0));
                        }
                        s
                    });
                    expect::schedule(s)
                }
            }
        }
    };
}

// The table's: `ab` in subtasks of 10 000 entities.
schedule!(split, split_every(10_000));
// A variant: `ab` whole on one thread, beside `cd` then `ce` on the other.
schedule!(whole, none);
