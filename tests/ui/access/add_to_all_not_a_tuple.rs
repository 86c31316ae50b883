pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems { movement: Move { read: [Velocity], write: [Position] } }
    }
}

fn main() {
    let mut w = World::new();
    // The filter is a tuple: `(Position,)`.
    w.step(|p| p.add_to_all::<Position, _>(|_| Velocity(1.0)));
}
