pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;

pub struct Mass(pub f32);
ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems { movement: Move { read: [Velocity], write: [Position] } }
    }
}

fn main() {
    let mut w = World::new();
    // Only declared components filter a bulk change.
    w.step(|p| p.add_to_all::<(Position, Mass), _>(|_| Velocity(1.0)));
}
