use ecs::{Data, EntityId, System};
pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Draw;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems {
            movement: Move { read: [Velocity], write: [Position] }
            draw: Draw { read: [Position], after: [movement] }
        }
    }
}

impl System<World> for Move {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let _ = data.lookup::<(&Velocity, &Position)>(EntityId::from_bits(0));
    }
}

impl System<World> for Draw {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

fn main() {}
