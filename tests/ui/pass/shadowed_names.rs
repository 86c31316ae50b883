//! User items named like ours do not confuse the generated code.
#![allow(dead_code)]

mod core {}
mod ecs_private {}
struct Option;
struct Vec;
struct Box;
trait Default {}
trait Sync {}
struct Context;
struct Storage;

pub struct Position(pub f32);
#[derive(::core::default::Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { movement: Move { write: [Position] } }
    }
}

impl ecs::System<World> for Move {
    fn process(&self, data: &mut ecs::Data<'_, World, Self>, _: &()) {
        data.for_each::<&mut Position>(|p| p.0 += 1.0);
    }
}

fn main() {
    let mut w = World::new();
    let e = w.step(|p| p.spawn((Position(0.0),)).unwrap());
    w.step(|p| p.run_all(&()));
    w.step(|p| ::std::assert_eq!(p.get::<Position>(e).map(|p| p.0), ::std::option::Option::Some(1.0)));
}
