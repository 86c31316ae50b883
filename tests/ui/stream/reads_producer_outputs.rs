use ecs::{Consume, Data, Stream, System};
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
            collide: Collide { read: [Position], output: Stream<Contact> }
            solve: Solve { write: [Velocity], stream: [collide] }
        }
    }
}

impl System<World> for Collide {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

impl System<World> for Solve {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

impl Consume<World, Contact> for Solve {
    fn consume(&mut self, data: &mut Data<'_, World, Self>, _: Contact, _: &()) {
        // The producer's outputs are still being written: no access.
        let _ = data.outputs::<Collide>();
    }
}

fn main() {}
