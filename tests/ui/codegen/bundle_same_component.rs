pub struct Position(pub f32);
pub struct Velocity(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| p.spawn((Position(0.0), Velocity(1.0), Position(2.0))).unwrap());
}
