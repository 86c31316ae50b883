//! The access rights a declaration grants each system, as traits.
//!
//! `declare_context!` implements these for a system only when its declaration
//! allows the access; a proxy method asks for the trait, so an access the
//! declaration does not allow is a compile error whose message says what to
//! add where.
//!
//! Rights, after bevy's `Access`: writing implies reading; two systems may run
//! at the same time only when neither writes what the other reads or writes,
//! which `declare_context!` checks once, at expansion time.

use crate::decl::{ContextDecl, SystemOf};
use crate::resource::Resource;

/// System `Self` may read component `C` of the entities it processes.
///
/// Also implemented, for every component, by [`Exclusive`](crate::Exclusive),
/// the marker of the step proxy's queries, which is not a system; nothing
/// relies on this trait for a type that is not a system (a [`Data`](crate::Data)
/// proxy needs [`SystemOf`]), so it does not require one.
///
/// # Safety
/// When `Self` is a system: `C` is in the system's `read` or `write` list (so
/// every entity it processes has `C`), and no system that can run at the same
/// time writes `C`. Or `C` is the instance type `A` of a component `Many<A>`
/// for which that holds (`declare_context!` grants the right under both
/// names so that a query naming `A` fails only on `A` not being a
/// component); code relying on this trait also asks for `C: Component<Cx>`,
/// which `A` is not.
///
/// ```
/// use ecs::traits::{CanRead, Component, ContextDecl, SystemOf};
/// use ecs::{Data, System};
/// # pub struct Position(pub f32);
/// # pub struct Velocity(pub f32);
/// # #[derive(Default)]
/// # pub struct Move;
/// # #[derive(Default)]
/// # pub struct Draw;
/// #
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position, Velocity: contiguous; }
/// #         systems {
/// #             movement: Move { read: [Velocity], write: [Position] }
/// #             draw: Draw { read: [Position], after: [movement] }
/// #         }
/// #     }
/// # }
/// #
/// /// How many of the subtask's entities have a component `C`, by some test.
/// fn count<Cx, S, C>(data: &mut Data<'_, Cx, S>, test: impl Fn(&C) -> bool) -> usize
/// where
///     Cx: ContextDecl,
///     S: SystemOf<Cx> + CanRead<Cx, C>,
///     C: Component<Cx>,
/// {
///     let mut n = 0;
///     data.for_each::<&C>(|c| n += usize::from(test(c)));
///     n
/// }
///
/// impl System<World> for Draw {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         assert_eq!(count(data, |p: &Position| p.0 > 0.0), 1);
///     }
/// }
/// # impl System<World> for Move {
/// #     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
/// # }
///
/// let mut world = World::new();
/// world.step(|p| {
///     p.spawn((Position(1.0),)).unwrap();
///     p.spawn((Position(-1.0),)).unwrap();
///     p.run_all(&());
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "system `{Self}` does not declare access to component `{C}`",
    label = "`{C}` is in neither `read` nor `write` of `{Self}`",
    note = "add `{C}` to the `read` list of system `{Self}` in `declare_context!` (or to `write` to also modify it)"
)]
// No bounds on the parameters (`Cx: ContextDecl` before), nor on those of
// `CanWrite`, `CanReadShared` and `DependsOn` (`T: SystemOf<Cx>` and a
// `SystemOf<Cx>` supertrait before): rustc proved them again in the
// well-formedness check of every impl the macro emits, one per system and
// component it reads or writes and one per ancestor, about 0.5 M
// instructions each (296 impls at 64 components / 32 systems: rustc's
// instructions for `scripts/compile-cost`'s crate, cachegrind, about
// 4.60 G with them and 4.47 G without in a debug build, 9.88 G and 9.76 G
// in an optimised one). Nothing relied on them: the code that asks for
// these traits has its context and systems bounded already, and the
// `on_unimplemented` messages name the same types.
pub unsafe trait CanRead<Cx, C> {}

/// System `Self` may modify component `C` of the entities it processes.
///
/// # Safety
/// `C` is in the system's `write` list, and no system that can run at the
/// same time reads or writes `C`; or, as for [`CanRead`], `C` is the
/// instance type of a `many` component for which that holds.
///
/// ```
/// use ecs::traits::{CanWrite, Component, ContextDecl, SystemOf};
/// use ecs::{Data, System};
/// # pub struct Position(pub f32);
/// # pub struct Velocity(pub f32);
/// # #[derive(Default)]
/// # pub struct Move;
/// # #[derive(Default)]
/// # pub struct Draw;
/// #
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position, Velocity: contiguous; }
/// #         systems {
/// #             movement: Move { read: [Velocity], write: [Position] }
/// #             draw: Draw { read: [Position], after: [movement] }
/// #         }
/// #     }
/// # }
/// #
/// /// Resets component `C` of the subtask's entities, in any context.
/// fn reset<Cx, S, C>(data: &mut Data<'_, Cx, S>, value: impl Fn() -> C)
/// where
///     Cx: ContextDecl,
///     S: SystemOf<Cx> + CanWrite<Cx, C>,
///     C: Component<Cx>,
/// {
///     data.for_each::<&mut C>(|c| *c = value());
/// }
///
/// impl System<World> for Move {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         reset(data, || Position(0.0));
///     }
/// }
/// # impl System<World> for Draw {
/// #     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
/// # }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Position(5.0), Velocity(1.0))).unwrap());
/// world.step(|p| p.run_all(&()));
/// world.step(|p| assert_eq!(p.get::<Position>(e).map(|p| p.0), Some(0.0)));
/// ```
#[diagnostic::on_unimplemented(
    message = "system `{Self}` may not modify component `{C}`",
    label = "`{C}` is not in the `write` list of `{Self}`",
    note = "add `{C}` to the `write` list of system `{Self}` in `declare_context!`"
)]
pub unsafe trait CanWrite<Cx, C>: CanRead<Cx, C> {}

/// System `Self` may read component `C` of any entity, including those that
/// other subtasks of the same system process.
///
/// # Safety
/// As [`CanRead`], and the system does not write `C`, so no subtask of it
/// writes `C` either.
///
/// ```
/// use ecs::traits::{CanReadShared, Component, ContextDecl, SystemOf};
/// use ecs::{Data, System, View};
/// # pub struct Position(pub f32);
/// # pub struct Velocity(pub f32);
/// # #[derive(Default)]
/// # pub struct Move;
/// # #[derive(Default)]
/// # pub struct Draw;
/// #
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position, Velocity: contiguous; }
/// #         systems {
/// #             movement: Move { read: [Velocity], write: [Position] }
/// #             draw: Draw { read: [Position], after: [movement] }
/// #         }
/// #     }
/// # }
/// #
/// /// How many of the system's entities (of every subtask) pass a test on `C`.
/// fn count_all<Cx, S, C>(view: &View<'_, Cx, S>, test: impl Fn(&C) -> bool) -> usize
/// where
///     Cx: ContextDecl,
///     S: SystemOf<Cx> + CanReadShared<Cx, C>,
///     C: Component<Cx>,
/// {
///     let mut n = 0;
///     view.for_all_entities::<&C>(|c| n += usize::from(test(c)));
///     n
/// }
///
/// impl System<World> for Draw {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         assert_eq!(count_all(data, |p: &Position| p.0 > 0.0), 1);
///     }
/// }
/// # impl System<World> for Move {
/// #     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
/// # }
///
/// let mut world = World::new();
/// world.step(|p| {
///     p.spawn((Position(1.0),)).unwrap();
///     p.spawn((Position(-1.0),)).unwrap();
///     p.run_all(&());
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "system `{Self}` may not read component `{C}` of entities outside its own subtask",
    label = "`{C}` is not a read-only component of `{Self}`",
    note = "if `{C}` is in the `write` list of `{Self}`, other subtasks of `{Self}` may be writing it: read it only for this subtask's entities, with `data.read` or `data.write` by id or in the query of `for_each`",
    note = "otherwise add `{C}` to the `read` list of system `{Self}` in `declare_context!`"
)]
pub unsafe trait CanReadShared<Cx, C>: CanRead<Cx, C> {}

/// System `Self` may read resource `R`.
///
/// # Safety
/// `R` is in the system's `read` or `write` list, and no system that can run
/// at the same time as `Self` writes `R`.
///
/// ```
/// use ecs::traits::{CanReadResource, ContextDecl, Resource};
/// use ecs::{Data, System};
/// # pub struct Position(pub f32);
/// #[derive(Default)]
/// pub struct Gravity(pub f32);
/// # #[derive(Default)]
/// # pub struct Fall;
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position: contiguous; }
/// #         resources { Gravity }
/// #         systems { fall: Fall { read: [Gravity], write: [Position] } }
/// #     }
/// # }
/// /// Resource `R`, through any system that may read it, in any context.
/// fn read<'d, Cx: ContextDecl, S: CanReadResource<Cx, R>, R: Resource<Cx>>(data: &'d Data<'_, Cx, S>) -> &'d R {
///     data.resource::<R>()
/// }
///
/// impl System<World> for Fall {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         let g = read::<_, _, Gravity>(data).0;
///         data.for_each::<&mut Position>(|p| p.0 -= g);
///     }
/// }
///
/// let mut world = World::new();
/// world.resource_mut::<Gravity>().0 = 2.0;
/// let e = world.step(|p| p.spawn((Position(10.0),)).unwrap());
/// world.step(|p| p.run_all(&()));
/// world.step(|p| assert_eq!(p.get::<Position>(e).unwrap().0, 8.0));
/// ```
#[diagnostic::on_unimplemented(
    message = "system `{Self}` does not declare access to resource `{R}`",
    label = "`{R}` is in neither `read` nor `write` of `{Self}`",
    note = "add `{R}` to the `read` list of system `{Self}` in `declare_context!` (or to `write` to also modify it)"
)]
pub unsafe trait CanReadResource<Cx: ContextDecl, R: Resource<Cx>>: SystemOf<Cx> {}

/// System `Self` may modify resource `R`.
///
/// # Safety
/// `R` is in the system's `write` list, and no system that can run at the
/// same time as `Self` reads or writes `R`. (The system's subtasks are kept
/// apart at run time: [`View::resource_mut`](crate::View::resource_mut)
/// hands out `&mut R` only when the run has a single subtask, which the
/// macro guarantees by accepting `write` of a resource only for systems
/// whose `parallelism` is `none`.)
///
/// ```
/// use ecs::traits::{CanWriteResource, ContextDecl, Resource};
/// use ecs::{Data, System};
/// # pub struct Position(pub f32);
/// #[derive(Default)]
/// pub struct Score(pub usize);
/// # #[derive(Default)]
/// # pub struct Count;
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position: contiguous; }
/// #         resources { Score }
/// #         systems { count: Count { read: [Position], write: [Score] } }
/// #     }
/// # }
/// /// Resource `R`, mutably, through any system that may write it, in any context.
/// fn write<'d, Cx: ContextDecl, S: CanWriteResource<Cx, R>, R: Resource<Cx>>(data: &'d mut Data<'_, Cx, S>) -> &'d mut R {
///     data.resource_mut::<R>()
/// }
///
/// impl System<World> for Count {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         let n = data.entity_count();
///         write::<_, _, Score>(data).0 += n;
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| p.spawn_batch((0..3).map(|x| (Position(x as f32),))).map(drop)).unwrap();
/// world.step(|p| p.run_all(&()));
/// assert_eq!(world.resource::<Score>().0, 3);
/// ```
#[diagnostic::on_unimplemented(
    message = "system `{Self}` may not modify resource `{R}`",
    label = "`{R}` is not in the `write` list of `{Self}`",
    note = "add `{R}` to the `write` list of system `{Self}` in `declare_context!` (a system that writes a resource runs as one subtask: `parallelism: none`)"
)]
pub unsafe trait CanWriteResource<Cx: ContextDecl, R: Resource<Cx>>: CanReadResource<Cx, R> {}

/// System `Self` runs after system `T` whenever both run: it may read `T`'s
/// state and outputs.
///
/// # Safety
/// `T` is an ancestor of `Self` in the dependency graph.
///
/// ```
/// use ecs::traits::{ContextDecl, DependsOn, SystemOf};
/// use ecs::{Data, System};
///
/// pub struct Position(pub f32);
/// /// Counts its runs.
/// #[derive(Default)]
/// pub struct Clock {
///     pub ticks: u64,
/// }
/// #[derive(Default)]
/// pub struct Log;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems {
///             clock: Clock { read: [Position] }
///             log: Log { read: [Position], after: [clock], output: u64 }
///         }
///     }
/// }
///
/// /// The clock's time, seen from any system that runs after it.
/// fn now<Cx: ContextDecl, S: SystemOf<Cx> + DependsOn<Cx, Clock>>(data: &Data<'_, Cx, S>) -> u64
/// where
///     Clock: SystemOf<Cx>,
/// {
///     data.system::<Clock>().ticks
/// }
///
/// impl System<World> for Clock {
///     fn before(&mut self, _: &()) {
///         self.ticks += 1;
///     }
///     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
/// }
/// impl System<World> for Log {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         *data.output() = now(data);
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| p.run_all(&()));
/// world.step(|p| p.run_all(&()));
/// assert_eq!(world.outputs::<Log>(), [2]);
/// ```
#[diagnostic::on_unimplemented(
    message = "system `{Self}` may not access system `{T}`: it does not depend on it",
    label = "`{T}` is not an ancestor of `{Self}`",
    note = "add `{T}`'s name to the `after` list of system `{Self}` (or of one of its ancestors) in `declare_context!`",
    note = "if `{T}` already runs after `{Self}`, that would make a cycle: move the code that needs `{T}` into a system that runs after `{T}`, or read `{T}`'s outputs in the step closure after the systems ran (`p.outputs::<{T}>()`)",
    note = "if `{Self}` streams `{T}` (`stream: [..]`), it may not read `{T}`'s outputs, which are still being written: it receives `{T}`'s items one by one in `ecs::Consume::consume`"
)]
pub unsafe trait DependsOn<Cx, T> {}

/// Systems `Self` and `T` are two systems neither of which depends on the
/// other, so [`Step::run_from`](crate::Step::run_from) may start chains from
/// both. A tuple given to `run_from` needs it for each two of its systems,
/// so a tuple that names a system twice, or a system and one of its
/// dependents, fails under `cargo check`, naming both.
///
/// Implemented for every pair of systems from [`Relations`], which
/// `declare_context!` implements; nothing unsafe relies on it (`run_from`
/// checks the same again when code is generated).
///
/// ```
/// use ecs::traits::{ContextDecl, Independent, SystemOf};
/// # pub struct Position(pub f32);
/// # pub struct Velocity(pub f32);
/// # #[derive(Default)]
/// # pub struct Move;
/// # #[derive(Default)]
/// # pub struct Draw;
/// #
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position, Velocity: contiguous; }
/// #         systems {
/// #             movement: Move { read: [Velocity], write: [Position] }
/// #             draw: Draw { read: [Position], after: [movement] }
/// #         }
/// #     }
/// # }
/// #
/// #[derive(Default)]
/// pub struct Sound;
/// # // `Sound` is declared in a second context, to keep `World` as above.
/// # ecs::declare_context! {
/// #     pub context Game {
/// #         components { Position, Velocity: contiguous; }
/// #         systems {
/// #             movement: Move { read: [Velocity], write: [Position] }
/// #             draw: Draw { read: [Position], after: [movement] }
/// #             sound: Sound { read: [Position], after: [movement] }
/// #         }
/// #     }
/// # }
///
/// /// Compiles only when neither system runs after the other.
/// fn unordered<Cx: ContextDecl, A: Independent<Cx, B>, B: SystemOf<Cx>>() {}
///
/// unordered::<Game, Draw, Sound>(); // both run after `movement` only
/// ```
///
/// `unordered::<Game, Move, Draw>()` would not compile: `draw` runs after
/// `movement`.
#[diagnostic::on_unimplemented(
    message = "`run_from` needs independent systems, but `{Self}` and `{T}` are the same system or one runs after the other",
    label = "`{Self}` and `{T}` are not independent",
    note = "name only the first of them: `run_from` also runs every system that depends on the systems it is given"
)]
pub trait Independent<Cx: ContextDecl, T: SystemOf<Cx>>: SystemOf<Cx> {}

// The lookup in `Relations::Related`, as where-clauses; `do_not_recommend`
// makes a failure report `Independent`'s message, not the lookup's.
#[diagnostic::do_not_recommend]
impl<Cx: ContextDecl, A, B> Independent<Cx, B> for A
where
    A: Relations<Cx> + SystemOf<Cx>,
    B: Relations<Cx> + SystemOf<Cx>,
    A::Related: relation::At<B::Chunk>,
    relation::Chunk<Cx, A, B>: relation::At<B::Offset>,
    <relation::Chunk<Cx, A, B> as relation::At<B::Offset>>::Out: relation::Unrelated,
{
}

/// Which systems a system is ordered with, as types, so that
/// [`Independent`] is one lookup per pair instead of one impl per pair
/// (which would cost the compiler time on every build of a declaration).
///
/// System `i` sits at `Offset` (`i % 16`) of chunk `Chunk` (`i / 16`), as
/// numbers written `()` for 0 and `(n,)` for n + 1; `Related` lists the
/// chunks, each a list of 16 flags (a list is `(head, tail)`, the empty
/// list `()`), with `bool` for each system that is `Self`, an ancestor or a
/// descendant of it and `()` for each other. Written with tuples because a
/// declaration of n systems holds n² flags. `declare_context!` implements it
/// for every system.
// No bounds (`Cx: ContextDecl` and a `SystemOf<Cx>` supertrait before; the
// blanket `Independent` impl asks `SystemOf` itself): as for `CanRead`,
// each of the macro's impls (one per system) proved them again, 13.9 M of
// rustc's instructions in a 64/32 debug build (4.472 G → 4.458 G), 21 M in
// an optimised one (9.756 G → 9.735 G).
pub trait Relations<Cx> {
    /// The chunk of this system's index.
    type Chunk;
    /// This system's index within its chunk.
    type Offset;
    /// Every system's relation to this one, in chunks.
    type Related;
}

/// The lookup [`Relations`] is read with.
pub mod relation {
    /// The element of a list (`(head, tail)`) at position `N` (`()` for 0,
    /// `(n,)` for n + 1).
    pub trait At<N> {
        /// The element.
        type Out;
    }
    impl<H, T> At<()> for (H, T) {
        type Out = H;
    }
    impl<H, T: At<N>, N> At<(N,)> for (H, T) {
        type Out = T::Out;
    }

    /// The flag of a system independent of another: `()` (the flag of a
    /// related one is `bool`).
    pub trait Unrelated {}
    impl Unrelated for () {}

    /// The chunk of `A`'s relations that holds `B`.
    pub type Chunk<Cx, A, B> = <<A as super::Relations<Cx>>::Related as At<<B as super::Relations<Cx>>::Chunk>>::Out;
}
