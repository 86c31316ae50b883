//! One mistake, one error: the context is still emitted, so code that names
//! it, its systems and the unknown component through the proxy type-checks.
use ecs::{Data, System};

pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { movement: Move { read: [Velocity], write: [Position] } }
    }
}

impl System<World> for Move {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| {
        let e = p.spawn((Position(0.0), Velocity(1.0))).unwrap();
        p.run_all(&());
        let _ = p.get::<Velocity>(e);
    });
}
