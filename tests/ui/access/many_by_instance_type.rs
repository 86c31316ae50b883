//! A `many` component is stored as sets of instances: queries and proxies
//! name it `Many<Emitter>`, not `Emitter`.
use ecs::{Data, System};

pub struct Emitter(pub f32);
#[derive(Default)]
pub struct Emit;

ecs::declare_context! {
    pub context World {
        components { Emitter: many; }
        systems { emit: Emit { write: [Emitter] } }
    }
}

impl System<World> for Emit {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each::<&mut Emitter>(|e| e.0 += 1.0);
    }
}

fn main() {}
