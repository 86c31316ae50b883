// The generated storages struct is `Send` and `Sync` by an `unsafe impl`,
// sound because each of its fields is a component's `Column`, which must be
// `Send + Sync`: a custom storage that is not (here because its component
// holds an `Rc`) fails at the component's `Component` impl, once, and the
// crate does not compile.
use std::rc::Rc;

pub struct Position(pub f32);
// `Rc` is neither `Send` nor `Sync`: systems could not share it across threads.
pub struct Name(pub Rc<str>);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; Name: custom(ecs::storage::Contiguous<Name>); }
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
