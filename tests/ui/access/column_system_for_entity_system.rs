use ecs::{ColumnSystem, Columns};
pub struct Position(pub f32);
#[derive(Default)]
pub struct Integrate;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { integrate: Integrate { write: [Position] } }
    }
}

impl ColumnSystem<World> for Integrate {
    fn process(&self, _: &mut Columns<'_, World, Self>, _: &()) {}
}

fn main() {}
