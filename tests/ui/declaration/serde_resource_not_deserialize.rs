use serde::Serialize;

#[derive(Serialize, Default)]
pub struct Score(pub u32);

ecs::declare_context! {
    pub context World {
        settings { serde: all }
        resources { Score }
    }
}

fn main() {}
