//! [`Lookup`]: a system's neighbour lookups with the columns fetched once.

use crate::context::Context;
use crate::decl::{ContextDecl, SystemOf};
use crate::handle::EntityId;
use crate::proxy::{Data, View};
use crate::query::{Query, QueryCode, SharedQuery};
use crate::sparse_set::SparseSet;
use core::marker::PhantomData;

/// Looks up read-only components `Q` of the entities system `S` processes,
/// by id, as [`View::lookup`] does, with what it needs fetched once: the
/// columns' places and the system's entities. Made by
/// [`View::prepare_lookup`], for one subtask; hecs's `PreparedView`.
///
/// It is `Copy`: copied into a local inside a loop, it stays in registers.
/// A lookup through the view reads the columns' places through it on every
/// call, and reads them again after each call the compiler cannot see into
/// (such as pushing to the output, which might have changed them, as far as
/// it can tell).
///
/// ```
/// use ecs::{Data, EntityId, System};
/// # pub struct Position(pub f32);
/// # pub struct Mass(pub f32);
/// # #[derive(Default)]
/// # pub struct Pull;
/// ecs::declare_context! {
///     pub context World {
///         components { Position, Mass: contiguous; }
///         systems { pull: Pull { read: [Position, Mass], output: Vec<f32> } }
///     }
/// }
///
/// // The argument: for each entity, the ids of its neighbours (found
/// // through a spatial grid, say).
/// impl System<World, Vec<Vec<EntityId>>> for Pull {
///     fn process(&self, data: &mut Data<'_, World, Self>, near: &Vec<Vec<EntityId>>) {
///         let others = data.prepare_lookup::<(&Position, &Mass)>();
///         data.for_entities::<(EntityId, &Position)>(|view, (id, p)| {
///             let others = others; // a local copy, kept in registers
///             let mut pull = 0.0;
///             for &other in &near[id.index()] {
///                 if let Some((q, m)) = others.get(other) {
///                     pull += m.0 * (q.0 - p.0);
///                 }
///             }
///             view.output().push(pull);
///         });
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let a = p.spawn((Position(0.0), Mass(1.0))).unwrap();
///     let b = p.spawn((Position(2.0), Mass(3.0))).unwrap();
///     // Not processed by `pull`: it has no mass.
///     let c = p.spawn((Position(5.0),)).unwrap();
///     let [a, b, c] = [a, b, c].map(|e| p.id_of(e).unwrap());
///     let near = vec![vec![b, c], vec![a]];
///     p.run_all(&near);
///     assert_eq!(p.outputs::<Pull>()[0], [6.0, -2.0]);
/// });
/// ```
pub struct Lookup<'a, Cx: ContextDecl, S: SystemOf<Cx>, Q: SharedQuery<Cx, S>> {
    /// The columns' fetch states, valid for `'a`.
    fetch: Q::Fetch,
    members: Members<'a>,
    /// The context's storages are shared-borrowed for `'a`.
    _borrow: PhantomData<Borrow<'a, Cx, S>>,
}

/// What a [`Lookup`] holds on to: the context, shared, for `'a`, on behalf
/// of system `S`.
type Borrow<'a, Cx, S> = (&'a Context<Cx>, fn() -> S);

/// The entities a system processes (below a bound, for
/// [`Lookup::below`]), as a membership test.
#[derive(Clone, Copy)]
enum Members<'a> {
    /// The ids `start..end`.
    Run { start: u32, end: u32 },
    /// The ids of the set below `end`.
    Set { set: &'a SparseSet, end: u32 },
}

impl<Cx: ContextDecl, S: SystemOf<Cx>, Q: SharedQuery<Cx, S>> Clone for Lookup<'_, Cx, S, Q> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<Cx: ContextDecl, S: SystemOf<Cx>, Q: SharedQuery<Cx, S>> Copy for Lookup<'_, Cx, S, Q> {}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>, Q: SharedQuery<Cx, S>> Lookup<'a, Cx, S, Q> {
    /// The components `Q` of `id` if system `S` processes it (in this
    /// subtask or another); `None` for other entities.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Mass(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Probe;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position, Mass: contiguous; }
    /// #         systems { probe: Probe { read: [Position, Mass], output: Vec<Option<f32>> } }
    /// #     }
    /// # }
    /// impl System<World, [EntityId; 2]> for Probe {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, ids: &[EntityId; 2]) {
    ///         let positions = data.prepare_lookup::<&Position>();
    ///         *data.output() = ids.iter().map(|&id| positions.get(id).map(|p| p.0)).collect();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let heavy = p.spawn((Position(1.0), Mass(2.0))).unwrap();
    ///     let light = p.spawn((Position(3.0),)).unwrap(); // no mass: not `probe`'s
    ///     let ids = [heavy, light].map(|e| p.id_of(e).unwrap());
    ///     p.run_all(&ids);
    ///     assert_eq!(p.outputs::<Probe>()[0], [Some(1.0), None]);
    /// });
    /// ```
    #[inline(always)]
    pub fn get(&self, id: EntityId) -> Option<Q::Item<'a>> {
        let member = match self.members {
            // Two comparisons, the bound first: behind [`below`]
            // (Self::below), whose bound is the caller's own id, the first
            // is the comparison of ids the caller would make anyway, and
            // the second runs only for ids below it. (Two variants: the
            // compiler makes one copy of a loop per variant, so the test is
            // not a branch on the variant per call.)
            Members::Run { start, end } => id.0 < end && id.0 >= start,
            Members::Set { set, end } => id.0 < end && set.contains(id),
        };
        if !member {
            return None;
        }
        // SAFETY: `id` is an entity of the system, so it holds the system's
        // signature for `'a` (`DataProxy::new`'s caller), which covers every
        // component `Q` may name (its trait bounds); `Q` only reads
        // components the system does not write (`SharedQuery`), which no
        // concurrent system writes either; `fetch` was made from the
        // storages, which stay shared-borrowed for `'a`.
        Some(unsafe { Q::fetch(self.fetch, id) })
    }

    /// This lookup restricted to the entities with ids below `id`: `get`
    /// of the result is `get` of this one for ids below `id`, `None` for
    /// the others.
    ///
    /// For loops that visit each pair of entities once, an entity looking
    /// up only neighbours with smaller ids: made once per entity, it folds
    /// the comparison of ids into the membership test, so a neighbour with
    /// a larger id costs one comparison, as in a loop over plain arrays.
    ///
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Pairs;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems { pairs: Pairs { read: [Position], output: Vec<(EntityId, EntityId)> } }
    ///     }
    /// }
    ///
    /// // Every pair of entities closer than 1, once.
    /// impl System<World> for Pairs {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let all = data.all_entities();
    ///         let others = data.prepare_lookup::<&Position>();
    ///         data.for_entities::<(EntityId, &Position)>(|view, (id, p)| {
    ///             let below = others.below(id);
    ///             for &other in all {
    ///                 if below.get(other).is_some_and(|q| (q.0 - p.0).abs() < 1.0) {
    ///                     view.output().push((id, other));
    ///                 }
    ///             }
    ///         });
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let e = [0.0, 0.5, 3.0].map(|x| p.spawn((Position(x),)).unwrap());
    ///     let [a, b, _] = e.map(|e| p.id_of(e).unwrap());
    ///     p.run_all(&());
    ///     assert_eq!(p.outputs::<Pairs>()[0], [(b, a)]);
    /// });
    /// ```
    #[inline(always)]
    pub fn below(&self, id: EntityId) -> Self {
        let members = match self.members {
            Members::Run { start, end } => Members::Run {
                start,
                end: end.min(id.0),
            },
            Members::Set { set, end } => Members::Set {
                set,
                end: end.min(id.0),
            },
        };
        Lookup { members, ..*self }
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> View<'a, Cx, S> {
    /// A [`Lookup`] of components `Q` of the entities this system
    /// processes: [`lookup`](Self::lookup) with the columns and the
    /// membership fetched once, for loops over neighbours.
    ///
    /// See [`Lookup`] for an example.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Mass(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Probe;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position, Mass: contiguous; }
    /// #         systems { probe: Probe { read: [Position, Mass], output: Vec<Option<f32>> } }
    /// #     }
    /// # }
    /// impl System<World, [EntityId; 2]> for Probe {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, ids: &[EntityId; 2]) {
    ///         let positions = data.prepare_lookup::<&Position>();
    ///         *data.output() = ids.iter().map(|&id| positions.get(id).map(|p| p.0)).collect();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let heavy = p.spawn((Position(1.0), Mass(2.0))).unwrap();
    ///     let light = p.spawn((Position(3.0),)).unwrap(); // no mass: not `probe`'s
    ///     let ids = [heavy, light].map(|e| p.id_of(e).unwrap());
    ///     p.run_all(&ids);
    ///     assert_eq!(p.outputs::<Probe>()[0], [Some(1.0), None]);
    /// });
    /// ```
    #[inline]
    pub fn prepare_lookup<Q: SharedQuery<Cx, S>>(&self) -> Lookup<'a, Cx, S, Q> {
        let (run, set, cx) = self.members();
        let members = match run {
            Some(run) => Members::Run {
                start: run.start,
                end: run.end,
            },
            None => Members::Set { set, end: u32::MAX },
        };
        Lookup {
            fetch: <Q as QueryCode<Cx>>::init(cx.storages()),
            members,
            _borrow: PhantomData,
        }
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> Data<'a, Cx, S> {
    /// [`for_entities`](Data::for_entities) with a [`Lookup`] of
    /// components `L` passed to `f` beside each item: what
    /// `let l = data.prepare_lookup::<L>()` before the walk gives, with
    /// the membership test settled once for the walk instead of once per
    /// entity.
    ///
    /// A lookup tests membership one way when the system's entities are
    /// one run of ids from 0 (one comparison), another for a run from
    /// elsewhere (two), and a third when they are not a run; a lookup made
    /// before the walk leaves the compiler to choose the way inside the
    /// loop, per entity, and its choice may cost one instruction or more
    /// per neighbour. Here the walk is compiled once per way, each copy
    /// handing `f` a lookup whose way is a constant. Mark `f`
    /// `#[inline(always)]`, so that the compiler puts it inside each copy
    /// rather than calling it from three places, where the way is not a
    /// constant any more (particles' collision at 100 000 particles, one
    /// thread: 40.1M instructions per step with, 47.3M without, 43.8M
    /// for `prepare_lookup` before `for_entities`).
    ///
    /// # Panics
    /// As [`for_entities`](Data::for_entities).
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Pairs;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems { pairs: Pairs { read: [Position], output: Vec<(EntityId, EntityId)> } }
    ///     }
    /// }
    ///
    /// // Every pair of entities closer than 1, once.
    /// impl System<World> for Pairs {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let all = data.all_entities();
    ///         data.for_entities_with_lookup::<(EntityId, &Position), &Position>(
    ///             #[inline(always)]
    ///             |view, (id, p), others| {
    ///                 let below = others.below(id);
    ///                 for &other in all {
    ///                     if below.get(other).is_some_and(|q| (q.0 - p.0).abs() < 1.0) {
    ///                         view.output().push((id, other));
    ///                     }
    ///                 }
    ///             },
    ///         );
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let e = [0.0, 0.5, 3.0].map(|x| p.spawn((Position(x),)).unwrap());
    ///     let [a, b, _] = e.map(|e| p.id_of(e).unwrap());
    ///     p.run_all(&());
    ///     assert_eq!(p.outputs::<Pairs>()[0], [(b, a)]);
    /// });
    /// ```
    #[inline]
    pub fn for_entities_with_lookup<Q: Query<Cx, S>, L: SharedQuery<Cx, S>>(
        &mut self,
        mut f: impl FnMut(&mut View<'a, Cx, S>, Q::Item<'_>, Lookup<'a, Cx, S, L>),
    ) {
        let lookup = self.prepare_lookup::<L>();
        match lookup.members {
            // Ids from 0 (every entity, say): the test against the start
            // folds away, leaving the one comparison with the bound.
            Members::Run { start: 0, end } => self.for_entities::<Q>(
                #[inline(always)]
                |view, item| {
                    let members = Members::Run { start: 0, end };
                    f(view, item, Lookup { members, ..lookup })
                },
            ),
            Members::Run { start, end } => self.for_entities::<Q>(
                #[inline(always)]
                |view, item| {
                    let members = Members::Run { start, end };
                    f(view, item, Lookup { members, ..lookup })
                },
            ),
            Members::Set { set, end } => self.for_entities::<Q>(
                #[inline(always)]
                |view, item| {
                    let members = Members::Set { set, end };
                    f(view, item, Lookup { members, ..lookup })
                },
            ),
        }
    }
}
