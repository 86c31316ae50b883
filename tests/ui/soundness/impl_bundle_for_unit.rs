// `()` is a set of components (the filter of `add_to_all`) but not a bundle:
// a bundle of it made here could touch other entities' values while being
// stored. `Bundle` is sealed on its own, not only through `Components`.
pub struct Name(pub String);

ecs::declare_context! {
    pub context World {
        components { Name: sparse_set; }
    }
}

impl ecs::traits::Bundle<World> for () {}

fn main() {}
