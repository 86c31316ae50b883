//! `heavy_compute`: one system writing `Matrix4` and `Position`, split into
//! subtasks of 50 entities that the context's worker threads (one per core)
//! share out: on a noisy machine many small subtasks balance better than
//! one per core (`split_evenly_per_core` measured 4-7% slower on an AMD
//! machine, where the core that is interrupted set the pace; on the Intel
//! one of BENCHMARKS.md the two tie, 1.27 ms against 1.26 ms).

use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::HEAVY;
use ecs::{Data, Entity, System};

/// A context whose one system inverts each matrix 100 times and transforms
/// the position by it, split into subtasks of `$every` entities, and its
/// bench.
macro_rules! heavy_compute {
    ($module:ident, $every:literal) => {
        pub mod $module {
            use super::*;

            /// Inverts each matrix 100 times and transforms the position by it.
            #[derive(Default)]
            pub struct Heavy;

            ecs::declare_context! {
                pub context Compute {
                    settings { entities: fixed(1_000), inner_parallelism: allow, threads: auto }
                    components { Matrix4, Position, Rotation, Velocity: contiguous; }
                    systems { heavy: Heavy { write: [Matrix4, Position], parallelism: split_every($every) } }
                }
            }

            impl System<Compute> for Heavy {
                fn process(&self, data: &mut Data<'_, Compute, Self>, _: &()) {
                    data.for_each::<(&mut Matrix4, &mut Position)>(|(m, p)| heavy(m, p));
                }
            }

            pub struct HeavyCompute {
                world: Compute,
                entities: Vec<Entity>,
            }

            impl HeavyCompute {
                pub fn new() -> Self {
                    let mut world = Compute::new();
                    let entities = world.step(|p| {
                        (0..HEAVY)
                            .map(|_| {
                                p.spawn((matrix4(), heavy_position(), rotation(), velocity()))
                                    .expect("room")
                            })
                            .collect()
                    });
                    HeavyCompute { world, entities }
                }
            }

            impl Bench for HeavyCompute {
                fn run(&mut self) {
                    self.world.step(|p| p.run_all(&()));
                }

                fn check(&mut self) -> Check {
                    self.run();
                    let es = &self.entities;
                    let positions: Vec<Position> = self
                        .world
                        .step(|p| es.iter().filter_map(|&e| p.get::<Position>(e).copied()).collect());
                    expect::heavy_compute(positions)
                }
            }
        }
    };
}

// The table's: subtasks of 50 entities (~130 µs each on one core).
heavy_compute!(every_50, 50);
// A variant: subtasks of 10 entities (~26 µs), for a shorter tail when the
// two cores finish their last subtask at different times.
heavy_compute!(every_10, 10);

pub use every_50::HeavyCompute;
