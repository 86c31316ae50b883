// A component set that reports components of its own choosing: the filter
// of `add_to_all` and every bundle's bits must be the bits of real
// components, so only tuples of components are sets.
pub struct Name(pub String);
pub struct Everything;

ecs::declare_context! {
    pub context World {
        components { Name: sparse_set; }
    }
}

impl ecs::traits::Components<World> for Everything {
    fn bits() -> <World as ecs::traits::ContextDecl>::Bits {
        Default::default()
    }
}

fn main() {}
