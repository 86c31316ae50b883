use std::rc::Rc;

pub struct Position(pub f32);
// `Rc` is neither `Send` nor `Sync`. One error, on `Name`: `Position`, grouped
// with it, is thread-safe, and the group itself is not reported again.
pub struct Name(pub Rc<str>);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { (Position, Name): grouped; }
        systems { movement: Move { read: [Name], write: [Position] } }
    }
}

impl ecs::System<World> for Move {
    fn process(&self, data: &mut ecs::Data<'_, World, Self>, _: &()) {
        data.for_each::<(&Name, &mut Position)>(|(_, p)| p.0 += 1.0);
    }
}

fn main() {
    let mut world = World::new();
    world.step(|p| p.run_all(&()));
}
