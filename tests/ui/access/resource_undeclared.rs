use ecs::{Data, System};
pub struct Position(pub f32);
#[derive(Default)]
pub struct Time(pub f32);
#[derive(Default)]
pub struct Score(pub u32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Count;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        resources { Time, Score }
        systems {
            movement: Move { write: [Position] }
            count: Count { read: [Position], write: [Score], after: [movement] }
        }
    }
}

impl System<World> for Move {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let dt = data.resource::<Time>().0;
        data.for_each::<&mut Position>(|p| p.0 += dt);
    }
}

impl System<World> for Count {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

fn main() {}
