use ecs::{Data, EntityId, System};
pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Solve;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems { solve: Solve { read: [Velocity], write: [Position] } }
    }
}

impl System<World> for Solve {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let pair = [EntityId::from_bits(0), EntityId::from_bits(1)];
        let _ = data.query_many::<(&mut Position, &mut Velocity), 2>(pair);
    }
}

fn main() {}
