pub struct Position(pub f32);
pub struct Velocity(pub f32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Draw;

#[derive(Default)]
pub struct Third;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; }
        systems {
            a: Move { read: [Velocity], after: [c] }
            b: Draw { read: [Velocity], after: [a] }
            c: Third { read: [Velocity], after: [b] }
        }
    }
}

fn main() {}
