pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Draw;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems { movement: Move { read: [Velocity], write: [Position], parallelism: split_every(0) } }
    }
}

fn main() {}
