// Running one system by hand, outside the scheduler, would let it run beside
// itself or on entities not yet matched: the entry point the generated
// dispatch uses is `unsafe`, so safe code cannot call it.
use ecs::{Data, System};
pub struct Position(pub f32);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { movement: Move { write: [Position] } }
    }
}

impl System<World> for Move {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

fn main() {
    let w = World::new();
    std::thread::scope(|s| {
        s.spawn(|| w.run_system::<Move, ()>(&()));
        s.spawn(|| w.run_system::<Move, ()>(&()));
    });
    <World as ecs::__private::Dispatch<()>>::dispatch(&w, 0, &());
}
