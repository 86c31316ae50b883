//! A step query borrowing one component twice, once mutably.
pub struct Position(pub f32);
pub struct Velocity(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems {}
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| p.for_each::<(&mut Position, &Position)>(|_| {}));
}
