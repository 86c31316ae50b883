pub struct Smoke(pub f32);
pub struct Sparks(pub f32);

ecs::declare_context! {
    pub context World {
        components { (Smoke, Sparks): many; }
        systems {}
    }
}

fn main() {}
