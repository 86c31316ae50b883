pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Integrate;
#[derive(Default)]
pub struct Draw;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems {
            integrate: Integrate { kind: columns, read: [Velocity], write: [Position] }
            draw: Draw { read: [Position] }
        }
    }
}

fn main() {}
