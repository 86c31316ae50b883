//! ecs: the three systems declared in order (`after`), run by `run_all`
//! on the caller's thread; Collision and Render hand back their results
//! as outputs. Render, a reduction over one column, is a column step
//! (`kind: columns`): it gets the position column as a slice and runs the
//! same [`render`] as the best-effort version. [`FrameEach`] is the variant
//! with Render as an entity system folding one running sum.

use super::*;
use crate::expect::{self, Check};
use ::ecs::{ColumnSystem, Columns, Data, System};
use std::hint::black_box;

/// Move: position += velocity.
#[derive(Default)]
pub struct Move;
/// Collision: counts the rectangles meeting the wall.
#[derive(Default)]
pub struct Collide;
/// Render as a column step: folds the position column into a checksum.
#[derive(Default)]
pub struct Render;
/// Render as an entity system: folds the positions one by one.
#[derive(Default)]
pub struct RenderEach;

/// A context `$scene` running Move, Collision and `$render` (with the
/// optional `$key: $value` setting), and the benchmark `$frame` over it.
macro_rules! scene {
    ($scene:ident, $frame:ident, $render:ident $(, $key:ident: $value:ident)?) => {
        ::ecs::declare_context! {
            pub context $scene {
                settings { entities: fixed(65_535), threads: 1 }
                components { Pos2, Vel2, Extent: contiguous; }
                systems {
                    movement: Move { read: [Vel2], write: [Pos2] }
                    collision: Collide { read: [Pos2, Extent], after: [movement], output: u32 }
                    render: $render { $($key: $value,)? read: [Pos2], after: [collision], output: u64 }
                }
            }
        }

        impl System<$scene> for Move {
            fn process(&self, data: &mut Data<'_, $scene, Self>, _: &()) {
                data.for_each::<(&mut Pos2, &Vel2)>(|(p, v)| advance(p, v));
            }
        }

        impl System<$scene> for Collide {
            fn process(&self, data: &mut Data<'_, $scene, Self>, _: &()) {
                let mut count = 0;
                data.for_each::<(&Pos2, &Extent)>(|(p, e)| count += hits(p, e));
                *data.output() = count;
            }
        }

        pub struct $frame($scene);

        impl $frame {
            pub fn new() -> Self {
                let mut scene = $scene::new();
                scene.step(|p| {
                    p.spawn_batch((0..ENTITIES).map(initial)).expect("room").for_each(drop);
                });
                $frame(scene)
            }

            fn frame(&mut self) -> (u32, u64) {
                self.0.step(|p| {
                    p.run_all(&());
                    (p.outputs::<Collide>()[0], p.outputs::<$render>()[0])
                })
            }
        }

        impl Bench for $frame {
            fn run(&mut self) {
                black_box(self.frame());
            }

            fn check(&mut self) -> Check {
                let (count, checksum) = self.frame();
                expect::move_collide_render(count, checksum)
            }
        }
    };
}

scene!(Scene, Frame, Render, kind: columns);
scene!(SceneEach, FrameEach, RenderEach);

impl ColumnSystem<Scene> for Render {
    fn process(&self, columns: &mut Columns<'_, Scene, Self>, _: &()) {
        let mut checksum = 0u64;
        columns.for_each_run::<&Pos2>(|positions| checksum = checksum.wrapping_add(render(positions)));
        *columns.output() = checksum;
    }
}

impl System<SceneEach> for RenderEach {
    fn process(&self, data: &mut Data<'_, SceneEach, Self>, _: &()) {
        let mut checksum = 0u64;
        data.for_each::<&Pos2>(|p| checksum = checksum.wrapping_add(ink(p)));
        *data.output() = checksum;
    }
}
