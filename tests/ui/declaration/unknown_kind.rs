pub struct Position(pub f32);
#[derive(Default)]
pub struct Integrate;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { integrate: Integrate { kind: column, write: [Position] } }
    }
}

fn main() {}
