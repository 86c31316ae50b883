#[derive(Default)]
pub struct Counter(pub std::cell::Cell<u32>);

ecs::declare_context! {
    pub context World {
        resources { Counter }
    }
}

fn main() {}
