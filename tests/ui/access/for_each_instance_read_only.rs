//! A system that reads a `many` component may not write its instances one
//! by one either.
use ecs::{Data, System};

pub struct Emitter(pub f32);
#[derive(Default)]
pub struct Census;

ecs::declare_context! {
    pub context World {
        components { Emitter: many; }
        systems { census: Census { read: [Emitter] } }
    }
}

impl System<World> for Census {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each_instance::<&mut Emitter, ()>(|e, ()| e.0 += 1.0);
    }
}

fn main() {}
