//! The data proxy: what a system's subtask may do.

use crate::access::{CanRead, CanReadShared, CanWrite, DependsOn};
use crate::bitset::ComponentSet;
use crate::block::BLOCK;
use crate::context::Context;
use crate::decl::{Component, ContextDecl, SystemOf};
use crate::entity::{Entity, EntityId};
use crate::proxy::Defer;
use crate::query::{is_valid, Query, SharedQuery};
use crate::sparse_set::SparseSet;
use crate::storage::Column;
use crate::system::Pending;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut, Range};

/// What a subtask of system `S` may do besides iterating its own entities:
/// read-only access to any entity, its output, kills, deferred operations, and
/// its ancestors' state and outputs.
///
/// A `View` is handed to the closure of [`Data::for_entities`] beside each
/// entity's item, and is what a [`Data`] dereferences to. [`Data`]'s
/// documentation lays out which accessor reaches what, on every proxy.
pub struct View<'a, Cx: ContextDecl, S: SystemOf<Cx>> {
    pub(crate) cx: &'a Context<Cx>,
    set: &'a SparseSet,
    /// The ids `set` holds when they are one ascending run (as `run_start`
    /// reports it), so that a membership test is a comparison.
    run: Option<Range<u32>>,
    all: &'a [EntityId],
    range: Range<usize>,
    subtask: usize,
    subtasks: usize,
    output: &'a mut S::Output,
    pending: &'a mut Pending<Cx>,
}

/// The data proxy of one subtask of system `S`: its entities, and through
/// [`View`] (which it dereferences to) everything else the system may touch.
///
/// # Which accessor when
///
/// | where | to reach | call | rules |
/// | --- | --- | --- | --- |
/// | step closure, deferred function ([`Step`](crate::Step), [`Defer`]) | one component of an entity, by handle | `p.get::<C>(e)`, `get_mut`, `component` | any component; `None` (or a panic, for `component`) when dead or lacking `C` |
/// | step closure, deferred function | several components of an entity, by handle | `p.query_one::<(&A, &B)>(e)`, `query_one_mut` | any components; `None` when dead or lacking one |
/// | step closure, deferred function | every live entity holding some components | `p.for_each::<(&mut A, &B)>(..)` (fastest), `p.query::<Q>()` (read-only, yields handles), `query_mut` | any components; entities killed this step are skipped |
/// | system ([`Data`]) | its own subtask's entities, iterated | `data.for_each::<Q>(..)`, `for_entities` | the system's declared components; `&mut` for its `write` list |
/// | system | one of its own subtask's entities, by id | `data.read::<C>(id)`, `data.write::<C>(id)`, `query_many::<Q, N>(ids)` | declared components; `None` for other entities |
/// | system ([`View`], also through `Data`) | any entity, by id | `view.get::<C>(id)`, `has` | components the system reads and does not write |
/// | system | an entity the system processes, by id (a neighbour) | `view.lookup::<Q>(id)`, `for_all_entities`, `for_other_entities` | read-only queries of components the system does not write; `None` for entities the system does not process |
///
/// Handles ([`Entity`]) stay valid across steps; ids ([`EntityId`]) only
/// until the next refresh, and systems see ids only.
pub struct Data<'a, Cx: ContextDecl, S: SystemOf<Cx>> {
    view: View<'a, Cx, S>,
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> Data<'a, Cx, S> {
    /// The proxy of subtask `subtask` of `subtasks` over `all`.
    ///
    /// # Safety
    /// - every id in `set` is distinct and holds every component of `S`'s
    ///   signature for `'a`, during which nothing adds or removes components;
    /// - for `'a`, the only code touching components `S` writes, for the
    ///   entities in `all[range]`, is this proxy; other subtasks of `S` get
    ///   disjoint ranges of the same `all`;
    /// - systems running at the same time as `S` are compatible with it.
    pub(crate) unsafe fn new(
        cx: &'a Context<Cx>,
        set: &'a SparseSet,
        subtask: usize,
        subtasks: usize,
        output: &'a mut S::Output,
        pending: &'a mut Pending<Cx>,
    ) -> Self {
        let (all, range, run) = span(set, subtask, subtasks);
        Data {
            view: View {
                cx,
                set,
                run,
                all,
                range,
                subtask,
                subtasks,
                output,
                pending,
            },
        }
    }

    /// Calls `f` with the view and the item of query `Q` for each entity of
    /// this subtask.
    ///
    /// `Q` is `&C`, `&mut C`, [`EntityId`] or a tuple of them; mutable items
    /// are handed out only here, for this subtask's own entities.
    ///
    /// When the entities are one run of ids (entities created together), a
    /// query that writes exactly one `contiguous` component of at most 64
    /// bytes and asks for no [`EntityId`] is walked in blocks, as
    /// [`for_entities_in_blocks`](Self::for_entities_in_blocks) walks any
    /// query; any other query one entity at a time, as
    /// [`for_entities_in_place`](Self::for_entities_in_place) does. That
    /// suits most closures; call either one to choose.
    ///
    /// # Panics
    /// Fails to compile (constant evaluation) when `Q` borrows one component
    /// twice with one borrow mutable.
    #[inline]
    pub fn for_entities<Q: Query<Cx, S>>(&mut self, f: impl FnMut(&mut View<'a, Cx, S>, Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        // A constant condition: only the walk taken is compiled.
        if Q::BLOCKS {
            self.walk::<Q, true>(f);
        } else {
            self.walk::<Q, false>(f);
        }
    }

    /// [`for_entities`](Self::for_entities), walking a run of ids in blocks
    /// of 8 whatever `Q` is: the values of the `contiguous` components it
    /// writes (those of at most 64 bytes) move into buffers on the stack
    /// for the block and back after it, so the compiler knows that a write
    /// cannot change what the query reads, and can turn straight-line
    /// arithmetic into vector instructions across the block.
    ///
    /// Worth it for closures that compute on every entity, such as an
    /// integrator writing position and velocity (4.2x faster on 10 000
    /// entities: `cargo bench --bench blocks`); a loss for closures that
    /// mostly branch and write little, since every moved value is moved
    /// back (1.6x slower on a bounds check that may write position and
    /// velocity). Entities that are not one run are walked one at a time.
    ///
    /// # Panics
    /// As [`for_entities`](Self::for_entities). A panic of `f` moves every
    /// value of the block back before it unwinds further.
    #[inline]
    pub fn for_entities_in_blocks<Q: Query<Cx, S>>(&mut self, f: impl FnMut(&mut View<'a, Cx, S>, Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        self.walk::<Q, true>(f);
    }

    /// [`for_entities`](Self::for_entities), one entity at a time whatever
    /// `Q` is: every item borrows the values in their columns. For closures
    /// that mostly branch, which blocks (see
    /// [`for_entities_in_blocks`](Self::for_entities_in_blocks)) would slow
    /// down.
    ///
    /// # Panics
    /// As [`for_entities`](Self::for_entities).
    #[inline]
    pub fn for_entities_in_place<Q: Query<Cx, S>>(&mut self, f: impl FnMut(&mut View<'a, Cx, S>, Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        self.walk::<Q, false>(f);
    }

    /// Calls `f` with the view and the item of `Q` for each entity of this
    /// subtask, in blocks when `BLOCKS` and the ids are one run.
    ///
    /// `BLOCKS` is a constant rather than an argument so that a walk one
    /// entity at a time (most queries) compiles no block code at all: the
    /// block loop and the staging it needs are most of a walk's code.
    ///
    /// Callers first evaluate [`ValidQuery::OK`] for `Q` (once, not in each
    /// walk: both walks' constants would be evaluated, giving two errors for
    /// one mistake).
    #[inline(always)]
    fn walk<Q: Query<Cx, S>, const BLOCKS: bool>(&mut self, mut f: impl FnMut(&mut View<'a, Cx, S>, Q::Item<'_>)) {
        // Every caller evaluated `ValidQuery::OK` (`is_valid(Q::ACCESS)`) first.
        let view = &mut self.view;
        let all = view.all;
        let ids = &all[view.range.clone()];
        let fetch = Q::init(view.cx.storages());
        // Why fetching is sound, in both loops: every id is one of this subtask's
        // entities, which hold every component of the signature (guaranteed
        // by `Data::new`'s caller), and `Q`'s accesses are within the
        // system's rights (trait bounds). `Q` itself is conflict-free
        // (`is_valid`); the item lives for one call of `f`, whose view cannot
        // hand out mutable borrows nor borrow components this system writes;
        // other subtasks touch other entities; no concurrent system
        // conflicts; and the storages stay shared-borrowed for `'a`.
        // One call site for `f`, so that the compiler inlines it; the branch
        // on `run` is loop-invariant, and the loop is unswitched on it.
        // (From the set rather than `view.run`: `run_start`'s checks, inlined
        // here, tell the compiler that `start + k` does not wrap, so that it
        // walks the columns with pointers; without them it recomputes each
        // address from the id, which made simple_iter 1.25x slower.)
        let run = run_from(view.set, view.range.start);
        // Blocks first, when asked for and the ids are one run, so that the
        // compiler may vectorise `f` across a block (see `block`): the
        // first `full` entities go in blocks, the rest one by one below.
        let mut done = 0;
        if BLOCKS {
            if let Some(start) = run {
                let full = ids.len() - ids.len() % BLOCK;
                while done < full {
                    // SAFETY: as for `fetch` below, for each id of the block:
                    // `start + done + j` is `ids[done + j]` (run invariant), and
                    // `done + BLOCK <= ids.len()`. The block lives for this
                    // iteration only, during which only its items reach the
                    // values it borrows.
                    let mut block = unsafe { Q::block(fetch, EntityId(start + done as u32)) };
                    for j in 0..BLOCK {
                        // SAFETY: `j < BLOCK`.
                        let item = unsafe { Q::block_item(&mut block, j) };
                        f(view, item);
                    }
                    done += BLOCK;
                }
            }
        }
        for (k, &listed) in ids.iter().enumerate().skip(done) {
            // The common case of entities created together: ids are one
            // ascending run, so id-indexed columns are walked linearly and
            // the loop can be vectorised.
            let id = match run {
                Some(start) => EntityId(start + k as u32),
                None => listed,
            };
            // SAFETY: `id` is `ids[k]` (by the run invariant when `run` is
            // set); see above.
            let item = unsafe { Q::fetch(fetch, id) };
            f(view, item);
        }
    }

    /// Component `C` of one of this subtask's own entities (`None` for any
    /// other entity). Unlike [`View::get`], this reads components the system
    /// writes too, since no other subtask touches its own entities.
    #[inline]
    pub fn read<C: Component<Cx>>(&self, id: EntityId) -> Option<&C>
    where
        S: CanRead<Cx, C>,
    {
        self.owns(id)?;
        // SAFETY: `id` is one of this subtask's entities, so it holds `C`
        // (the signature) and no other subtask borrows its `C`; this proxy
        // hands out no mutable borrow while `&self` lives.
        Some(unsafe { C::column(self.view.cx.storages()).get_ptr_unchecked(id).as_ref() })
    }

    /// Component `C` of one of this subtask's own entities, mutably (`None`
    /// for any other entity): random access for systems that do not iterate,
    /// such as a contact solver.
    #[inline]
    pub fn write<C: Component<Cx>>(&mut self, id: EntityId) -> Option<&mut C>
    where
        S: CanWrite<Cx, C>,
    {
        self.owns(id)?;
        // SAFETY: `id` is one of this subtask's entities, so it holds `C`
        // and no other subtask or concurrent system borrows its `C`; `&mut
        // self` excludes every other borrow made through this proxy.
        Some(unsafe { C::column(self.view.cx.storages()).get_ptr_unchecked(id).as_mut() })
    }

    /// The items of query `Q` for `N` distinct entities of this subtask at
    /// once; `None` when an id is not one of this subtask's entities or
    /// appears twice. For code that updates entities in pairs, such as a
    /// contact solver: `query_many::<(&mut Position, &mut Velocity), 2>([a, b])`.
    ///
    /// # Panics
    /// Fails to compile (constant evaluation) when `Q` borrows one component
    /// twice with one borrow mutable.
    #[inline]
    pub fn query_many<Q: Query<Cx, S>, const N: usize>(&mut self, ids: [EntityId; N]) -> Option<[Q::Item<'_>; N]> {
        const {
            assert!(
                is_valid(Q::ACCESS),
                "a query may not borrow the same component twice when one borrow is mutable"
            )
        };
        for (k, &id) in ids.iter().enumerate() {
            self.owns(id)?;
            if ids[..k].contains(&id) {
                return None;
            }
        }
        let fetch = Q::init(self.view.cx.storages());
        // SAFETY: every id is one of this subtask's entities, so it holds the
        // signature, which covers `Q` (trait bounds), and no other subtask or
        // concurrent system borrows the components `Q` writes; the ids are
        // distinct and `Q` is conflict-free (`is_valid`), so the items do not
        // overlap; `&mut self` excludes every other borrow made through this
        // proxy while they live; the storages stay shared-borrowed for `'a`.
        Some(ids.map(|id| unsafe { Q::fetch(fetch, id) }))
    }

    #[inline]
    fn owns(&self, id: EntityId) -> Option<()> {
        let pos = self.view.position(id)?;
        self.view.range.contains(&pos).then_some(())
    }

    /// Calls `f` with the item of query `Q` for each entity of this subtask:
    /// [`for_entities`](Self::for_entities) without the view (so in blocks
    /// or not as that one decides).
    #[inline]
    pub fn for_each<Q: Query<Cx, S>>(&mut self, mut f: impl FnMut(Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        let f = move |_: &mut View<'a, Cx, S>, item: Q::Item<'_>| f(item);
        // As in `for_entities`: only the walk taken is compiled.
        if Q::BLOCKS {
            self.walk::<Q, true>(f);
        } else {
            self.walk::<Q, false>(f);
        }
    }

    /// [`for_entities_in_blocks`](Self::for_entities_in_blocks) without the
    /// view: for arithmetic on every entity, such as
    /// `for_each_in_blocks::<(&mut Position, &mut Velocity, &Acceleration)>`.
    #[inline]
    pub fn for_each_in_blocks<Q: Query<Cx, S>>(&mut self, mut f: impl FnMut(Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        self.walk::<Q, true>(|_, item| f(item));
    }

    /// [`for_entities_in_place`](Self::for_entities_in_place) without the
    /// view: for closures that mostly branch.
    #[inline]
    pub fn for_each_in_place<Q: Query<Cx, S>>(&mut self, mut f: impl FnMut(Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        self.walk::<Q, false>(|_, item| f(item));
    }
}

/// Whether query `Q` of system `S` may hand out its items.
struct ValidQuery<Cx, S, Q>(PhantomData<(Cx, S, Q)>);

impl<Cx: ContextDecl, S, Q: Query<Cx, S>> ValidQuery<Cx, S, Q> {
    /// Fails to compile (constant evaluation) when `Q` borrows one component
    /// twice with one borrow mutable: what makes handing out its items
    /// sound. A constant, not a function, so that checking it compiles no
    /// code.
    const OK: () = assert!(
        is_valid(Q::ACCESS),
        "a query may not borrow the same component twice when one borrow is mutable"
    );
}

/// The ids of `set`, the range of them that subtask `subtask` of
/// `subtasks` walks, and the ids as a range when they are one run: the part
/// of [`Data::new`] that does not depend on the system (compiled once, not
/// once per system).
fn span(set: &SparseSet, subtask: usize, subtasks: usize) -> (&[EntityId], Range<usize>, Option<Range<u32>>) {
    let all = set.as_slice();
    let range = crate::schedule::subtask_range(all.len(), subtasks, subtask);
    let run = set.run_start().map(|first| first.0..first.0 + all.len() as u32);
    (all, range, run)
}

/// The id at place `start` of `set` when its ids are one run. Not generic,
/// so compiled once rather than in every walk; always inlined, so that the
/// walk sees `run_start`'s checks.
#[inline(always)]
fn run_from(set: &SparseSet, start: usize) -> Option<u32> {
    set.run_start().map(|first| first.0 + start as u32)
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> Deref for Data<'a, Cx, S> {
    type Target = View<'a, Cx, S>;
    fn deref(&self) -> &Self::Target {
        &self.view
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> DerefMut for Data<'a, Cx, S> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.view
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> View<'a, Cx, S> {
    /// The entities of this subtask.
    #[inline]
    pub fn entities(&self) -> &'a [EntityId] {
        &self.all[self.range.clone()]
    }

    /// Every entity of the system, all subtasks together.
    #[inline]
    pub fn all_entities(&self) -> &'a [EntityId] {
        self.all
    }

    /// The entities of the other subtasks: those before this subtask's slice
    /// and those after it.
    #[inline]
    pub fn other_entities(&self) -> impl Iterator<Item = EntityId> + 'a {
        let all = self.all;
        all[..self.range.start].iter().chain(&all[self.range.end..]).copied()
    }

    /// Number of entities of this subtask.
    #[inline]
    pub fn entity_count(&self) -> usize {
        self.range.len()
    }

    /// Number of entities of the system.
    #[inline]
    pub fn all_entity_count(&self) -> usize {
        self.all.len()
    }

    /// Number of entities of the other subtasks.
    #[inline]
    pub fn other_entity_count(&self) -> usize {
        self.all.len() - self.range.len()
    }

    /// This subtask's index, from 0.
    #[inline]
    pub fn subtask_index(&self) -> usize {
        self.subtask
    }

    /// Number of subtasks the system runs as this time.
    #[inline]
    pub fn subtask_count(&self) -> usize {
        self.subtasks
    }

    /// Calls `f` with the item of the read-only query `Q` for every entity of
    /// the system, in every subtask.
    pub fn for_all_entities<Q: SharedQuery<Cx, S>>(&self, f: impl FnMut(Q::Item<'_>)) {
        self.shared_query::<Q>(self.all.iter().copied(), f)
    }

    /// Calls `f` with the item of the read-only query `Q` for every entity of
    /// the other subtasks.
    pub fn for_other_entities<Q: SharedQuery<Cx, S>>(&self, f: impl FnMut(Q::Item<'_>)) {
        self.shared_query::<Q>(self.other_entities(), f)
    }

    #[inline]
    fn shared_query<Q: SharedQuery<Cx, S>>(&self, ids: impl Iterator<Item = EntityId>, mut f: impl FnMut(Q::Item<'_>)) {
        let fetch = Q::init(self.cx.storages());
        for id in ids {
            // SAFETY: `id` is an entity of the system, holding its signature;
            // `Q` borrows only components the system does not write
            // (`SharedQuery`), which no concurrent system writes either; the
            // storages stay shared-borrowed for `'a`.
            f(unsafe { Q::fetch(fetch, id) });
        }
    }

    /// The item of the read-only query `Q` for any entity the system
    /// processes, in this subtask or another; `None` for other entities.
    ///
    /// One membership test covers every component of `Q`, where
    /// [`get`](Self::get) tests each component's presence: the lookup to use
    /// for neighbours found through a spatial structure.
    #[inline]
    pub fn lookup<Q: SharedQuery<Cx, S>>(&self, id: EntityId) -> Option<Q::Item<'a>> {
        self.position(id)?;
        // SAFETY: `id` is an entity of the system, so it holds the system's
        // signature (`Data::new`'s caller), which covers every component `Q`
        // may name (its trait bounds); `Q` only reads components the system
        // does not write (`SharedQuery`), which no concurrent system writes
        // either; the storages stay shared-borrowed for `'a`.
        Some(unsafe { Q::fetch(Q::init(self.cx.storages()), id) })
    }

    /// The place of `id` among the system's entities (in
    /// [`all_entities`](Self::all_entities)), if it is one: a subtraction
    /// when they are one run, the set's lookup otherwise.
    #[inline]
    fn position(&self, id: EntityId) -> Option<usize> {
        match &self.run {
            Some(run) => run.contains(&id.0).then(|| (id.0 - run.start) as usize),
            None => self.set.position(id),
        }
    }

    /// Component `C` of any entity, if it holds one: only for components the
    /// system reads and does not write.
    #[inline]
    pub fn get<C: Component<Cx>>(&self, id: EntityId) -> Option<&C>
    where
        S: CanReadShared<Cx, C>,
    {
        // Sound: `S` does not write `C` and no concurrent system writes it.
        // The entity's bits decide, as everywhere: a value no entity claims
        // (left by a spawn whose storage panicked) is not the id's.
        self.holds::<C>(id)
            .then(|| C::column(self.cx.storages()).get(id))
            .flatten()
    }

    /// Whether the entity holds component `C` (a component the system may
    /// read of any entity).
    #[inline]
    pub fn has<C: Component<Cx>>(&self, id: EntityId) -> bool
    where
        S: CanReadShared<Cx, C>,
    {
        self.holds::<C>(id)
    }

    /// Whether the id's bits record component `C` (false for an id no
    /// entity holds).
    #[inline]
    fn holds<C: Component<Cx>>(&self, id: EntityId) -> bool {
        let bits = self.cx.entities().all_bits().get(id.index());
        bits.is_some_and(|b| b.contains(C::INDEX))
    }

    /// The handle of the live entity with this id.
    #[inline]
    pub fn handle(&self, id: EntityId) -> Option<Entity> {
        self.cx.entities().handle(id)
    }

    /// Whether the handle's entity is alive.
    #[inline]
    pub fn is_alive(&self, e: Entity) -> bool {
        self.cx.entities().is_alive(e)
    }

    /// This subtask's output.
    #[inline]
    pub fn output(&mut self) -> &mut S::Output {
        self.output
    }

    /// Kills the entity at the next refresh (harmless if already dead).
    #[inline]
    pub fn kill(&mut self, id: EntityId) {
        self.pending.kills.push(id);
    }

    /// Queues `f` to run at the next refresh, with a [`Defer`] proxy that can
    /// create and kill entities and add and remove components. Deferred
    /// functions run in system order, then subtask order, then call order.
    ///
    /// `f` is moved into a buffer its subtask keeps from step to step, not
    /// boxed: once the buffer has grown to a step's needs, deferring
    /// allocates nothing (`cargo bench --bench defer`: 100 000 small
    /// closures deferred and run about 5x faster than boxed ones). When a
    /// deferred function panics, the functions after it in its system's
    /// queue are dropped without running, and the panic reaches the caller
    /// of `step`; when the system's run panics, none of the functions it
    /// deferred runs.
    pub fn defer(&mut self, f: impl for<'d> FnOnce(&mut Defer<'d, Cx>) + Send + 'static) {
        self.pending.deferred.push(f);
    }

    /// The state of system `T`, an ancestor of this one.
    pub fn system<T: SystemOf<Cx>>(&self) -> &'a T
    where
        S: DependsOn<Cx, T>,
    {
        // SAFETY: `T` is an ancestor of `S` (`DependsOn`'s contract), so the
        // scheduler finished `T`'s run before starting this one and starts it
        // again only in a later `run_selected`. The reference cannot reach
        // it: `process` is generic over `'a` and every place it could store
        // a reference outliving the call (state, outputs, deferred functions)
        // is `'static` (`SystemCell`'s documentation).
        unsafe { T::slot(self.cx.systems()).cell.read().0 }
    }

    /// The outputs of the last run of system `T`, an ancestor of this one,
    /// one per subtask.
    pub fn outputs<T: SystemOf<Cx>>(&self) -> &'a [T::Output]
    where
        S: DependsOn<Cx, T>,
    {
        // SAFETY: as in `system`: `T`'s run finished before this one began.
        unsafe { T::slot(self.cx.systems()).cell.read().1 }
    }
}
