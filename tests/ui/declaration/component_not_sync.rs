use std::cell::Cell;

pub struct Position(pub f32);
// `Cell` is `Send` but not `Sync`: two threads could not read it at once.
pub struct Counter(pub Cell<u32>);
#[derive(Default)]
pub struct Count;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; Counter: sparse_set; }
        systems { count: Count { read: [Counter, Position] } }
    }
}

impl ecs::System<World> for Count {
    fn process(&self, data: &mut ecs::Data<'_, World, Self>, _: &()) {
        data.for_each::<(&Counter, &Position)>(|(c, _)| c.0.set(c.0.get() + 1));
    }
}

fn main() {
    let mut world = World::new();
    world.step(|p| p.run_all(&()));
}
