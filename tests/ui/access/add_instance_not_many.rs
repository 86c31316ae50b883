//! Instances are added only to a component declared `many`: one error,
//! saying so (not one about `Many<Position>` not being a component).
pub struct Position(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems {}
    }
}

fn main() {
    let mut world = World::new();
    world.step(|p| {
        let e = p.create().unwrap();
        p.add_instance(e, Position(1.0)).unwrap();
    });
}
