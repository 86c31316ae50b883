pub struct Position(pub f32);

ecs::declare_context! {
    pub context World {
        settings { layuot: archetypes }
        components { Position: contiguous; }
    }
}

fn main() {}
