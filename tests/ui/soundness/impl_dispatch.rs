// The scheduler hands `dispatch` the context while it runs systems, and the
// runtime's reasoning (`Context::system`, `outputs`) assumes that nothing but
// `run_system` uses it then. A context whose systems do not all take `MyArgs`
// has no generated `Dispatch<MyArgs>`, so this impl would not conflict: the
// trait is `unsafe`, with that contract.
use ecs::{Data, System};
pub struct Name(pub String);
pub struct MyArgs;
#[derive(Default)]
pub struct Reader;

ecs::declare_context! {
    pub context World {
        components { Name: sparse_set; }
        systems { reader: Reader { read: [Name] } }
    }
}

impl System<World> for Reader {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

impl ecs::traits::Dispatch<MyArgs> for World {
    unsafe fn dispatch(_: &ecs::Context<Self>, _: usize, _: &MyArgs) {}
}

fn main() {}
