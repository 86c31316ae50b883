// A bundle that reports a component it never stores: `spawn` would record
// `Name` for the new entity, and `reader` would then read a `Name` that was
// never written (uninitialised memory; a segfault before `Bundle` was
// sealed). Only tuples of components are bundles.
use ecs::{Data, System};
pub struct Name(pub String);
#[derive(Default)]
pub struct Reader;

ecs::declare_context! {
    pub context World {
        components { Name: sparse_set; }
        systems { reader: Reader { read: [Name] } }
    }
}

impl System<World> for Reader {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each::<&Name>(|name| println!("{}", name.0));
    }
}

pub struct Liar;

impl ecs::traits::Components<World> for Liar {
    fn bits() -> <World as ecs::traits::ContextDecl>::Bits {
        <(Name,) as ecs::traits::Components<World>>::bits()
    }
}

impl ecs::traits::Bundle<World> for Liar {}

fn main() {
    let mut w = World::new();
    w.step(|p| p.spawn(Liar).map(drop)).unwrap();
    w.step(|p| p.run_all(&()));
}
