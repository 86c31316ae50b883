//! `Exclusive`, the step proxy's query marker, may read and write every
//! component: it must never become a system, whose `Data` proxy would then
//! write components it does not declare, beside other systems. It is not
//! `Send`, which every system is.
use ecs::Exclusive;
pub struct Position(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems { sneaky: Exclusive<World> {} }
    }
}

fn main() {}
