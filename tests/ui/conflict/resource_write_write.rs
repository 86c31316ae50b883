pub struct Position(pub f32);
#[derive(Default)]
pub struct Time(pub f32);
#[derive(Default)]
pub struct Score(pub u32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Count;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        resources { Time, Score }
        systems {
            movement: Move { read: [Position], write: [Score] }
            count: Count { write: [Score, Time] }
        }
    }
}

fn main() {}
