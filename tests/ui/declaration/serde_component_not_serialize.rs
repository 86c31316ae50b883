use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
pub struct Position(pub f32);
/// Not serde: a context declared `serde: all` saves every component.
pub struct Velocity(pub f32);

ecs::declare_context! {
    pub context World {
        settings { serde: all }
        components { Position, Velocity: contiguous; }
    }
}

fn main() {}
