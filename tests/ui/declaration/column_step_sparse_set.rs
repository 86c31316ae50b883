pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Integrate;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; Velocity: sparse_set; }
        systems { integrate: Integrate { kind: columns, read: [Velocity], write: [Position] } }
    }
}

fn main() {}
