pub struct Position(pub f32);
pub struct Velocity(pub f32);
pub struct Contact(pub u32);
#[derive(Default)]
pub struct Collide;
#[derive(Default)]
pub struct Solve;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems {
            collide: Collide { read: [Position], output: ecs::Stream<Contact>, after: [solve] }
            solve: Solve { write: [Velocity], stream: [collide] }
        }
    }
}

fn main() {}
