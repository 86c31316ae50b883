use ecs::{ColumnSystem, Columns};
pub struct Position(pub f32);
#[derive(Default)]
pub struct Integrate;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { integrate: Integrate { kind: columns, write: [Position] } }
    }
}

impl ColumnSystem<World> for Integrate {
    fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
        columns.for_each_run::<(&mut Position, &Position)>(|_| {});
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| p.run_all(&()));
}
