//! The crate root holds only what users name in ordinary code: what
//! generated code needs is under `ecs::__private`, and the traits that
//! appear as bounds are under `ecs::traits`. None of these is at the root.
use ecs::{
    Bits16, Bits32, Bits8, Bitset, Component, ContextDecl, Dispatch, Entities, Parallelism, Relations,
    RootTuple, Roots, Settings, SlotCore, SparseSet, SystemInfo, SystemOf, SystemSlot,
};

fn main() {}
