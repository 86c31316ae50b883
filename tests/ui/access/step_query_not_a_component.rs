//! A step query naming a component the context does not declare.
pub struct Position(pub f32);
pub struct Mass(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems {}
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| p.for_each::<(&mut Position, &Mass)>(|_| {}));
}
