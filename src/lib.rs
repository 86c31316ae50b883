#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

extern crate self as ecs;

pub use ecs_core::{
    storage, Adapters, Bits16, Bits32, Bits8, Bitset, Bundle, CanRead, CanReadShared, CanWrite, Component,
    ComponentSet, Components, Context, ContextDecl, ContextFull, Data, Defer, DependsOn, Dispatch, Entities, Entity,
    EntityId, EntityLimit, Exclusive, NoSuchEntity, Parallelism, Query, QueryIter, RefreshEvents, Roots, Settings,
    SharedQuery, SlotCore, SparseSet, Spawned, Step, System, SystemInfo, SystemOf, SystemSlot, View,
};
pub use ecs_core::{Liveness, NameError};
pub use ecs_macros::declare_context;

#[doc(hidden)]
pub mod __private {
    // Not public API: what `declare_context!` expands to refers to this.
    pub use ecs_core::__private::*;
}
