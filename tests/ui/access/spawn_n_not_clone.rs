#[derive(Clone, Copy)]
pub struct Position(pub f32);
// Not `Clone`: `spawn_n` cannot copy it.
pub struct Sprite(pub String);

ecs::declare_context! {
    pub context World {
        components { Position, Sprite: contiguous; }
        systems {}
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| p.spawn_n(10, (Position(0.0), Sprite(String::new()))).unwrap().count());
}
