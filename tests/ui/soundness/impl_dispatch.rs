// The scheduler hands `dispatch` the context while systems run on other
// threads; code that used it for anything but running its system could read
// a state that system is writing. A context whose systems do not all take
// `MyArgs` has no generated `Dispatch<MyArgs>`, so this impl would not
// conflict: `Dispatch` is an `unsafe` trait.
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

impl ecs::Dispatch<MyArgs> for World {
    unsafe fn dispatch(_: &ecs::Context<Self>, _: usize, _: &MyArgs) {}
}

fn main() {}
