//! Queries: what a system's iteration hands out for each entity.
//!
//! A query is `&C` (read a component), `&mut C` (modify it), [`EntityId`],
//! or a tuple of those. Each `&C` needs the system's read right on `C`, each
//! `&mut C` its write right, checked by trait bounds; a tuple may not borrow
//! one component twice if one of the borrows is mutable (checked at compile
//! time by a constant).

use crate::access::{CanRead, CanReadShared, CanWrite};
use crate::block::{place_ptr, Place, Staged};
use crate::decl::{Component, ContextDecl};
use crate::handle::EntityId;
use crate::storage::Column;
use core::ptr::NonNull;

/// The access of one query element: component index and whether mutable.
pub type Access = Option<(usize, bool)>;

/// A query that system `S` of context `Cx` may run over its own entities.
///
/// # Safety
/// `S` has the right to every access in [`QueryCode::ACCESS`]: to read
/// each component listed, and to write each listed with `true`.
///
/// ```
/// use ecs::traits::{ContextDecl, Query, SystemOf};
/// use ecs::{Data, EntityId, System};
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
/// /// How many of the subtask's entities query `Q` visits, in any context.
/// fn visits<Cx: ContextDecl, S: SystemOf<Cx>, Q: Query<Cx, S>>(data: &mut Data<'_, Cx, S>) -> usize {
///     let mut n = 0;
///     data.for_each::<Q>(|_| n += 1);
///     n
/// }
///
/// impl System<World> for Move {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         assert_eq!(visits::<_, _, (EntityId, &mut Position, &Velocity)>(data), 1);
///     }
/// }
/// # impl System<World> for Draw {
/// #     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
/// # }
///
/// let mut world = World::new();
/// world.step(|p| {
///     p.spawn((Position(0.0), Velocity(1.0))).unwrap();
///     p.spawn((Position(0.0),)).unwrap();
///     p.run_all(&());
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query system `{S}` can run",
    note = "a query is `&Component`, `&mut Component`, `EntityId`, or a tuple of those, over components the system declares"
)]
pub unsafe trait Query<Cx: ContextDecl, S>: QueryCode<Cx> {}

// SAFETY: `QueryRights` has `Query`'s contract.
unsafe impl<Cx: ContextDecl, S, Q: QueryRights<Cx, S>> Query<Cx, S> for Q {}

/// The impls of [`Query`], which has this one blanket impl over them.
///
/// [`Query`] is what methods' bounds name. With its impls on `&C`, `&mut C`
/// and the tuples, a missing right in a tuple's element made rustc list
/// every type implementing `Query` (`()`, `(A, B)`, `(A, B, C)`, ...) under
/// the error, since the bound named the tuple's trait; with a single
/// blanket impl there is nothing to list, and the error still names the
/// system, the component and the list (tests/ui/access/write_two_not_in_write.rs).
///
/// # Safety
/// As [`Query`]'s.
// Hidden: users name `Query`.
#[doc(hidden)]
pub unsafe trait QueryRights<Cx: ContextDecl, S>: QueryCode<Cx> {}

/// What a [`Query`] fetches and how, whatever system runs it: the same
/// code for every system (and the step proxy) running the same query.
///
/// Apart from [`Query`], which adds the system's rights (trait bounds on
/// `S`), so that the code of an element (`&C`, `&mut C`, [`EntityId`]) and
/// of a tuple is generic over the context and the query alone. Generic
/// over the system too, each element's `init`, `fetch`, `run` and
/// `run_item` were compiled again for every system using it (in
/// `scripts/compile-cost`'s 64/32 declaration, 579 of the 4 849 items
/// rustc compiles, `-Zprint-mono-items`), and each `ACCESS` evaluated
/// again.
///
/// # Safety
/// `ACCESS` lists every component the fetched item borrows, with `true` for
/// a mutable borrow; `fetch` borrows nothing else, and only for the given id;
/// a block borrows the same, for the ids of the block, and `block_item`
/// gives the item of id `start + j`. `staged_first`, when it gives an
/// address, gives that of the run's first value of an element that
/// borrows its component mutably from a linear column (its values side by
/// side from there, each of the size given); `with_staged_first` changes
/// only where that element reaches its values.
// Hidden: the runtime's half of `Query`, which users name instead.
#[doc(hidden)]
pub unsafe trait QueryCode<Cx: ContextDecl> {
    /// What each entity yields.
    type Item<'i>;
    /// What iteration keeps between entities (the columns' fetch states).
    type Fetch: Copy;
    /// The components borrowed.
    const ACCESS: &'static [Access];
    /// The iteration state over these storages.
    // Hidden: called only by the runtime's walks.
    #[doc(hidden)]
    fn init(storages: &Cx::Storages) -> Self::Fetch;
    /// The item of entity `id`.
    ///
    /// # Safety
    /// `fetch` comes from `init` on storages that stay shared-borrowed for
    /// `'i`; `id` holds every component in `ACCESS`; for `'i`, no other
    /// borrow of those values conflicts with this one (no other mutable
    /// borrow, and no shared borrow of a component borrowed mutably).
    // Hidden: called only by the runtime's walks.
    #[doc(hidden)]
    unsafe fn fetch<'i>(fetch: Self::Fetch, id: EntityId) -> Self::Item<'i>;

    /// How many elements write a component whose values a block moves out
    /// of their column.
    #[doc(hidden)]
    const STAGED: usize;
    /// Whether an element is the entity's id.
    #[doc(hidden)]
    const WITH_ID: bool;
    /// Whether `Data::for_entities` walks a run of ids in blocks (unless
    /// told otherwise with `for_entities_in_blocks` or `_in_place`): when
    /// the query writes one component that a block stages, reads at least
    /// one (see `READS`), and does not ask for ids. Blocks pay for straight-line arithmetic on the entity, which the
    /// compiler then vectorises (2.4x on simple_iter's `position +=
    /// velocity`); they cost (about 2x on the particle simulation's
    /// `keep_in_bounds` and `age`) when the closure mostly branches and
    /// writes nothing, since every staged value is written back: closures
    /// that ask for the id (to kill the entity, defer changes, look up
    /// neighbours) or write several components mostly are such.
    #[doc(hidden)]
    const BLOCKS: bool = Self::STAGED == 1 && !Self::WITH_ID && Self::READS > 0;
    /// Whether the step proxy's walk in place over a run of ids
    /// (`Defer::for_each`, `PreparedQuery::for_each`) goes `CHUNK` (16, in
    /// `block.rs`) ids at a time before the rest one by one: when the query
    /// writes one component whose column a block would stage (one kept side
    /// by side), reads none and asks for no id, the walk is a map over one
    /// slice, which the compiler vectorises; in chunks, its vector loop
    /// runs as fast wherever the linker places it (see `CHUNK`).
    #[doc(hidden)]
    const IN_CHUNKS: bool = Self::STAGED == 1 && !Self::WITH_ID && Self::READS == 0;
    /// Whether a walk over a run of consecutive ids may stay in place
    /// instead of in blocks: the query writes one component and reads
    /// none (what `Data::for_entities` then does by default). Blocks move
    /// the written values so that the compiler knows a write cannot change
    /// what is read; with nothing read, a walk over the column in place is
    /// as fast and moves nothing (frag_iter's 520 entities: 1 046
    /// instructions per step staged, see `benches/peers/gaps.md`).
    #[doc(hidden)]
    const READS: usize;
    /// Whether some element's column keeps its values side by side
    /// (`Column::LINEAR`): only then does a walk gain from its entities
    /// being one run of ids. A walk of a query that reads no such column
    /// fetches each entity by its id, run or not, and is compiled as one
    /// loop instead of two (the same work per entity: each value is found
    /// through its column's fetch state either way).
    #[doc(hidden)]
    const LINEAR: bool = true;
    /// What a walk over a run of consecutive ids keeps: each column's
    /// address of the run's first value when the column is linear.
    ///
    /// `Copy`, so that the compiler knows it needs no dropping: a walk
    /// builds a tuple query's run element by element, and for a run that
    /// might need dropping a debug build compiled a landing pad per
    /// element into every walk.
    #[doc(hidden)]
    type Run: Copy;
    /// The walk over the run of ids from `start` on.
    ///
    /// # Safety
    /// As `fetch`, for `start`.
    #[doc(hidden)]
    unsafe fn run(fetch: Self::Fetch, start: EntityId) -> Self::Run;
    /// The item of id `start + k` of the run.
    ///
    /// # Safety
    /// As `fetch`, for id `start + k`, and every id of `start..start + k`
    /// holds every component in `ACCESS` too.
    #[doc(hidden)]
    unsafe fn run_item<'i>(run: &Self::Run, k: usize) -> Self::Item<'i>;
    /// What a block of consecutive ids keeps.
    #[doc(hidden)]
    type Block;
    /// The block of the ids from `start + k` on (`start` the run's), as
    /// many as a block holds.
    ///
    /// # Safety
    /// As `fetch`, for every id of `start..start + k + BLOCK`, for as long
    /// as the block lives.
    #[doc(hidden)]
    unsafe fn block(run: &Self::Run, k: usize) -> Self::Block;
    /// The item of the `j`-th id of the block.
    ///
    /// # Safety
    /// `j` is below the block's length.
    #[doc(hidden)]
    unsafe fn block_item<'i>(block: &'i mut Self::Block, j: usize) -> Self::Item<'i>;
    /// Where the values of the first element whose blocks stage them (see
    /// `STAGED`) lie in `run`: the address of the run's first one, and the
    /// size of each; `None` when no element stages. A block walk hands
    /// these bytes to a function as a reference parameter (`walk_apart`
    /// in `block_walk.rs`), which tells the compiler that the block's
    /// stores leave every other column alone.
    #[doc(hidden)]
    #[inline(always)]
    fn staged_first(_run: &Self::Run) -> Option<(NonNull<u8>, usize)> {
        None
    }
    /// `run`, with the values of the element `staged_first` names reached
    /// from `first` (the same address, through another pointer); the
    /// others as they were.
    ///
    /// # Safety
    /// `first` is the address `staged_first` gave for `run`.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn with_staged_first(run: Self::Run, _first: NonNull<u8>) -> Self::Run {
        run
    }
}

/// A query that only reads components no subtask of `S` writes: it may run
/// over any entity of the system, including other subtasks' entities.
///
/// # Safety
/// Every access in `ACCESS` is shared, to a component `S` does not write.
///
/// ```
/// use ecs::traits::{ContextDecl, Exclusive, SharedQuery};
/// use ecs::{Defer, Entity};
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
/// /// The handles of the entities query `Q` matches, in any context.
/// fn matching<Cx: ContextDecl, Q: SharedQuery<Cx, Exclusive<Cx>>>(p: &Defer<'_, Cx>) -> Vec<Entity> {
///     p.query::<Q>().map(|(e, _)| e).collect()
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let moving = p.spawn((Position(0.0), Velocity(1.0))).unwrap();
///     p.spawn((Position(0.0),)).unwrap();
///     assert_eq!(matching::<World, (&Position, &Velocity)>(p), [moving]);
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a read-only query",
    label = "a query that writes, where only reading is allowed",
    note = "a read-only query is `&Component`, `EntityId`, or a tuple of those",
    note = "on the step proxy, `query_mut`, `query_one_mut` and `for_each` run queries that write"
)]
pub unsafe trait SharedQuery<Cx: ContextDecl, S>: Query<Cx, S> {}

// SAFETY: `S` may read `C` (the `CanRead` bound).
unsafe impl<Cx: ContextDecl, S: CanRead<Cx, C>, C: Component<Cx>> QueryRights<Cx, S> for &C {}

/// The reference `$ty` to the value at `$ptr` (a `NonNull`), as `as_ref` or
/// `as_mut` would make it: a `transmute` (`NonNull<T>` and `&T` have the
/// same layout), to be used inside an `unsafe` block whose caller upholds
/// `as_ref`'s or `as_mut`'s contract. Not those methods: each is generic
/// over the value's type, so a function (and `as_ptr`, which they call)
/// per component a query reads or writes for rustc to collect and, always
/// inlined, inline in a debug build (106 at 64 components / 32 systems);
/// an intrinsic is none. Not a dereference of a raw pointer either, which
/// a debug build checks (alignment and null) in every walk, where the
/// pointer is aligned and not null by the column's contract.
macro_rules! item_at {
    ($ptr:expr, $ty:ty) => {
        core::mem::transmute::<NonNull<_>, $ty>($ptr)
    };
}

// SAFETY: borrows only `C` of `id`, shared.
unsafe impl<Cx: ContextDecl, C: Component<Cx>> QueryCode<Cx> for &C {
    type Item<'i> = &'i C;
    type Fetch = <C::Column as Column>::Fetch;
    const ACCESS: &'static [Access] = &[Some((C::INDEX, false))];
    #[inline(always)]
    fn init(storages: &Cx::Storages) -> Self::Fetch {
        C::column(storages).fetch_state()
    }
    #[inline(always)]
    unsafe fn fetch<'i>(fetch: Self::Fetch, id: EntityId) -> &'i C {
        // SAFETY: the caller guarantees the state is live, `id` holds `C` and
        // no conflicting mutable borrow exists for `'i`.
        unsafe { item_at!(C::Column::fetch(fetch, id), &'i C) }
    }
    // Read in place: only written values are worth moving.
    const STAGED: usize = 0;
    const WITH_ID: bool = false;
    const READS: usize = 1;
    const LINEAR: bool = <C::Column as Column>::LINEAR;
    type Run = Place<C::Column>;
    #[inline(always)]
    unsafe fn run(fetch: Self::Fetch, start: EntityId) -> Self::Run {
        // SAFETY: the state is live and `start` holds `C` (caller).
        unsafe { Place::new(fetch, start) }
    }
    #[inline(always)]
    unsafe fn run_item<'i>(run: &Self::Run, k: usize) -> &'i C {
        // SAFETY: the ids `start..=start + k` hold `C`, so the pointer is
        // valid (`ptr`'s contract), and no mutable borrow of the value exists
        // for `'i` (caller).
        unsafe { item_at!(place_ptr!(C::Column, run, k), &'i C) }
    }
    type Block = Place<C::Column>;
    #[inline(always)]
    unsafe fn block(run: &Self::Run, k: usize) -> Self::Block {
        // SAFETY: the ids `start..=start + k` hold `C` (caller).
        unsafe { run.offset(k) }
    }
    #[inline(always)]
    unsafe fn block_item(block: &mut Self::Block, j: usize) -> &C {
        // SAFETY: `j` is below the block's length, so the pointer is valid
        // (`ptr`'s contract), and no mutable borrow of the value exists
        // while the item lives (caller, as for `fetch`).
        unsafe { block.ptr(j).as_ref() }
    }
}

// SAFETY: `C` is read-only for `S` (the `CanReadShared` bound).
unsafe impl<Cx: ContextDecl, S: CanReadShared<Cx, C>, C: Component<Cx>> SharedQuery<Cx, S> for &C {}

// SAFETY: `S` may write `C` (the `CanWrite` bound).
unsafe impl<Cx: ContextDecl, S: CanWrite<Cx, C>, C: Component<Cx>> QueryRights<Cx, S> for &mut C {}

// SAFETY: borrows only `C` of `id`, mutably.
unsafe impl<Cx: ContextDecl, C: Component<Cx>> QueryCode<Cx> for &mut C {
    type Item<'i> = &'i mut C;
    type Fetch = <C::Column as Column>::Fetch;
    const ACCESS: &'static [Access] = &[Some((C::INDEX, true))];
    #[inline(always)]
    fn init(storages: &Cx::Storages) -> Self::Fetch {
        C::column(storages).fetch_state()
    }
    #[inline(always)]
    unsafe fn fetch<'i>(fetch: Self::Fetch, id: EntityId) -> &'i mut C {
        // SAFETY: the caller guarantees the state is live, `id` holds `C` and
        // no other borrow of it exists for `'i`.
        unsafe { item_at!(C::Column::fetch(fetch, id), &'i mut C) }
    }
    const STAGED: usize = Staged::<C::Column>::STAGES as usize;
    const WITH_ID: bool = false;
    const READS: usize = 0;
    const LINEAR: bool = <C::Column as Column>::LINEAR;
    type Run = Place<C::Column>;
    #[inline(always)]
    unsafe fn run(fetch: Self::Fetch, start: EntityId) -> Self::Run {
        // SAFETY: the state is live and `start` holds `C` (caller).
        unsafe { Place::new(fetch, start) }
    }
    #[inline(always)]
    unsafe fn run_item<'i>(run: &Self::Run, k: usize) -> &'i mut C {
        // SAFETY: the ids `start..=start + k` hold `C`, so the pointer is
        // valid for writes (`ptr`'s contract), and no other borrow of the
        // value exists for `'i` (caller).
        unsafe { item_at!(place_ptr!(C::Column, run, k), &'i mut C) }
    }
    type Block = Staged<C::Column>;
    #[inline(always)]
    unsafe fn block(run: &Self::Run, k: usize) -> Self::Block {
        // SAFETY: the caller gives `fetch`'s guarantees for every id up to
        // the block's last while it lives: the state is live, each id holds
        // `C`, and nothing else borrows the block's values, which is what
        // `offset` and `Staged` need.
        unsafe { Staged::new(run.offset(k)) }
    }
    #[inline(always)]
    unsafe fn block_item(block: &mut Self::Block, j: usize) -> &mut C {
        // SAFETY: `j` is below the block's length (caller).
        unsafe { block.get(j) }
    }
    #[inline(always)]
    fn staged_first(run: &Self::Run) -> Option<(NonNull<u8>, usize)> {
        // A column whose blocks stage is linear: the run holds its first
        // value's address (`Place`).
        if Self::STAGED == 1 {
            Some((run.first.cast(), size_of::<C>()))
        } else {
            None
        }
    }
    #[inline(always)]
    unsafe fn with_staged_first(run: Self::Run, first: NonNull<u8>) -> Self::Run {
        if Self::STAGED == 1 {
            Place {
                first: first.cast(),
                ..run
            }
        } else {
            run
        }
    }
}

// SAFETY: accesses nothing. (For any `S`: systems, and the step proxy's
// `Exclusive`.)
unsafe impl<Cx: ContextDecl, S> QueryRights<Cx, S> for EntityId {}

// SAFETY: borrows nothing.
unsafe impl<Cx: ContextDecl> QueryCode<Cx> for EntityId {
    type Item<'i> = EntityId;
    type Fetch = ();
    const ACCESS: &'static [Access] = &[None];
    #[inline(always)]
    fn init(_: &Cx::Storages) {}
    #[inline(always)]
    unsafe fn fetch<'i>((): (), id: EntityId) -> Self::Item<'i> {
        id
    }
    const STAGED: usize = 0;
    const WITH_ID: bool = true;
    const READS: usize = 0;
    const LINEAR: bool = false;
    type Run = EntityId;
    #[inline(always)]
    unsafe fn run((): (), start: EntityId) -> EntityId {
        start
    }
    #[inline(always)]
    unsafe fn run_item<'i>(start: &EntityId, k: usize) -> Self::Item<'i> {
        EntityId(start.0 + k as u32)
    }
    type Block = EntityId;
    #[inline(always)]
    unsafe fn block(start: &EntityId, k: usize) -> EntityId {
        EntityId(start.0 + k as u32)
    }
    #[inline(always)]
    unsafe fn block_item(start: &mut EntityId, j: usize) -> EntityId {
        EntityId(start.0 + j as u32)
    }
}

// SAFETY: borrows nothing.
unsafe impl<Cx: ContextDecl, S> SharedQuery<Cx, S> for EntityId {}

// Elements are reached by index (`fetch.0`), not bound to names: in a
// debug build every named binding of an always-inlined function is a
// stack slot and a store (its debug information) in every walk.
macro_rules! tuple_query {
    ($($i:tt $Q:ident),+) => {
        // SAFETY: the tuple's accesses are its elements', which `S` has
        // the rights to.
        // Without `#[diagnostic::do_not_recommend]`: with the item types in
        // `QueryCode`, an element's missing right is no longer found while
        // normalising `Q::Item`, and with the attribute rustc then reported
        // only that the tuple is not a query, not which element lacks which
        // right (tests/ui/access/read_undeclared.rs). The list of "other
        // types that implement `Query`" it kept short is gone another way:
        // `Query` has one blanket impl (`QueryRights`).
        unsafe impl<Cx: ContextDecl, S, $($Q: Query<Cx, S>),+> QueryRights<Cx, S> for ($($Q,)+) {}

        // SAFETY: the tuple borrows exactly what its elements borrow; the
        // caller of `fetch` rules out conflicts between them by checking
        // `ACCESS` with `is_valid`.
        unsafe impl<Cx: ContextDecl, $($Q: QueryCode<Cx>),+> QueryCode<Cx> for ($($Q,)+) {
            type Item<'i> = ($($Q::Item<'i>,)+);
            type Fetch = ($($Q::Fetch,)+);
            const ACCESS: &'static [Access] = &[$(first($Q::ACCESS)),+];
            #[inline(always)]
            fn init(storages: &Cx::Storages) -> Self::Fetch {
                ($($Q::init(storages),)+)
            }
            #[inline(always)]
            unsafe fn fetch<'i>(fetch: Self::Fetch, id: EntityId) -> Self::Item<'i> {
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { <$Q as QueryCode<Cx>>::fetch(fetch.$i, id) },)+)
            }
            const STAGED: usize = 0 $(+ $Q::STAGED)+;
            const WITH_ID: bool = false $(|| $Q::WITH_ID)+;
            const READS: usize = 0 $(+ $Q::READS)+;
            const LINEAR: bool = false $(|| $Q::LINEAR)+;
            type Run = ($($Q::Run,)+);
            #[inline(always)]
            unsafe fn run(fetch: Self::Fetch, start: EntityId) -> Self::Run {
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { <$Q as QueryCode<Cx>>::run(fetch.$i, start) },)+)
            }
            #[inline(always)]
            unsafe fn run_item<'i>(run: &Self::Run, k: usize) -> Self::Item<'i> {
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { <$Q as QueryCode<Cx>>::run_item(&run.$i, k) },)+)
            }
            type Block = ($($Q::Block,)+);
            #[inline(always)]
            unsafe fn block(run: &Self::Run, k: usize) -> Self::Block {
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { <$Q as QueryCode<Cx>>::block(&run.$i, k) },)+)
            }
            #[inline(always)]
            unsafe fn block_item<'i>(block: &'i mut Self::Block, j: usize) -> Self::Item<'i> {
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { <$Q as QueryCode<Cx>>::block_item(&mut block.$i, j) },)+)
            }
            #[inline(always)]
            fn staged_first(run: &Self::Run) -> Option<(NonNull<u8>, usize)> {
                let at = const { first_staged(&[$($Q::STAGED),+]) };
                $(if $i == at {
                    return $Q::staged_first(&run.$i);
                })+
                None
            }
            #[inline(always)]
            unsafe fn with_staged_first(run: Self::Run, first: NonNull<u8>) -> Self::Run {
                let at = const { first_staged(&[$($Q::STAGED),+]) };
                ($(if $i == at {
                    // SAFETY: `first` is the address this element's
                    // `staged_first` gave (`staged_first` above, caller).
                    unsafe { <$Q as QueryCode<Cx>>::with_staged_first(run.$i, first) }
                } else {
                    run.$i
                },)+)
            }
        }
        // SAFETY: every element is a shared query.
        unsafe impl<Cx: ContextDecl, S, $($Q: SharedQuery<Cx, S>),+> SharedQuery<Cx, S> for ($($Q,)+) {}
    };
}

/// The index of the first element of a tuple query whose `STAGED` is not
/// 0 (the length when none is), from the elements' `STAGED`.
const fn first_staged(staged: &[usize]) -> usize {
    let mut i = 0;
    while i < staged.len() && staged[i] == 0 {
        i += 1;
    }
    i
}

/// The single access of an element query (elements are never tuples),
/// for entity and column queries.
pub(crate) const fn first(access: &'static [Access]) -> Access {
    // `()` borrows nothing (`for_each_instance`'s query beside the instance).
    if access.is_empty() {
        return None;
    }
    assert!(access.len() == 1, "queries may not be nested tuples");
    access[0]
}

tuple_query!(0 A);
tuple_query!(0 A, 1 B);
tuple_query!(0 A, 1 B, 2 C);
tuple_query!(0 A, 1 B, 2 C, 3 D);
tuple_query!(0 A, 1 B, 2 C, 3 D, 4 E);
tuple_query!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F);
tuple_query!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G);
tuple_query!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H);
tuple_query!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I);
tuple_query!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J);
tuple_query!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K);
tuple_query!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L);

/// Whether a query's accesses are compatible: no component borrowed twice
/// when one of the borrows is mutable.
pub const fn is_valid(access: &[Access]) -> bool {
    let mut i = 0;
    while i < access.len() {
        if let Some((a, a_mut)) = access[i] {
            let mut j = i + 1;
            while j < access.len() {
                if let Some((b, b_mut)) = access[j]
                    && a == b
                    && (a_mut || b_mut)
                {
                    return false;
                }
                j += 1;
            }
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity() {
        assert!(is_valid(&[Some((0, true)), Some((1, true)), None, None]));
        assert!(is_valid(&[Some((0, false)), Some((0, false))]));
        assert!(!is_valid(&[Some((0, false)), Some((0, true))]));
        assert!(!is_valid(&[Some((2, true)), None, Some((2, true))]));
    }
}
