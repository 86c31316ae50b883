use ecs::{ColumnSystem, Columns};
pub struct Position(pub f32);
pub struct Velocity(pub f32);
pub struct Mass(pub f32);
#[derive(Default)]
pub struct Integrate;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity, Mass: contiguous; }
        systems { integrate: Integrate { kind: columns, read: [Velocity], write: [Position] } }
    }
}

impl ColumnSystem<World> for Integrate {
    fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
        columns.for_each_run::<(&mut Position, &Mass)>(|_| {});
    }
}

fn main() {}
