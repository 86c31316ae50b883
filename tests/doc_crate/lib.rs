//! A context for rustdoc to render.

/// Where it is.
pub struct Position(pub f32);
/// How fast it goes.
pub struct Velocity(pub f32);
/// What it looks like.
pub struct Color(pub u8);

/// The time step.
#[derive(Default)]
pub struct Time(pub f32);
/// Things counted.
#[derive(Default)]
pub struct Score(pub u32);

/// Moves things.
#[derive(Default)]
pub struct Move;
/// Draws things.
#[derive(Default)]
pub struct Draw;
/// Counts things.
#[derive(Default)]
pub struct Count;

ecs::declare_context! {
    /// The documented context.
    pub context Documented {
        settings { entities: fixed(1000), inner_parallelism: deny, threads: 2 }
        components {
            /// Position and velocity, one buffer each.
            Position, Velocity: contiguous;
            Color: sparse_set;
        }
        resources {
            /// How far a step goes.
            Time,
            Score,
        }
        systems {
            /// Integrates velocities.
            movement: Move { read: [Velocity, Time], write: [Position], parallelism: split_evenly_per_core }
            draw: Draw { read: [Position, Color], after: [movement], output: Vec<u32> }
            count: Count { read: [Color], write: [Score] }
        }
    }
}
