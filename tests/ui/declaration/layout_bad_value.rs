pub struct Position(pub f32);

ecs::declare_context! {
    pub context World {
        settings { layout: chunks }
        components { Position: contiguous; }
    }
}

fn main() {}
