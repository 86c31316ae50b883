pub struct Emitter(pub f32);

ecs::declare_context! {
    pub context World {
        components { Emitter: many(grouped); }
        systems {}
    }
}

fn main() {}
