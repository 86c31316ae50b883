#![forbid(unsafe_code)]
// Generated `unsafe impl`s carry the macro's own spans, so a crate that forbids
// unsafe code can declare a context: this pins that no `unsafe` token takes a
// user's span.
pub struct Position(pub f32);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { movement: Move { write: [Position] } }
    }
}

impl ecs::System<World> for Move {
    fn process(&self, data: &mut ecs::Data<'_, World, Self>, _: &()) {
        data.for_each::<&mut Position>(|p| p.0 += 1.0);
    }
}

fn main() {
    let mut world = World::new();
    world.step(|p| p.run_all(&()));
}
