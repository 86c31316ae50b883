//! Prepared queries: a query outside systems that remembers which ids it
//! matched, like bevy's `QueryState` and hecs's `PreparedQuery`.
//!
//! [`Defer::for_each`] tests every entity's component set at each call;
//! a [`PreparedQuery`] keeps the runs of ids it matched with the version of
//! the context's entity table they came from ([`Entities::version`]), and
//! matches again only when that version changed: an entity created,
//! killed, reclaimed or moved to another id, or a component added or
//! removed. Between such changes (a loop of steps that only update
//! values), a call costs the walk of the runs plus one comparison.
//!
//! [`Entities::version`]: crate::Entities

use crate::context::Context;
use crate::decl::ContextDecl;
use crate::proxy::world_query::{signature, walk_run, Exclusive, Runs};
use crate::proxy::Defer;
use crate::query::{is_valid, Query};
use core::marker::PhantomData;
use core::ops::Range;

/// A query run from the step proxy (or a deferred function) that keeps the
/// ids it matched from call to call, matching again only when entities or
/// their components changed: bevy's `QueryState`, hecs's `PreparedQuery`.
///
/// Make it once, keep it beside the context, and pass it the proxy each
/// time: [`for_each`](Self::for_each) visits exactly the entities
/// [`Defer::for_each`] visits for the same `Q`, in the same order, and
/// checks access the same way (`Q` is any query of the context's
/// components, whose borrows must not conflict). The first call, and the
/// first after a change of entities (created, killed, reclaimed, moved by a
/// refresh, or a component added or removed), tests each entity's
/// component set as [`Defer::for_each`] does and remembers the runs of ids
/// that match; the calls in between only walk those runs. A query made for
/// one context and used with another matches again: the version it keeps
/// names the context's entity table.
///
/// ```
/// use ecs::PreparedQuery;
/// # #[derive(Debug, PartialEq)]
/// pub struct Position(pub f32);
/// pub struct Velocity(pub f32);
///
/// ecs::declare_context! {
///     pub context World { components { Position, Velocity: contiguous; } systems {} }
/// }
///
/// let mut world = World::new();
/// let (a, b) = world.step(|p| (p.spawn((Position(0.0), Velocity(1.0))).unwrap(), p.spawn((Position(5.0),)).unwrap()));
/// // Made once, kept between steps.
/// let mut moving = PreparedQuery::<World, (&mut Position, &Velocity)>::new();
/// for _ in 0..3 {
///     world.step(|p| moving.for_each(p, |(x, v)| x.0 += v.0));
/// }
/// world.step(|p| {
///     assert_eq!(p.get::<Position>(a), Some(&Position(3.0)));
///     assert_eq!(p.get::<Position>(b), Some(&Position(5.0)));
///     // A change of components is seen at the next call.
///     p.add(b, Velocity(10.0)).unwrap();
///     moving.for_each(p, |(x, v)| x.0 += v.0);
///     assert_eq!(p.get::<Position>(b), Some(&Position(15.0)));
/// });
/// ```
pub struct PreparedQuery<Cx: ContextDecl, Q> {
    /// The runs of ids `Q` matched, in increasing order, when the entity
    /// table had version `version`; empty with `None`, before the first
    /// call.
    runs: Vec<Range<u32>>,
    version: Option<(u64, u64)>,
    _query: PhantomData<fn() -> (Cx, Q)>,
}

impl<Cx: ContextDecl, Q> Default for PreparedQuery<Cx, Q> {
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            version: None,
            _query: PhantomData,
        }
    }
}

impl<Cx: ContextDecl, Q> core::fmt::Debug for PreparedQuery<Cx, Q> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PreparedQuery")
            .field("runs", &self.runs)
            .field("version", &self.version)
            .finish()
    }
}

impl<Cx: ContextDecl, Q: Query<Cx, Exclusive<Cx>>> PreparedQuery<Cx, Q> {
    /// A prepared query that has matched nothing yet: its first
    /// [`for_each`](Self::for_each) matches.
    ///
    /// # Panics
    /// Fails to compile (constant evaluation, under `cargo build`) when `Q`
    /// borrows one component twice with one borrow mutable.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Position: contiguous; } systems {} }
    /// # }
    /// use ecs::PreparedQuery;
    ///
    /// let mut world = World::new();
    /// world.step(|p| p.spawn((Position(2.0),)).map(drop)).unwrap();
    /// let mut positions = PreparedQuery::<World, &Position>::new();
    /// let mut sum = 0.0;
    /// world.step(|p| positions.for_each(p, |x| sum += x.0));
    /// assert_eq!(sum, 2.0);
    /// ```
    pub fn new() -> Self {
        const {
            assert!(
                is_valid(Q::ACCESS),
                "a query may not borrow the same component twice when one borrow is mutable"
            )
        };
        Self::default()
    }

    /// Calls `f` with the item of `Q` for every live entity of `p`'s
    /// context that holds every component `Q` names, in id order (killed
    /// entities are skipped), as [`Defer::for_each`] does; matches again
    /// first if the context's entities changed since the last call.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Position: contiguous; } systems {} }
    /// # }
    /// use ecs::PreparedQuery;
    ///
    /// let mut world = World::new();
    /// let mut positions = PreparedQuery::<World, &mut Position>::new();
    /// for x in [1.0, 2.0] {
    ///     world.step(|p| {
    ///         p.spawn((Position(x),)).unwrap();
    ///         positions.for_each(p, |pos| pos.0 *= 10.0); // the new entity is matched
    ///     });
    /// }
    /// let mut all = Vec::new();
    /// world.step(|p| positions.for_each(p, |pos| all.push(pos.0)));
    /// assert_eq!(all, [100.0, 20.0]);
    /// ```
    #[inline]
    pub fn for_each(&mut self, p: &mut Defer<'_, Cx>, mut f: impl FnMut(Q::Item<'_>)) {
        const {
            assert!(
                is_valid(Q::ACCESS),
                "a query may not borrow the same component twice when one borrow is mutable"
            )
        };
        let cx: &Context<Cx> = p.cx;
        let version = cx.entities().version();
        if self.version != Some(version) {
            self.rematch(cx, version);
        }
        let fetch = Q::init(cx.storages());
        for run in &self.runs {
            // SAFETY: `fetch` comes from the storages, shared-borrowed here
            // while `&mut p` keeps every other access out; the runs were
            // matched (`Runs`: live entities whose component sets hold
            // `Q`'s components) when the entity table had the version it
            // has now, in this same table (a version names its table), and
            // every creation, kill, reclamation, move or change of a
            // component set bumps the version, so every id of the runs is
            // still such an entity and the storages hold its values (the
            // bitset's invariant); `Q` is conflict-free (checked above);
            // `f` cannot reach the context (`p` is borrowed for the call),
            // only its items.
            unsafe { walk_run::<Cx, Q>(fetch, run.clone(), Q::BLOCKS, &mut f) };
        }
    }

    /// Matches the entities of `cx` again, for the entity table's `version`.
    #[inline(never)]
    fn rematch(&mut self, cx: &Context<Cx>, version: (u64, u64)) {
        // Forgotten first: if anything below panicked, the next call matches
        // again.
        self.version = None;
        self.runs.clear();
        self.runs.extend(Runs::new(cx.entities(), signature::<Cx>(Q::ACCESS)));
        self.version = Some(version);
    }
}
