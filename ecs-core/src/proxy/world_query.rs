//! Queries outside systems: iterating every live entity that holds some
//! components, from the step proxy and deferred functions.
//!
//! They run the queries systems run ([`Query`]), through the same fetch and
//! block machinery, with [`Exclusive`] in the place of the system type: a
//! marker that may read and write every component, because the proxies
//! that run its queries ([`Defer`], and [`Step`](crate::Step) through it)
//! hold the context exclusively. Where a system's iteration trusts its
//! matched set, these test each entity's component set (one byte per entity
//! up to 8 components) and walk the entities that match in runs of
//! consecutive ids, so that a query over entities created together walks
//! its columns exactly as a system does.

use crate::access::{CanRead, CanReadShared, CanWrite};
use crate::bitset::ComponentSet;
use crate::block::CHUNK;
use crate::block_walk::walk_blocks;
use crate::context::Context;
use crate::decl::{Component, ContextDecl};
use crate::entity::Entities;
use crate::handle::{Entity, EntityId};
use crate::proxy::Defer;
use crate::query::{is_valid, Access, Query, SharedQuery};
use core::marker::PhantomData;

/// The access marker of queries run with exclusive access to a context:
/// [`Defer::for_each`], [`Defer::query_mut`] and [`Defer::query_one_mut`]
/// (and so [`Step`](crate::Step)'s) run `Q: Query<Cx, Exclusive<Cx>>`, and
/// [`Defer::query`] and [`Defer::query_one`] `Q: SharedQuery<Cx,
/// Exclusive<Cx>>`, where a system runs `Query<Cx, S>`.
///
/// It may read and write every component of `Cx` ([`CanRead`],
/// [`CanWrite`] and [`CanReadShared`] are implemented for it, for every
/// component), which is
/// sound because nothing runs beside the proxies that use it, and their
/// queries test that each entity holds the components. It can never be a
/// system: it is neither `Send` nor `Sync`, which
/// [`SystemOf`](crate::SystemOf) requires, so no declaration can give a
/// system its rights. Nothing constructs it; it is only a type parameter.
///
/// Resources, or any other right checked per system, can be given to it the
/// same way: a blanket implementation of the right for `Exclusive<Cx>`.
///
/// ```
/// use ecs::traits::{ContextDecl, Exclusive, Query};
/// use ecs::Defer;
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
/// /// Calls `f` with query `Q`'s item of every entity it matches, in any context.
/// fn each<Cx: ContextDecl, Q: Query<Cx, Exclusive<Cx>>>(p: &mut Defer<'_, Cx>, f: impl FnMut(Q::Item<'_>)) {
///     p.for_each::<Q>(f);
/// }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Position(0.0), Velocity(2.0))).unwrap());
/// world.step(|p| each::<World, (&mut Position, &Velocity)>(p, |(p, v)| p.0 += v.0));
/// world.step(|p| assert_eq!(p.get::<Position>(e).map(|p| p.0), Some(2.0)));
/// ```
pub struct Exclusive<Cx> {
    // `*const` makes it neither `Send` nor `Sync` (see above).
    _not_a_system: PhantomData<*const Cx>,
}

// SAFETY: `Exclusive` is not a system (it is not `Send`, so it cannot
// implement `SystemOf`), so no `Data` proxy and no scheduled run relies on
// this right; the proxies that run its queries hold the context exclusively
// and fetch only from entities whose component set holds `C`.
// Not offered in errors about a system's rights.
#[diagnostic::do_not_recommend]
unsafe impl<Cx: ContextDecl, C: Component<Cx>> CanRead<Cx, C> for Exclusive<Cx> {}

// SAFETY: as for `CanRead`.
// Not offered in errors about a system's rights.
#[diagnostic::do_not_recommend]
unsafe impl<Cx: ContextDecl, C: Component<Cx>> CanWrite<Cx, C> for Exclusive<Cx> {}

// SAFETY: as for `CanRead`; the proxies run queries of `SharedQuery` (which
// this makes `&C` one) through a shared borrow only, which nothing writes
// through.
// Not offered in errors about a system's rights.
#[diagnostic::do_not_recommend]
unsafe impl<Cx: ContextDecl, C: Component<Cx>> CanReadShared<Cx, C> for Exclusive<Cx> {}

/// The component set every entity of a query must hold.
#[inline]
pub(crate) fn signature<Cx: ContextDecl>(access: &[Access]) -> Cx::Bits {
    let mut sig = Cx::Bits::default();
    for &(c, _) in access.iter().flatten() {
        sig.insert(c);
    }
    sig
}

/// The ids of the live entities holding every component of `sig`, as runs
/// of consecutive ids, in increasing order.
pub(crate) struct Runs<'w, B> {
    entities: &'w Entities<B>,
    bits: &'w [B],
    sig: B,
    /// Whether some id may hold no live entity: killed entities keep their
    /// component sets until the refresh reclaims them.
    check_alive: bool,
    next: usize,
}

impl<'w, B: ComponentSet> Runs<'w, B> {
    pub(crate) fn new(entities: &'w Entities<B>, sig: B) -> Self {
        Runs {
            entities,
            bits: entities.all_bits(),
            sig,
            check_alive: entities.has_dying() || entities.has_holes(),
            next: 0,
        }
    }

    #[inline(always)]
    fn matches(&self, i: usize) -> bool {
        self.bits[i].contains_all(&self.sig) && (!self.check_alive || self.entities.is_id_alive(EntityId(i as u32)))
    }

    /// The first id at or after `i` that does not match, or the end.
    #[inline(always)]
    fn end_of_run(&self, mut i: usize) -> usize {
        const CHUNK: usize = 16;
        if !self.check_alive {
            // A whole chunk at a time, without early exit, so that the
            // test vectorises (the common run is every entity).
            while let Some(chunk) = self.bits.get(i..i + CHUNK) {
                if !chunk.iter().fold(true, |all, b| all & b.contains_all(&self.sig)) {
                    break;
                }
                i += CHUNK;
            }
        }
        while i < self.bits.len() && self.matches(i) {
            i += 1;
        }
        i
    }
}

impl<B: ComponentSet> Iterator for Runs<'_, B> {
    type Item = core::ops::Range<u32>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let mut i = self.next;
        while i < self.bits.len() && !self.matches(i) {
            i += 1;
        }
        if i == self.bits.len() {
            self.next = i;
            return None;
        }
        let end = self.end_of_run(i + 1);
        self.next = end;
        // Ids are below 2^31 (`Entities`).
        Some(i as u32..end as u32)
    }
}

/// Calls `f` with the item of `Q` for each id of `run`, in blocks when
/// `blocks`: the run part of `Data::walk`, over one run of ids.
///
/// # Safety
/// `fetch` comes from `Q::init` on storages that stay shared-borrowed while
/// this runs; every id of `run` holds every component of `Q::ACCESS`; `Q`
/// is conflict-free (`is_valid`); nothing else reads or writes the values
/// `Q` borrows while this runs (`f` cannot reach them but through its
/// items).
#[inline(always)]
pub(crate) unsafe fn walk_run<Cx: ContextDecl, Q: Query<Cx, Exclusive<Cx>>>(
    fetch: Q::Fetch,
    run: core::ops::Range<u32>,
    blocks: bool,
    f: &mut impl FnMut(Q::Item<'_>),
) {
    if run.is_empty() {
        return;
    }
    // SAFETY: `run.start` is an id of the run (caller's guarantees).
    let place = unsafe { Q::run(fetch, EntityId(run.start)) };
    let len = run.len();
    let mut done = 0;
    if blocks {
        // SAFETY: the caller's guarantees, for the ids of the run.
        done = unsafe { walk_blocks::<Cx, Q>(&place, len, f) };
    }
    if !blocks && Q::IN_CHUNKS {
        // Chunks of `CHUNK` ids, each a loop of fixed count (see `CHUNK`).
        while len - done >= CHUNK {
            // `0..CHUNK`, a constant count: over `done..done + CHUNK` the
            // compiler did not see one and kept the loop scalar (2.1x
            // slower on frag_iter).
            for j in 0..CHUNK {
                // SAFETY: as below, for `done + j < len`.
                f(unsafe { Q::run_item(&place, done + j) });
            }
            done += CHUNK;
        }
    }
    for k in done..len {
        // SAFETY: the ids `run.start..=run.start + k` are ids of the run
        // (caller's guarantees); each item lives for one call of `f`, and
        // each id is fetched once.
        f(unsafe { Q::run_item(&place, k) });
    }
}

impl<Cx: ContextDecl> Defer<'_, Cx> {
    /// Calls `f` with the item of query `Q` for every live entity that holds
    /// every component `Q` names, in id order; killed entities (which stay
    /// until the refresh) are skipped.
    ///
    /// `Q` is a query as systems run them (`&C`, `&mut C`, [`EntityId`] or
    /// a tuple of them), over any component of the context: the step proxy
    /// holds the context exclusively. It runs as a system's
    /// [`Data::for_each`](crate::Data::for_each) does, over the runs of
    /// consecutive ids that match: in blocks of 8 when `Q` writes one
    /// `contiguous` component, reads another and asks for no id, one entity
    /// at a time otherwise. For an entity's handle, ask for its
    /// [`EntityId`] and call [`handle`](Self::handle) afterwards, or iterate
    /// [`query`](Self::query), which yields handles.
    ///
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// ecs::declare_context! {
    ///     pub context World { components { Position, Velocity: contiguous; } systems {} }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let moving = p.spawn((Position(0.0), Velocity(2.0))).unwrap();
    ///     let still = p.spawn((Position(5.0),)).unwrap();
    ///     p.for_each::<(&mut Position, &Velocity)>(|(x, v)| x.0 += v.0);
    ///     assert_eq!(p.get::<Position>(moving), Some(&Position(2.0)));
    ///     assert_eq!(p.get::<Position>(still), Some(&Position(5.0)));
    /// });
    /// ```
    ///
    /// # Panics
    /// Fails to compile (constant evaluation, under `cargo build`) when `Q`
    /// borrows one component twice with one borrow mutable.
    #[inline]
    pub fn for_each<Q: Query<Cx, Exclusive<Cx>>>(&mut self, mut f: impl FnMut(Q::Item<'_>)) {
        const {
            assert!(
                is_valid(Q::ACCESS),
                "a query may not borrow the same component twice when one borrow is mutable"
            )
        };
        let cx: &Context<Cx> = self.cx;
        let fetch = Q::init(cx.storages());
        for run in Runs::new(cx.entities(), signature::<Cx>(Q::ACCESS)) {
            // SAFETY: `fetch` comes from the storages, shared-borrowed here
            // while `&mut self` keeps every other access out; every id of
            // the run is a live entity whose component set holds `Q`'s
            // components (`Runs`), so the storages hold those values (the
            // bitset's invariant, kept by `Column`'s contract); `Q` is
            // conflict-free (checked above); `f` cannot reach the context
            // (`&mut self` is borrowed for the call), only its items.
            unsafe { walk_run::<Cx, Q>(fetch, run, Q::BLOCKS, &mut f) };
        }
    }

    /// An iterator over the handle and the item of the read-only query `Q`
    /// (`&C`, [`EntityId`] or a tuple of them) of every live entity that
    /// holds every component `Q` names, in id order (killed entities are
    /// skipped). It borrows the proxy shared, so that [`get`](Self::get),
    /// [`handle`](Self::handle) and other queries work beside it;
    /// [`query_mut`](Self::query_mut) runs queries that write.
    ///
    /// [`for_each`](Self::for_each) runs the same query faster (in runs of
    /// ids, and in blocks): prefer it for work on every entity.
    ///
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Life(pub f32);
    /// # pub struct Name(pub &'static str);
    /// ecs::declare_context! {
    ///     pub context World { components { Life: contiguous; Name: sparse_set; } systems {} }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     p.spawn((Life(1.0), Name("ant"))).unwrap();
    ///     p.spawn((Life(-1.0), Name("bee"))).unwrap();
    ///     p.spawn((Life(-1.0),)).unwrap();
    ///     // Collect the handles, then kill: the query borrows `p`.
    ///     let dead: Vec<_> = p.query::<&Life>().filter(|(_, life)| life.0 <= 0.0).map(|(e, _)| e).collect();
    ///     for e in dead {
    ///         p.kill(e);
    ///     }
    ///     for (e, name) in p.query::<&Name>() {
    ///         assert_eq!(name.0, "ant"); // killed entities are not visited
    ///         assert_eq!(p.get::<Life>(e), Some(&Life(1.0)));
    ///     }
    /// });
    /// ```
    pub fn query<Q: SharedQuery<Cx, Exclusive<Cx>>>(&self) -> QueryIter<'_, Cx, Q> {
        // SAFETY: `Q` borrows components shared only (`SharedQuery`), and
        // while the iterator and its items live the proxy is shared-borrowed,
        // so nothing writes a component.
        unsafe { QueryIter::new(self.cx) }
    }

    /// [`query`](Self::query) for any query, also one that writes
    /// components: the handle and the item of `Q` of every live entity that
    /// holds every component `Q` names, in id order.
    ///
    /// The items borrow distinct entities, so they may be kept and used
    /// together (as a slice's `iter_mut` allows).
    ///
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// ecs::declare_context! {
    ///     pub context World { components { Position, Velocity: contiguous; } systems {} }
    /// }
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(1.0), Velocity(2.0))).unwrap());
    /// world.step(|p| {
    ///     for (_, (x, v)) in p.query_mut::<(&mut Position, &Velocity)>() {
    ///         x.0 += v.0;
    ///     }
    ///     assert_eq!(p.get::<Position>(e), Some(&Position(3.0)));
    /// });
    /// ```
    ///
    /// # Panics
    /// As [`for_each`](Self::for_each).
    pub fn query_mut<Q: Query<Cx, Exclusive<Cx>>>(&mut self) -> QueryIter<'_, Cx, Q> {
        // SAFETY: the proxy is borrowed exclusively while the iterator and
        // its items live.
        unsafe { QueryIter::new(self.cx) }
    }

    /// The item of the read-only query `Q` for one entity: `None` when the
    /// entity is dead (or killed) or lacks a component `Q` names.
    /// [`query_one_mut`](Self::query_one_mut) runs queries that write.
    ///
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Position(pub f32);
    /// # #[derive(Debug, PartialEq)] pub struct Velocity(pub f32);
    /// ecs::declare_context! {
    ///     pub context World { components { Position, Velocity: contiguous; } systems {} }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.spawn((Position(1.0), Velocity(2.0))).unwrap();
    ///     assert_eq!(p.query_one::<(&Position, &Velocity)>(e), Some((&Position(1.0), &Velocity(2.0))));
    ///     p.remove::<Velocity>(e);
    ///     assert_eq!(p.query_one::<(&Position, &Velocity)>(e), None);
    /// });
    /// ```
    #[inline]
    pub fn query_one<Q: SharedQuery<Cx, Exclusive<Cx>>>(&self, e: Entity) -> Option<Q::Item<'_>> {
        // SAFETY: `Q` borrows components shared only, and the proxy stays
        // shared-borrowed while the item lives.
        unsafe { one::<Cx, Q>(self.cx, e) }
    }

    /// [`query_one`](Self::query_one) for any query, also one that writes
    /// components.
    ///
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// ecs::declare_context! {
    ///     pub context World { components { Position, Velocity: contiguous; } systems {} }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.spawn((Position(1.0), Velocity(2.0))).unwrap();
    ///     let (x, v) = p.query_one_mut::<(&mut Position, &Velocity)>(e).unwrap();
    ///     x.0 += v.0;
    ///     assert_eq!(p.get::<Position>(e), Some(&Position(3.0)));
    /// });
    /// ```
    ///
    /// # Panics
    /// As [`for_each`](Self::for_each).
    #[inline]
    pub fn query_one_mut<Q: Query<Cx, Exclusive<Cx>>>(&mut self, e: Entity) -> Option<Q::Item<'_>> {
        // SAFETY: the proxy is borrowed exclusively while the item lives.
        unsafe { one::<Cx, Q>(self.cx, e) }
    }
}

/// The item of `Q` for entity `e`, if alive and holding `Q`'s components.
///
/// # Safety
/// While the item lives (`'w`), nothing else writes the components `Q`
/// borrows, nor reads those `Q` borrows mutably.
#[inline]
unsafe fn one<'w, Cx: ContextDecl, Q: Query<Cx, Exclusive<Cx>>>(cx: &'w Context<Cx>, e: Entity) -> Option<Q::Item<'w>> {
    const {
        assert!(
            is_valid(Q::ACCESS),
            "a query may not borrow the same component twice when one borrow is mutable"
        )
    };
    let id = cx.entities().id_of(e)?;
    if !cx.entities().bits(id).contains_all(&signature::<Cx>(Q::ACCESS)) {
        return None;
    }
    // SAFETY: the state comes from the storages, shared-borrowed for `'w`;
    // `id` is a live entity whose component set holds `Q`'s components, so
    // the storages hold those values; `Q` is conflict-free (checked above),
    // and nothing else conflicts with it for `'w` (caller).
    Some(unsafe { Q::fetch(Q::init(cx.storages()), id) })
}

/// The iterator of [`Defer::query`] and [`Defer::query_mut`]: the handle
/// and the item of query `Q` of every live entity holding the components
/// `Q` names, in id order.
///
/// ```
/// use ecs::{Entity, QueryIter};
///
/// pub struct Position(pub f32);
/// pub struct Frozen;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; Frozen: tag; }
///         systems {}
///     }
/// }
///
/// let mut world = World::new();
/// let (a, _) = world.step(|p| (p.spawn((Position(1.0), Frozen)).unwrap(), p.spawn((Position(2.0),)).unwrap()));
/// world.step(|p| {
///     let frozen: QueryIter<'_, World, (&Position, &Frozen)> = p.query::<(&Position, &Frozen)>();
///     let found: Vec<(Entity, f32)> = frozen.map(|(e, (pos, _))| (e, pos.0)).collect();
///     assert_eq!(found, [(a, 1.0)]);
/// });
/// ```
pub struct QueryIter<'w, Cx: ContextDecl, Q: Query<Cx, Exclusive<Cx>>> {
    fetch: Q::Fetch,
    runs: Runs<'w, Cx::Bits>,
    /// The ids of the current run not yet visited.
    run: core::ops::Range<u32>,
    /// The items borrow the storages mutably, for `'w`.
    _storages: PhantomData<&'w mut Cx::Storages>,
}

impl<'w, Cx: ContextDecl, Q: Query<Cx, Exclusive<Cx>>> QueryIter<'w, Cx, Q> {
    /// The iterator over `cx`'s entities.
    ///
    /// # Safety
    /// While the iterator and its items live (`'w`), nothing else writes
    /// the components `Q` borrows, nor reads those `Q` borrows mutably.
    unsafe fn new(cx: &'w Context<Cx>) -> Self {
        const {
            assert!(
                is_valid(Q::ACCESS),
                "a query may not borrow the same component twice when one borrow is mutable"
            )
        };
        QueryIter {
            fetch: Q::init(cx.storages()),
            runs: Runs::new(cx.entities(), signature::<Cx>(Q::ACCESS)),
            run: 0..0,
            _storages: PhantomData,
        }
    }
}

impl<'w, Cx: ContextDecl, Q: Query<Cx, Exclusive<Cx>>> Iterator for QueryIter<'w, Cx, Q> {
    type Item = (Entity, Q::Item<'w>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let id = match self.run.next() {
            Some(id) => id,
            None => {
                self.run = self.runs.next()?;
                self.run.next()?
            }
        };
        let id = EntityId(id);
        // A live entity (`Runs`), outside a refresh: its slot is its own.
        let e = self.runs.entities.entity_with_id(id);
        // SAFETY: `fetch` comes from the storages, shared-borrowed for `'w`,
        // during which nothing else conflicts with `Q` (`new`'s contract);
        // `id` is a live entity whose set holds `Q`'s components (`Runs`),
        // so the storages hold those values; `Q` is conflict-free (`new`
        // checks it), and each id is visited once (runs ascend and do not
        // overlap), so items of distinct calls borrow distinct values.
        Some((e, unsafe { Q::fetch(self.fetch, id) }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let rest = self.runs.bits.len() - self.runs.next;
        (self.run.len(), Some(self.run.len() + rest))
    }
}

// Once the runs are exhausted, `next` keeps returning `None`.
impl<Cx: ContextDecl, Q: Query<Cx, Exclusive<Cx>>> core::iter::FusedIterator for QueryIter<'_, Cx, Q> {}
