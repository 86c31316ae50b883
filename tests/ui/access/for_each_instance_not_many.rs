//! Each instance is walked only for a component declared `many`.
use ecs::{Data, System};

pub struct Position(pub f32);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { movement: Move { write: [Position] } }
    }
}

impl System<World> for Move {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each_instance::<&mut Position, ()>(|p, ()| p.0 += 1.0);
    }
}

fn main() {}
