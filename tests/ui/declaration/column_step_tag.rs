pub struct Position(pub f32);
pub struct Frozen;
#[derive(Default)]
pub struct Integrate;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; Frozen: tag; }
        systems { integrate: Integrate { kind: columns, read: [Frozen], write: [Position] } }
    }
}

fn main() {}
