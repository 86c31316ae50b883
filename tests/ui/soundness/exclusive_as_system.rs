//! `Exclusive`, the step proxy's query marker, may read and write every
//! component: it must never become a system, whose `Data` proxy would then
//! write components it does not declare, beside other systems. It is
//! neither `Send` nor `Sync`, which every system is (and so no declaration
//! can name it as a system's type either).
use ecs::__private::SystemSlot;
use ecs::traits::{Exclusive, Parallelism, SystemOf};
pub struct Position(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems {}
    }
}

unsafe impl SystemOf<World> for Exclusive<World> {
    const INDEX: usize = 0;
    const PARALLELISM: Parallelism = Parallelism::None;
    type Output = ();
    fn slot(_: &<World as ecs::traits::ContextDecl>::Systems) -> &SystemSlot<World, Self> {
        unimplemented!()
    }
    fn slot_mut(_: &mut <World as ecs::traits::ContextDecl>::Systems) -> &mut SystemSlot<World, Self> {
        unimplemented!()
    }
}

fn main() {}
