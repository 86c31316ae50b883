#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

extern crate self as ecs;

// The crate root holds what a user names in ordinary code: the macro, the
// trait systems implement, the context and its proxies, handles and errors,
// and the values methods return. Traits that only appear as bounds live in
// `traits`, custom storages in `storage`, and what generated code needs in
// `__private` (see "Where a new public item goes" in README.md).
pub use ecs_core::{
    Adapters, Context, ContextFull, Data, Defer, Entity, EntityId, EntityLimit, EntityMut, Lookup, NoSuchEntity,
    PreparedQuery, QueryIter, RefreshEvents, Spawned, Step, System, View,
};
pub use ecs_core::{
    ColumnSystem, Columns, Consume, InstanceKey, Instances, InstancesMut, Layout, Liveness, Many, ManyMut, ManyRef,
    NameError, Stream,
};
/// # Example
///
/// ```
/// use ecs::{Data, System};
///
/// pub struct Position(pub f32);
/// pub struct Velocity(pub f32);
/// #[derive(Default)]
/// pub struct Move;
///
/// ecs::declare_context! {
///     /// The simulation.
///     pub context World {
///         settings { entities: dynamic(1000) }
///         components { Position, Velocity: contiguous; }
///         systems {
///             movement: Move { read: [Velocity], write: [Position], parallelism: split_evenly_per_core }
///         }
///     }
/// }
///
/// impl System<World> for Move {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Position(0.0), Velocity(1.5))).unwrap());
/// world.step(|p| p.run_all(&()));
/// world.step(|p| assert_eq!(p.get::<Position>(e).map(|p| p.0), Some(1.5)));
/// ```
pub use ecs_macros::declare_context;

pub use ecs_core::{save, storage};

pub mod traits {
    //! The traits `declare_context!` implements for a declaration's types,
    //! which the context and its proxies ask for as bounds, and the types
    //! their items use.
    //!
    //! Name them to write code generic over a context, its components or
    //! its systems; you never implement them yourself (the `unsafe` ones
    //! are implemented only by the macro, from a checked declaration).
    //!
    //! ```
    //! use ecs::traits::{CanRead, Component, ContextDecl, SystemOf};
    //! use ecs::{Data, System};
    //!
    //! pub struct Health(pub u32);
    //! #[derive(Default)]
    //! pub struct Report;
    //!
    //! ecs::declare_context! {
    //!     pub context Game {
    //!         components { Health: contiguous; }
    //!         systems { report: Report { read: [Health], output: u32 } }
    //!     }
    //! }
    //!
    //! /// The sum of component `C` over the entities of any system that may
    //! /// read it, in any context.
    //! fn total<Cx, S, C>(data: &mut Data<'_, Cx, S>, value: impl Fn(&C) -> u32) -> u32
    //! where
    //!     Cx: ContextDecl,
    //!     S: SystemOf<Cx> + CanRead<Cx, C>,
    //!     C: Component<Cx>,
    //! {
    //!     let mut sum = 0;
    //!     data.for_each::<&C>(|c| sum += value(c));
    //!     sum
    //! }
    //!
    //! impl System<Game> for Report {
    //!     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    //!         *data.output() = total(data, |h: &Health| h.0);
    //!     }
    //! }
    //!
    //! let mut game = Game::new();
    //! game.step(|p| {
    //!     p.spawn((Health(3),)).unwrap();
    //!     p.spawn((Health(4),)).unwrap();
    //!     p.run_all(&());
    //! });
    //! assert_eq!(game.outputs::<Report>().iter().sum::<u32>(), 7);
    //! assert_eq!(<Game as ContextDecl>::COMPONENTS, ["Health"]);
    //! ```
    pub use ecs_core::{
        Bundle, CanRead, CanReadResource, CanReadShared, CanWrite, CanWriteResource, CloneBundle, ColumnQuery,
        ColumnStepOf, Component, ComponentBounds, ComponentSet, Components, ContextDecl, DependsOn, Dispatch,
        Exclusive, Independent, InstanceQuery, ManyComponent, Parallelism, Query, QueryCode, Resource, ResourceBounds,
        Roots, Settings, SharedQuery, StreamOutput, SystemInfo, SystemOf,
    };
}

#[doc(hidden)]
pub mod __private {
    // Not public API: what `declare_context!` expands to refers to this.
    pub use ecs_core::__private::*;
}
