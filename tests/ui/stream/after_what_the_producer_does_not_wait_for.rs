pub struct Position(pub f32);
pub struct Velocity(pub f32);
pub struct Contact(pub u32);
#[derive(Default)]
pub struct Collide;
#[derive(Default)]
pub struct Solve;

#[derive(Default)]
pub struct Integrate;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems {
            integrate: Integrate { write: [Velocity] }
            collide: Collide { read: [Position], output: ecs::Stream<Contact> }
            // `collide` does not wait for `integrate`, and `solve` starts with it.
            solve: Solve { write: [Velocity], stream: [collide], after: [integrate] }
        }
    }
}

fn main() {}
