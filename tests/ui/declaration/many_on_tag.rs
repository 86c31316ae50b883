pub struct Selected;
pub struct Position(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; Selected: many(tag); }
        systems {}
    }
}

fn main() {}
