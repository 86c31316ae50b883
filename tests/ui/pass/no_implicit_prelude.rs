//! The generated code names everything by absolute path.
#![no_implicit_prelude]

pub struct Position(pub f32);
#[derive(Default)]
pub struct Move;

::ecs::declare_context! {
    pub context World {
        settings { entities: dynamic, threads: 1 }
        components { Position: contiguous; }
        systems { movement: Move { write: [Position] } }
    }
}

impl ::ecs::System<World> for Move {
    fn process(&self, data: &mut ::ecs::Data<'_, World, Self>, _: &()) {
        data.for_each::<&mut Position>(|p| p.0 += 1.0);
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| {
        let _ = p.spawn((Position(0.0),));
        p.run_all(&());
    });
}
