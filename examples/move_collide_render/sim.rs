//! Seed 002's benchmark scene (Milligan's data-oriented ECS report): 65 535
//! entities with a position, a velocity and a rectangle's size; a frame
//! runs Move (position += velocity), then Collision (each entity's
//! rectangle against one fixed rectangle, counting intersections), then
//! Render (the positions folded into a checksum instead of drawn).
//!
//! [`scene_context!`] declares a context of those three systems with the
//! settings given; [`Handwritten`] is the same frame as plain loops over
//! one `Vec` per component. Both compute the same count and checksum.

/// Entities: seed 002's `UINT16_MAX`.
pub const ENTITIES: usize = 65_535;

/// A 2D position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos2(pub [f32; 2]);
/// A 2D velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vel2(pub [f32; 2]);
/// Width and height of the entity's rectangle, whose corner is its position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extent(pub [f32; 2]);

/// The fixed rectangle Collision tests against: `[min_x, min_y, max_x, max_y)`.
pub const WALL: [f32; 4] = [200.0, 100.0, 500.0, 400.0];

/// Entity `i`'s initial values: a 256-wide grid 3 units apart, velocities
/// from -1.5 to 1.5, sizes 2 to 5.
pub fn initial(i: usize) -> (Pos2, Vel2, Extent) {
    let i = i as u32;
    (
        Pos2([(i % 256) as f32 * 3.0, (i / 256) as f32 * 3.0]),
        Vel2([((i % 7) as f32 - 3.0) * 0.5, ((i % 5) as f32 - 2.0) * 0.5]),
        Extent([2.0 + (i % 3) as f32, 2.0 + (i % 4) as f32]),
    )
}

/// Move: one entity.
#[inline(always)]
pub fn advance(p: &mut Pos2, v: &Vel2) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
}

/// Collision: 1 when the entity's rectangle meets [`WALL`], else 0
/// (branch-free).
#[inline(always)]
pub fn hits(p: &Pos2, e: &Extent) -> u32 {
    let [x, y] = p.0;
    u32::from((x < WALL[2]) & (x + e.0[0] > WALL[0]) & (y < WALL[3]) & (y + e.0[1] > WALL[1]))
}

/// Render: one position's share of the checksum, a wrapping sum of each
/// position's bits (x in the high half), which does not depend on the
/// order entities are visited in.
#[inline(always)]
pub fn ink(p: &Pos2) -> u64 {
    (u64::from(p.0[0].to_bits()) << 32) | u64::from(p.0[1].to_bits())
}

/// The Move system.
#[derive(Default)]
pub struct Move;
/// The Collision system: counts the rectangles meeting the wall (one count
/// per subtask).
#[derive(Default)]
pub struct Collide;
/// The Render system: the checksum of the positions (one per subtask).
#[derive(Default)]
pub struct Render;

/// Declares a context of the scene's three systems, `Move` then `Collide`
/// then `Render`, with the given settings and parallelism, and implements
/// the systems for it (`$Systems` names the generated `<Name>Systems`);
/// `$Name::frame(&mut ctx)` runs one frame and returns
/// the count and the checksum.
#[macro_export]
macro_rules! scene_context {
    ($(#[$m:meta])* pub context $Name:ident ($Systems:ident) { $($settings:tt)* } parallelism: $($par:tt)*) => {
        ecs::declare_context! {
            $(#[$m])*
            pub context $Name {
                settings { $($settings)* }
                components { Pos2, Vel2, Extent: contiguous; }
                systems {
                    movement: Move { read: [Vel2], write: [Pos2], parallelism: $($par)* }
                    collision: Collide { read: [Pos2, Extent], after: [movement], parallelism: $($par)*, output: u32 }
                    render: Render { read: [Pos2], after: [collision], parallelism: $($par)*, output: u64 }
                }
            }
        }

        impl ecs::System<$Name> for Move {
            fn process(&self, data: &mut ecs::Data<'_, $Name, Self>, _: &()) {
                data.for_each::<(&mut Pos2, &Vel2)>(|(p, v)| advance(p, v));
            }
        }

        impl ecs::System<$Name> for Collide {
            fn process(&self, data: &mut ecs::Data<'_, $Name, Self>, _: &()) {
                let mut count = 0;
                data.for_each::<(&Pos2, &Extent)>(|(p, e)| count += hits(p, e));
                *data.output() = count;
            }
        }

        impl ecs::System<$Name> for Render {
            fn process(&self, data: &mut ecs::Data<'_, $Name, Self>, _: &()) {
                let mut checksum = 0u64;
                data.for_each::<&Pos2>(|p| checksum = checksum.wrapping_add(ink(p)));
                *data.output() = checksum;
            }
        }

        impl $Name {
            /// A context holding the scene's entities.
            pub fn with_scene(threads: Option<usize>) -> Self {
                let mut cx = Self::with_threads(
                    $Systems { movement: Move, collision: Collide, render: Render },
                    threads,
                );
                cx.step(|p| p.spawn_batch((0..ENTITIES).map(initial)).expect("room").for_each(drop));
                cx
            }

            /// One frame: the collision count and the checksum.
            pub fn frame(&mut self) -> (u32, u64) {
                self.step(|p| {
                    p.run_all(&());
                    let count = p.outputs::<Collide>().iter().sum();
                    let checksum = p.outputs::<Render>().iter().fold(0u64, |s, &c| s.wrapping_add(c));
                    (count, checksum)
                })
            }
        }
    };
}

/// The same frame by hand: one `Vec` per component, three passes in the
/// systems' order, each written so that the compiler vectorises it (Move
/// stages 8 positions in a local array).
pub struct Handwritten {
    positions: Vec<Pos2>,
    velocities: Vec<Vel2>,
    extents: Vec<Extent>,
}

/// Entities moved together by the hand-written Move.
const LANES: usize = 8;

impl Handwritten {
    /// The scene's entities.
    pub fn new() -> Self {
        Handwritten {
            positions: (0..ENTITIES).map(|i| initial(i).0).collect(),
            velocities: (0..ENTITIES).map(|i| initial(i).1).collect(),
            extents: (0..ENTITIES).map(|i| initial(i).2).collect(),
        }
    }

    /// One frame: the collision count and the checksum.
    pub fn frame(&mut self) -> (u32, u64) {
        let mut ps = self.positions.chunks_exact_mut(LANES);
        let mut vs = self.velocities.chunks_exact(LANES);
        for (p, v) in (&mut ps).zip(&mut vs) {
            let mut staged: [Pos2; LANES] = core::array::from_fn(|i| p[i]);
            for (p, v) in staged.iter_mut().zip(v) {
                advance(p, v);
            }
            p.copy_from_slice(&staged);
        }
        for (p, v) in ps.into_remainder().iter_mut().zip(vs.remainder()) {
            advance(p, v);
        }
        let count = self.positions.iter().zip(&self.extents).map(|(p, e)| hits(p, e)).sum();
        let checksum = self.positions.iter().fold(0u64, |s, p| s.wrapping_add(ink(p)));
        (count, checksum)
    }
}
