use ecs::{Data, System};
pub struct Position(pub f32);
#[derive(Default)]
pub struct Integrate;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { integrate: Integrate { kind: columns, write: [Position] } }
    }
}

impl System<World> for Integrate {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

fn main() {
    let mut w = World::new();
    w.step(|p| p.run_all(&()));
}
