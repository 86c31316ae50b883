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
            movement: Move { read: [Time], write: [Position] }
            count: Count { read: [Position, Score], after: [movement] }
        }
    }
}

impl System<World> for Move {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

impl System<World> for Count {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.resource_mut::<Score>().0 += 1;
    }
}

fn main() {}
