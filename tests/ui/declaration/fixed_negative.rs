pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Draw;

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(-1) }
        components { Position: contiguous; }
    }
}

fn main() {}
