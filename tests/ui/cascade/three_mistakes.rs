//! Independent mistakes are reported together, in one build.
pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Draw;
#[derive(Default)]
pub struct Log;

ecs::declare_context! {
    pub context World {
        settings { threads: 0 }
        components { Position, Velocity: contiguous; }
        systems {
            movement: Move { read: [Velocity], write: [Position] }
            draw: Draw { read: [Position, Colour], after: [movement] }
            log: Log { read: [Position], after: [paint] }
        }
    }
}

fn main() {}
