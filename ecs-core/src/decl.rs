//! The traits `declare_context!` implements: what a declaration tells the
//! runtime about its components, systems and settings.
//!
//! They are `unsafe` because the runtime's memory safety rests on them: the
//! macro implements them only from a validated declaration (see each trait's
//! `# Safety`). Implementing them by hand is possible but never needed.
//! `SAFETY.md` of this crate lists every trait and what relies on it.

use crate::bitset::ComponentSet;
use crate::error::EntityLimit;
use crate::handle::EntityId;
use crate::layout::Layout;
use crate::pending::Pending;
use crate::schedule::Parallelism;
use crate::storage::{Column, Group, Grouped, Storage};
use core::cell::UnsafeCell;
use core::sync::atomic::AtomicBool;
use parking_lot::Mutex;

/// The compile-time settings of a context.
///
/// ```
/// use ecs::traits::{ContextDecl, Settings};
/// use ecs::{EntityLimit, Layout};
///
/// pub struct Position(pub f32);
///
/// ecs::declare_context! {
///     pub context World {
///         settings { entities: fixed(10), inner_parallelism: deny, threads: 2 }
///         components { Position: contiguous; }
///         systems {}
///     }
/// }
///
/// let expected = Settings {
///     entities: EntityLimit::Fixed(10),
///     inner_parallelism: false,
///     threads: Some(2),
///     layout: Layout::Ids,
/// };
/// assert_eq!(World::SETTINGS, expected);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// How many entities the context holds, and whether storage may grow.
    pub entities: EntityLimit,
    /// Whether systems may be split into subtasks that run in parallel.
    pub inner_parallelism: bool,
    /// Worker threads; `None` means one per available core.
    pub threads: Option<usize>,
    /// How entities are ordered in the id space (`settings { layout: .. }`).
    pub layout: Layout,
}

/// What the runtime knows of one system of a declaration.
///
/// ```
/// use ecs::traits::{ContextDecl, SystemInfo};
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
/// let draw: &SystemInfo = &World::SYSTEMS[1];
/// assert_eq!(draw.name, "draw");
/// assert_eq!(draw.type_name, "Draw");
/// assert_eq!(draw.dependencies, [0]); // after `movement`
/// assert_eq!(World::SYSTEMS[0].dependents, [1]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SystemInfo {
    /// The system's name in the declaration.
    pub name: &'static str,
    /// The type holding the system's state.
    pub type_name: &'static str,
    /// The systems named in its `after` list (indices).
    pub dependencies: &'static [usize],
    /// The systems that name it in their `after` list (indices).
    pub dependents: &'static [usize],
    /// Every system it depends on, directly or not (indices, sorted).
    pub ancestors: &'static [usize],
}

/// A declared context: the description `declare_context!` generates.
///
/// # Safety
/// - `COMPONENTS` names every component once, and `Bits` has room for an
///   index below `COMPONENTS.len()` (each [`Component::INDEX`] is one);
/// - `SIGNATURES` and `SYSTEMS` have one entry per system (each
///   [`SystemOf::INDEX`] is below their length);
///   `SIGNATURES[i]` holds exactly the indices of the components that system
///   `i` reads or writes, and `SYSTEMS` describes an acyclic graph whose
///   `ancestors` are the transitive closure of `dependencies`, and whose
///   `dependents` are the inverse of `dependencies`;
/// - two systems that are not ordered by the graph never access a component
///   that one of them writes;
/// - `TOPOLOGICAL` lists every system once, each after its dependencies;
/// - `remove_component(s, i, id)` removes the value of component `i` (the one
///   whose [`Component::INDEX`] is `i`) with [`Column::remove`] and touches
///   nothing else, `relocate_component(s, i, from, to)` moves it with
///   [`Column::relocate`] and touches nothing else, and, when
///   `SETTINGS.layout` is `Layout::Archetypes`, `swap_component(s, i, a,
///   b)` exchanges the values of `a` and `b` with [`Column::swap`] and
///   touches nothing else;
/// - `slot_core(s, i)` and `slot_core_mut(s, i)` return the core of the
///   system whose index is `i`: the same one on every call, which no other
///   index returns;
/// - `RESOURCES` names every resource once (each [`Resource::INDEX`](crate::Resource::INDEX)
///   is below its length); two systems not ordered by the graph never
///   access a resource that one of them writes;
/// - every storage of `new_storages` is the column of one component
///   (`Component::column`), and its `Column` implementation keeps that
///   trait's contract.
///
/// ```
/// use ecs::traits::ContextDecl;
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
/// /// One line about any context.
/// fn describe<Cx: ContextDecl>() -> String {
///     format!("{}: {} components, {} systems", Cx::NAME, Cx::COMPONENTS.len(), Cx::SYSTEMS.len())
/// }
///
/// assert_eq!(describe::<World>(), "World: 2 components, 2 systems");
/// assert_eq!(World::COMPONENTS, ["Position", "Velocity"]);
/// ```
pub unsafe trait ContextDecl: Sized + Send + Sync + 'static {
    /// The component bitset type, wide enough for every component.
    type Bits: ComponentSet + crate::entity::Table + crate::sparse_set::Match + crate::refresh_core::RefreshCore;
    /// The storages of every component.
    type Storages: Send + Sync + 'static;
    /// The slots (state, subscribers, outputs) of every system.
    type Systems: Send + Sync + 'static;
    /// The initial state of every system, given to the context's constructor.
    type States;
    /// The cells of every resource ([`ResourceCell`](crate::ResourceCell)s).
    type Resources: Send + Sync + 'static;
    /// The initial value of every resource, given to the context's
    /// constructor (the generated `<Name>Resources` struct).
    type ResourceValues;

    /// The context's name.
    const NAME: &'static str;
    /// Its settings.
    const SETTINGS: Settings;
    /// Component names, by component index.
    const COMPONENTS: &'static [&'static str];
    /// Resource names, by resource index.
    const RESOURCES: &'static [&'static str];
    /// Systems, by system index.
    const SYSTEMS: &'static [SystemInfo];
    /// Component signature of each system, by system index.
    const SIGNATURES: &'static [Self::Bits];
    /// Every system index, each after its dependencies.
    const TOPOLOGICAL: &'static [usize];
    /// A plain-text summary of the declaration.
    const SUMMARY: &'static str;
    /// The dependency graph of systems, as Graphviz DOT.
    const DOT: &'static str;
    /// The dependency graph with components and their readers and writers,
    /// as Graphviz DOT.
    const DOT_WITH_COMPONENTS: &'static str;

    /// Empty storages for the given limit.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn new_storages(limit: EntityLimit) -> Self::Storages;
    /// The resources' cells, holding the given values.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn new_resources(values: Self::ResourceValues) -> Self::Resources;
    /// System slots holding the given states.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn new_systems(states: Self::States) -> Self::Systems;
    /// Removes the value of component `index` for `id`, if any.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn remove_component(storages: &mut Self::Storages, index: usize, id: EntityId);
    /// Moves the value of component `index` from id `from`, if any, to id
    /// `to`, which holds none.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn relocate_component(storages: &mut Self::Storages, index: usize, from: EntityId, to: EntityId);
    /// Exchanges the values of component `index` of ids `a` and `b`, which
    /// both hold one (see [`Column::swap`]). Called only when
    /// [`SETTINGS`](Self::SETTINGS)`.layout` is
    /// [`Layout::Archetypes`](crate::Layout::Archetypes) (the macro emits an
    /// empty body otherwise).
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn swap_component(storages: &mut Self::Storages, index: usize, a: EntityId, b: EntityId);
    /// The type-erased part of system `index`'s slot.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn slot_core(systems: &Self::Systems, index: usize) -> &SlotCore<Self>;
    /// The type-erased part of system `index`'s slot, mutably.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn slot_core_mut(systems: &mut Self::Systems, index: usize) -> &mut SlotCore<Self>;
}

/// A component type of context `Cx`.
///
/// It has no `Send + Sync` supertrait, yet every component is both: its
/// [`Column`](Component::Column) stores `Send + Sync` items, and the
/// built-in storages ask for [`ComponentBounds`](crate::ComponentBounds), so a component that is not
/// thread-safe fails once, in its impl (a supertrait here would repeat that
/// error at every use of the component).
///
/// # Safety
/// `INDEX` is this component's index in the declaration (distinct from every
/// other component's, below `Cx::COMPONENTS.len()`), and
/// `column`/`column_mut` return this component's own storage, the same one
/// on every call, which no other component shares.
///
/// ```
/// use ecs::traits::{Component, ContextDecl};
/// use ecs::{Entity, Step};
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
/// /// How many of `entities` hold component `C`, in any context.
/// fn holding<Cx: ContextDecl, C: Component<Cx>>(p: &Step<'_, Cx>, entities: &[Entity]) -> usize {
///     entities.iter().filter(|&&e| p.has::<C>(e)).count()
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let es = [p.spawn((Position(0.0),)).unwrap(), p.spawn((Position(0.0), Velocity(1.0))).unwrap()];
///     assert_eq!(holding::<World, Velocity>(p, &es), 1);
/// });
/// assert_eq!(<Velocity as Component<World>>::NAME, "Velocity");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component of context `{Cx}`",
    label = "not declared in `{Cx}`",
    note = "add `{Self}` to the `components` block of `{Cx}`'s `declare_context!`",
    note = "a component declared `T: many` is named `Many<T>` in code; systems reach its instances with `Instances<T>`, `InstancesMut<T>` or `for_each_instance`"
)]
pub unsafe trait Component<Cx: ContextDecl>: Sized + 'static {
    /// The component's index in the declaration.
    const INDEX: usize;
    /// The component's name in the declaration.
    const NAME: &'static str;
    /// Where its values live (made with [`Storage::new`] with the context).
    type Column: Column<Item = Self> + Storage;
    /// Its column.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn column(storages: &Cx::Storages) -> &Self::Column;
    /// Its column, mutably.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn column_mut(storages: &mut Cx::Storages) -> &mut Self::Column;
}

/// A system (the type holding its state) of context `Cx`.
///
/// # Safety
/// `INDEX` is the system's index in the declaration (distinct from every
/// other system's, below `Cx::SYSTEMS.len()`), `slot`/`slot_mut` return its
/// own slot, the same one on every call, which no other system shares, and
/// `PARALLELISM` is the declared strategy (any value is sound: it only
/// decides how many subtasks run).
///
/// ```
/// use ecs::traits::{ContextDecl, Parallelism, SystemOf};
/// use ecs::Step;
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
/// /// How many subtasks system `S` ran in last, in any context.
/// fn subtasks<Cx: ContextDecl, S: SystemOf<Cx>>(p: &Step<'_, Cx>) -> usize {
///     p.outputs::<S>().len()
/// }
/// # impl ecs::System<World> for Move {
/// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
/// # }
/// # impl ecs::System<World> for Draw {
/// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
/// # }
///
/// let mut world = World::new();
/// world.step(|p| {
///     p.run_all(&());
///     assert_eq!(subtasks::<World, Draw>(p), 1);
/// });
/// assert_eq!(<Draw as SystemOf<World>>::INDEX, 1);
/// assert_eq!(<Draw as SystemOf<World>>::PARALLELISM, Parallelism::None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system of context `{Cx}`",
    label = "not declared in `{Cx}`",
    note = "add a system with type `{Self}` to the `systems` block of `{Cx}`'s `declare_context!`"
)]
pub unsafe trait SystemOf<Cx: ContextDecl>: Sized + Send + Sync + 'static {
    /// The system's index in the declaration.
    const INDEX: usize;
    /// How the system splits into subtasks.
    const PARALLELISM: Parallelism;
    /// What each subtask produces (`()` unless declared with `output:`).
    type Output: Default + Send + Sync + 'static;
    /// Its slot.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn slot(systems: &Cx::Systems) -> &SystemSlot<Cx, Self>;
    /// Its slot, mutably.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn slot_mut(systems: &mut Cx::Systems) -> &mut SystemSlot<Cx, Self>;
}

/// The storage of component `C`, made through `C`'s [`Component`] impl so
/// that the generated code asks nothing of the storage type itself: that
/// impl already checked it (a component that is not thread-safe fails there,
/// once, as [`ComponentBounds`](crate::ComponentBounds)).
///
/// Not inlined in an optimised build: the storages struct's constructor
/// is then one call per storage, not every storage's constructor in one
/// function, which LLVM optimised in time growing faster than the
/// declaration.
///
/// `extern "C"`, so that it cannot unwind: a panic in a storage's `new` (a
/// custom storage's, or a built-in one asked for a buffer larger than
/// `isize::MAX` bytes) aborts the process (see [`Storage::new`]). The
/// storages struct's constructor then has no cleanup to drop the storages
/// made before a panicking one: that chain of landing pads, one per
/// storage, was about 2% of the instructions rustc spent on an optimised
/// build of `scripts/compile-cost`'s 64 components / 32 systems (cachegrind:
/// 10.885 G with them, 10.646 G without).
///
/// Never inlined in an optimised build only: a debug build inlines it (its
/// always-inliner), so that it is not a function per component type; one
/// constructor of every storage cost a debug build less (rustc's
/// instructions at 64/32, cachegrind: 5.754 G as functions, 5.717 G
/// inlined).
#[cfg_attr(debug_assertions, inline(always))]
#[cfg_attr(not(debug_assertions), inline(never))]
#[allow(
    improper_ctypes_definitions,
    reason = "called from Rust only: `extern \"C\"` for its abort on unwinding"
)]
pub extern "C" fn new_column<Cx: ContextDecl, C: Component<Cx>>(limit: EntityLimit) -> C::Column {
    <C::Column as Storage>::new(limit)
}

/// A tuple of components of context `Cx` stored as one group: what
/// [`new_group`] asks of a group, instead of `Send + Sync` of the whole tuple,
/// so that a member that is not thread-safe fails once, in its own
/// [`Component`] impl, and not again for the group.
///
/// # Safety
/// Every member is `Send + Sync`. The impls for tuples of components meet
/// this: a `Component<Cx>` impl for `T` requires `T::Column: Column<Item =
/// T>`, whose items are `Send + Sync` (a crate with a component that is not
/// does not compile).
///
/// ```
/// use ecs::__private::GroupOf;
/// pub struct Position(pub f32);
/// pub struct Velocity(pub f32);
///
/// ecs::declare_context! {
///     pub context World {
///         components { (Position, Velocity): grouped; }
///         systems {}
///     }
/// }
///
/// fn grouped<G: GroupOf<World>>() {}
/// grouped::<(Position, Velocity)>();
/// ```
pub unsafe trait GroupOf<Cx: ContextDecl>: Group {}

macro_rules! group_of {
    ($($T:ident),+) => {
        // SAFETY: each member is a component of `Cx`, so `Send + Sync`
        // (see the trait's contract).
        unsafe impl<Cx: ContextDecl, $($T: Component<Cx>),+> GroupOf<Cx> for ($($T,)+) {}
    };
}
group_of!(A, B);
group_of!(A, B, C);
group_of!(A, B, C, D);
group_of!(A, B, C, D, E);
group_of!(A, B, C, D, E, F);
group_of!(A, B, C, D, E, F, G);
group_of!(A, B, C, D, E, F, G, H);

/// The storage of a group of components of `Cx` (not inlined, and not
/// unwinding, and inlined in a debug build only, as [`new_column`]).
#[cfg_attr(debug_assertions, inline(always))]
#[cfg_attr(not(debug_assertions), inline(never))]
#[allow(
    improper_ctypes_definitions,
    reason = "called from Rust only: `extern \"C\"` for its abort on unwinding"
)]
pub extern "C" fn new_group<Cx: ContextDecl, G: GroupOf<Cx>>(limit: EntityLimit) -> Grouped<G> {
    // `Grouped<G>` is `Send + Sync` for every `G`: each member value it will
    // hold is `Send + Sync` (`GroupOf`'s contract), as its `Send` impl needs.
    Grouped::new_unchecked(limit)
}

/// Removes (and drops) the value of component `C` for `id`, if any: the arm
/// of [`ContextDecl::remove_component`] for `C`, generic so that the
/// generated code asks nothing of `C`'s column beyond `Component`. (Not for
/// `contiguous`, `sparse_set` and `hash_map` components: each of those
/// storages has one untyped arm for all its components,
/// `storage::discard_contiguous` and the others; the same for
/// `relocate_value` and `swap_value`, where `tag` components share one
/// too.)
#[inline(always)]
pub fn remove_value<Cx: ContextDecl, C: Component<Cx>>(storages: &mut Cx::Storages, id: EntityId) {
    // `discard`, not `remove`: the built-in storages drop through their
    // untyped cores, so that this arm compiles no function per component
    // type (`remove` was one per component, for this dispatch alone).
    C::column_mut(storages).discard(id);
}

/// Exchanges the values of component `C` of `a` and `b`: the arm of
/// [`ContextDecl::swap_component`] for `C`.
#[inline(always)]
pub fn swap_value<Cx: ContextDecl, C: Component<Cx>>(storages: &mut Cx::Storages, a: EntityId, b: EntityId) {
    C::column_mut(storages).swap(a, b);
}

/// Moves the value of component `C` from `from` to `to`: the arm of
/// [`ContextDecl::relocate_component`] for `C`.
#[inline(always)]
pub fn relocate_value<Cx: ContextDecl, C: Component<Cx>>(storages: &mut Cx::Storages, from: EntityId, to: EntityId) {
    C::column_mut(storages).relocate(from, to);
}

/// The part of a system's slot that does not depend on its type (its
/// subscriber set is the context's `Subscriptions`').
///
/// `pending` is filled by the system's own run and emptied by refresh.
pub struct SlotCore<Cx: ContextDecl> {
    pub(crate) pending: Mutex<Pending<Cx>>,
    /// Set when the system ran as a consumer in its producer's node
    /// (`Context::run_stream`), cleared by its own node, which then does
    /// nothing; the graph orders the two nodes.
    pub(crate) streamed: AtomicBool,
}

/// What a context keeps for one system that depends on its type: its
/// state, outputs and subtasks' scratch queues. (The rest, its
/// [`SlotCore`], sits in one array of every system's cores, so that making,
/// finding and dropping cores is one loop or one index, not code for each
/// system.)
///
/// They sit in cells, without a lock: the scheduler runs a system only after
/// its dependencies, and only its descendants read its state and outputs,
/// so accesses never overlap (`system_cell.rs` has the accessors and the
/// argument).
///
/// The cells are the slot's own fields, not a `SystemCell<S, O, P>` held
/// by the slot: that struct was one more type per system, described again
/// in the debug information of each codegen unit that uses the context
/// (288 structure types at 64 components / 32 systems, in 9 of its 10
/// units), and one more drop-glue function per system (COMPILE_COST.md,
/// fifteenth round).
///
/// Three cells rather than one of a tuple: dropping a slot drops the
/// outputs' and the queues' vectors through drop glue shared by every
/// system of the same output type (and context), where the tuple (and its
/// cell) were two more drop-glue functions and two more types in the
/// debug information per system.
pub struct SystemSlot<Cx: ContextDecl, S: SystemOf<Cx>> {
    pub(crate) state: UnsafeCell<S>,
    pub(crate) outputs: UnsafeCell<Vec<S::Output>>,
    pub(crate) scratch: UnsafeCell<Vec<Pending<Cx>>>,
}
