//! The columns proxy: what a subtask of a column step (a system declared
//! `kind: columns`) may do. It sees no entity: only slices of whole columns,
//! one per run of ids, its output, and its ancestors' state and outputs.

use crate::access::DependsOn;
use crate::column_query::ColumnQuery;
use crate::context::Context;
use crate::decl::{ContextDecl, SystemOf};
use crate::handle::EntityId;
use crate::query::is_valid;
use crate::schedule::subtask_range;
use crate::sparse_set::SparseSet;
use core::marker::PhantomData;
use core::ops::Range;

/// The proxy of one subtask of column step `S`: the step's columns as
/// slices, run by run.
///
/// # Which values, and the dead slots it never shows
/// A column (`contiguous` storage) is a buffer indexed by entity id. Live
/// entities hold the ids `0..len` (reclamation keeps them packed), but a
/// slot of that buffer holds a value only when its entity holds the
/// component: the slot of an entity that lacks it is uninitialised memory,
/// and the slots past `len` are uninitialised or hold values no entity
/// claims (left by a spawn that panicked). An entity killed in this step
/// (`p.kill(e)`) still has its values until the refresh reclaims it.
///
/// So a step never gets a column whole: it gets the **maximal runs of
/// consecutive ids whose entities are alive and hold every component the
/// step lists** (exactly the entities an entity system with the same lists
/// would process), and for each run one slice per component of its query,
/// element `k` of each slice being the value of the run's `k`-th id. In the
/// common case, where every entity holds the components, that is one run,
/// `0..len`, split between subtasks; an entity lacking a component or
/// killed this step ends a run, and the next run starts after it. A
/// system's `data.kill(id)` is carried out at the refresh, so until then the
/// entity is alive, and steps that run after that system still see it.
///
/// # Subtasks
/// With a parallelism strategy that splits, each subtask gets its own part:
/// when the entities are one run, nearly equal parts of it; otherwise
/// nearly equal parts of the id space, each with the runs inside it. The
/// parts never overlap, so the subtasks' mutable slices never alias.
///
/// ```
/// use ecs::{ColumnSystem, Columns};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// pub struct Position(pub f32);
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// pub struct Velocity(pub f32);
///
/// #[derive(Default)]
/// pub struct Integrate;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position, Velocity: contiguous; }
///         systems {
///             integrate: Integrate { kind: columns, read: [Velocity], write: [Position], output: usize }
///         }
///     }
/// }
///
/// impl ColumnSystem<World, f32> for Integrate {
///     fn process(&self, columns: &mut Columns<'_, World, Self>, dt: &f32) {
///         let mut runs = 0;
///         columns.for_each_run::<(&mut Position, &Velocity)>(|(p, v)| {
///             for (p, v) in p.iter_mut().zip(v) {
///                 p.0 += v.0 * dt;
///             }
///             runs += 1;
///         });
///         *columns.output() += runs;
///     }
/// }
///
/// let mut world = World::new();
/// let [a, b, c] = world.step(|p| {
///     [
///         p.spawn((Position(0.0), Velocity(1.0))).unwrap(),
///         p.spawn((Position(0.0),)).unwrap(), // no velocity: a hole
///         p.spawn((Position(0.0), Velocity(2.0))).unwrap(),
///     ]
/// });
/// world.step(|p| p.run_all(&0.5));
/// world.step(|p| {
///     assert_eq!(p.get::<Position>(a), Some(&Position(0.5)));
///     assert_eq!(p.get::<Position>(b), Some(&Position(0.0)));
///     assert_eq!(p.get::<Position>(c), Some(&Position(1.0)));
/// });
/// // Two runs: the entity without a velocity splits the column.
/// assert_eq!(world.outputs::<Integrate>().iter().sum::<usize>(), 2);
/// ```
pub struct Columns<'a, Cx: ContextDecl, S: SystemOf<Cx>> {
    cx: &'a Context<Cx>,
    set: &'a SparseSet,
    subtask: usize,
    subtasks: usize,
    output: &'a mut S::Output,
    _system: PhantomData<fn(&S)>,
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> Columns<'a, Cx, S> {
    /// The proxy of subtask `subtask` of `subtasks` over the ids of `set`.
    ///
    /// # Safety
    /// - every id in `set` is distinct and holds every component of `S`'s
    ///   signature for `'a`, during which nothing adds or removes components;
    /// - for `'a`, the only code touching components `S` writes, for the
    ///   ids of this subtask's part (see the type's documentation), is this
    ///   proxy; other subtasks of `S` get the other parts of the same `set`,
    ///   split into the same `subtasks`;
    /// - systems running at the same time as `S` are compatible with it.
    pub(crate) unsafe fn new(
        cx: &'a Context<Cx>,
        set: &'a SparseSet,
        subtask: usize,
        subtasks: usize,
        output: &'a mut S::Output,
    ) -> Self {
        Columns {
            cx,
            set,
            subtask,
            subtasks,
            output,
            _system: PhantomData,
        }
    }

    /// Calls `f` with the slices of column query `Q` for each run of ids of
    /// this subtask, in id order (see the type's documentation for which
    /// ids): `&mut C` gives `&mut [C]`, `&C` gives `&[C]`, a tuple gives a
    /// tuple of slices of equal length. A plain loop over them is one the
    /// compiler can vectorise, since two slices from one call never alias.
    ///
    /// # Panics
    /// Fails to compile (constant evaluation) when `Q` borrows one
    /// component twice with one borrow mutable, or names a component whose
    /// storage does not lay values side by side by id (only `contiguous`,
    /// or a custom storage whose `Column::LINEAR` is true, does).
    ///
    /// # Examples
    /// ```
    /// # use ecs::{ColumnSystem, Columns};
    /// # pub struct Mass(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Mass: contiguous; }
    /// #         systems { weigh: Weigh { kind: columns, read: [Mass], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl ColumnSystem<World> for Weigh {
    ///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
    ///         let mut n = 0;
    ///         columns.for_each_run::<&Mass>(|masses| n += masses.len());
    ///         *columns.output() = n;
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Mass(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Weigh>().iter().sum::<usize>(), 5);
    /// ```
    #[inline]
    pub fn for_each_run<Q: ColumnQuery<Cx, S>>(&mut self, mut f: impl FnMut(Q::Slices<'_>)) {
        let () = ValidColumns::<Cx, S, Q>::OK;
        let fetch = Q::init(self.cx.storages());
        let mut visit = |ids: Range<u32>| {
            // SAFETY: `Q` is `LINEAR` and conflict-free (`ValidColumns`);
            // `ids` is a non-empty run of this subtask's part of the set
            // (`runs`), so every id holds the signature, which covers `Q`
            // (its trait bounds); other subtasks' parts and runs do not
            // overlap it, no concurrent system conflicts, the slices live
            // for one call of `f`, which cannot reach this proxy, and the
            // storages stay shared-borrowed for `'a`.
            f(unsafe { Q::slices(fetch, EntityId(ids.start), ids.len()) });
        };
        runs(
            self.set,
            self.cx.entities().id_bound(),
            self.subtask,
            self.subtasks,
            &mut visit,
        );
    }

    /// Number of ids the step covers, every subtask together: the values in
    /// each of its columns that it processes.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{ColumnSystem, Columns};
    /// # pub struct Mass(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Mass: contiguous; }
    /// #         systems { weigh: Weigh { kind: columns, read: [Mass], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl ColumnSystem<World> for Weigh {
    ///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
    ///         *columns.output() = columns.len();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Mass(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Weigh>(), [5, 5, 5]);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether the step covers no id.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{ColumnSystem, Columns};
    /// # pub struct Mass(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Mass: contiguous; }
    /// #         systems { weigh: Weigh { kind: columns, read: [Mass], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl ColumnSystem<World> for Weigh {
    ///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
    ///         *columns.output() = usize::from(columns.is_empty());
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Mass(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Weigh>(), [0, 0, 0]);
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// This subtask's index, from 0.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{ColumnSystem, Columns};
    /// # pub struct Mass(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Mass: contiguous; }
    /// #         systems { weigh: Weigh { kind: columns, read: [Mass], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl ColumnSystem<World> for Weigh {
    ///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
    ///         *columns.output() = columns.subtask_index();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Mass(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Weigh>(), [0, 1, 2]);
    /// ```
    #[inline]
    pub fn subtask_index(&self) -> usize {
        self.subtask
    }

    /// Number of subtasks the step runs as this time.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{ColumnSystem, Columns};
    /// # pub struct Mass(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Mass: contiguous; }
    /// #         systems { weigh: Weigh { kind: columns, read: [Mass], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl ColumnSystem<World> for Weigh {
    ///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
    ///         *columns.output() = columns.subtask_count();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Mass(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Weigh>(), [3, 3, 3]);
    /// ```
    #[inline]
    pub fn subtask_count(&self) -> usize {
        self.subtasks
    }

    /// This subtask's output.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{ColumnSystem, Columns};
    /// # pub struct Mass(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Mass: contiguous; }
    /// #         systems { weigh: Weigh { kind: columns, read: [Mass], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl ColumnSystem<World> for Weigh {
    ///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
    ///         let mut n = 0;
    ///         columns.for_each_run::<&Mass>(|masses| n += masses.len());
    ///         *columns.output() += n;
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Mass(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Weigh>().iter().sum::<usize>(), 5);
    /// ```
    #[inline]
    pub fn output(&mut self) -> &mut S::Output {
        self.output
    }

    /// The state of system `T`, an ancestor of this one.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{ColumnSystem, Columns, Data, System};
    /// # pub struct Mass(pub f32);
    /// /// Counts the entities; its state is a scale.
    /// pub struct Scale(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Mass: contiguous; }
    /// #         systems {
    /// #             scale: Scale { read: [Mass], output: usize }
    /// #             weigh: Weigh { kind: columns, read: [Mass], output: f32, after: [scale] }
    /// #         }
    /// #     }
    /// # }
    /// impl System<World> for Scale {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.entity_count();
    ///     }
    /// }
    /// impl ColumnSystem<World> for Weigh {
    ///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
    ///         let mut sum = 0.0;
    ///         columns.for_each_run::<&Mass>(|masses| sum += masses.iter().map(|m| m.0).sum::<f32>());
    ///         *columns.output() = sum * columns.system::<Scale>().0;
    ///     }
    /// }
    /// let mut world = World::with_systems(WorldSystems { scale: Scale(10.0), weigh: Weigh });
    /// world.step(|p| {
    ///     p.spawn((Mass(1.0),)).unwrap();
    ///     p.spawn((Mass(2.0),)).unwrap();
    ///     p.run_all(&());
    /// });
    /// assert_eq!(world.outputs::<Weigh>(), [30.0]);
    /// ```
    pub fn system<T: SystemOf<Cx>>(&self) -> &'a T
    where
        S: DependsOn<Cx, T>,
    {
        // SAFETY: `T` is an ancestor of `S` (`DependsOn`'s contract), so its
        // run finished before this one began, and it runs again only in a
        // later `run_selected` or `run_all`, which the returned reference cannot reach
        // (as in `View::system`).
        unsafe { T::slot(self.cx.systems()).read().0 }
    }

    /// The outputs of the last run of system `T`, an ancestor of this one,
    /// one per subtask.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{ColumnSystem, Columns, Data, System};
    /// # pub struct Mass(pub f32);
    /// /// Counts the entities; its state is a scale.
    /// pub struct Scale(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Mass: contiguous; }
    /// #         systems {
    /// #             scale: Scale { read: [Mass], output: usize }
    /// #             weigh: Weigh { kind: columns, read: [Mass], output: f32, after: [scale] }
    /// #         }
    /// #     }
    /// # }
    /// impl System<World> for Scale {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.entity_count();
    ///     }
    /// }
    /// impl ColumnSystem<World> for Weigh {
    ///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
    ///         *columns.output() = columns.outputs::<Scale>().iter().sum::<usize>() as f32;
    ///     }
    /// }
    /// let mut world = World::with_systems(WorldSystems { scale: Scale(10.0), weigh: Weigh });
    /// world.step(|p| {
    ///     p.spawn((Mass(1.0),)).unwrap();
    ///     p.spawn((Mass(2.0),)).unwrap();
    ///     p.run_all(&());
    /// });
    /// assert_eq!(world.outputs::<Weigh>(), [2.0]);
    /// ```
    pub fn outputs<T: SystemOf<Cx>>(&self) -> &'a [T::Output]
    where
        S: DependsOn<Cx, T>,
    {
        // SAFETY: as in `system`.
        unsafe { T::slot(self.cx.systems()).read().1 }
    }
}

/// Calls `visit` with each non-empty run of consecutive ids of `set` in
/// subtask `subtask`'s part (of `subtasks`), in id order: a part of the one
/// run when the set is one, otherwise the runs within a part of the ids
/// `0..bound` (every member is below `bound`). The parts of distinct
/// subtasks are disjoint. Not generic, so compiled once.
fn runs(set: &SparseSet, bound: usize, subtask: usize, subtasks: usize, visit: &mut dyn FnMut(Range<u32>)) {
    match set.run_start() {
        Some(first) => {
            let part = subtask_range(set.len(), subtasks, subtask);
            if !part.is_empty() {
                visit(first.0 + part.start as u32..first.0 + part.end as u32);
            }
        }
        None => set.runs_within(subtask_range(bound, subtasks, subtask), visit),
    }
}

/// Whether column query `Q` of step `S` may hand out its slices.
struct ValidColumns<Cx, S, Q>(PhantomData<(Cx, S, Q)>);

impl<Cx: ContextDecl, S, Q: ColumnQuery<Cx, S>> ValidColumns<Cx, S, Q> {
    /// Fails to compile when `Q` borrows one component twice with one
    /// borrow mutable, or names a column that is not `LINEAR`.
    const OK: () = {
        assert!(
            is_valid(Q::ACCESS),
            "a column query may not borrow the same component twice when one borrow is mutable"
        );
        assert!(
            Q::LINEAR,
            "a column query takes slices of components stored `contiguous` (or in a custom storage whose `Column::LINEAR` is true)"
        );
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(set: &SparseSet, bound: usize, subtasks: usize) -> Vec<Vec<(u32, u32)>> {
        (0..subtasks)
            .map(|i| {
                let mut out = Vec::new();
                runs(set, bound, i, subtasks, &mut |r| out.push((r.start, r.end)));
                out
            })
            .collect()
    }

    #[test]
    fn one_run_splits_into_equal_parts() {
        let mut set = SparseSet::new();
        for i in 3..13 {
            set.insert(EntityId(i));
        }
        assert_eq!(collect(&set, 13, 1), [vec![(3, 13)]]);
        assert_eq!(collect(&set, 13, 3), [vec![(3, 7)], vec![(7, 10)], vec![(10, 13)]]);
        // More subtasks than ids: the extra ones get nothing.
        let mut one = SparseSet::new();
        one.insert(EntityId(0));
        assert_eq!(collect(&one, 1, 2), [vec![(0, 1)], vec![]]);
    }

    #[test]
    fn holes_end_runs_in_any_order() {
        let mut set = SparseSet::new();
        // Inserted out of order: not ascending, not a run.
        for i in [9, 0, 1, 2, 5, 6, 8] {
            set.insert(EntityId(i));
        }
        assert_eq!(collect(&set, 10, 1), [vec![(0, 3), (5, 7), (8, 10)]]);
        // Two parts of the ids (0, 10): (0, 5) and (5, 10).
        assert_eq!(collect(&set, 10, 2), [vec![(0, 3)], vec![(5, 7), (8, 10)]]);
        assert!(collect(&SparseSet::new(), 0, 2).iter().all(Vec::is_empty));
    }
}
