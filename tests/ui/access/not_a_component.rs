pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Draw;

pub struct Mass(pub f32);
ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems {
            movement: Move { read: [Velocity], write: [Position] }
            draw: Draw { read: [Position], after: [movement] }
        }
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| {
        let e = p.create().unwrap();
        let _ = p.add(e, Mass(1.0));
    });
}
