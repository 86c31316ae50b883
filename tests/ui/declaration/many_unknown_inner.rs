pub struct Emitter(pub f32);

ecs::declare_context! {
    pub context World {
        components { Emitter: many(vec); }
        systems {}
    }
}

fn main() {}
