use ecs::{Data, System};
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
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

impl System<World> for Draw {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

fn main() {
    let mut w = World::new();
    w.step(|p| p.run_from::<(Draw, Draw), ()>(&()));
}
