use ecs::{Data, System};
pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems { movement: Move { read: [Velocity, Position] } }
    }
}

impl System<World> for Move {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
    }
}

fn main() {}
