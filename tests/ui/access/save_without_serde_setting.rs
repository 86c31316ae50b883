use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
pub struct Position(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
    }
}

fn main() {
    let world = World::new();
    let _ = serde_json::to_string(&world.save());
}
