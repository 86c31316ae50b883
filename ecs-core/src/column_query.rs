//! Column queries: what a column step (a system declared `kind: columns`)
//! receives for each run of ids, as slices of whole columns.
//!
//! A column query is `&C` (a shared slice of component `C`), `&mut C` (a
//! mutable slice) or a tuple of those. As for entity queries, each `&C`
//! needs the system's read right on `C` and each `&mut C` its write right,
//! checked by trait bounds; a tuple may not borrow one component twice if
//! one borrow is mutable, and every column must lay the values of
//! consecutive ids side by side ([`Column::LINEAR`]), both checked at
//! compile time by constants.

use crate::access::{CanRead, CanWrite};
use crate::decl::{Component, ContextDecl};
use crate::handle::EntityId;
use crate::query::{first, Access};
use crate::storage::Column;

/// A query that column step `S` of context `Cx` runs over runs of ids,
/// getting one slice per component for each run.
///
/// # Safety
/// `ACCESS` lists every component the slices borrow, with `true` for a
/// mutable borrow; `slices(fetch, start, len)` borrows nothing else, and of
/// those components only the values of ids `start..start + len`; `LINEAR`
/// is true only when every column it borrows is [`Column::LINEAR`].
///
/// ```
/// use ecs::traits::{ColumnQuery, ColumnStepOf, ContextDecl};
/// use ecs::{ColumnSystem, Columns};
/// # pub struct Position(pub f32);
/// # pub struct Velocity(pub f32);
/// # #[derive(Default)]
/// # pub struct Runs;
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position, Velocity: contiguous; }
/// #         systems { runs: Runs { kind: columns, read: [Position, Velocity], output: usize } }
/// #     }
/// # }
/// /// How many runs of ids column query `Q` gets, in any context.
/// fn runs<Cx: ContextDecl, S: ColumnStepOf<Cx>, Q: ColumnQuery<Cx, S>>(columns: &mut Columns<'_, Cx, S>) -> usize {
///     let mut n = 0;
///     columns.for_each_run::<Q>(|_| n += 1);
///     n
/// }
///
/// impl ColumnSystem<World> for Runs {
///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
///         *columns.output() = runs::<_, _, (&Position, &Velocity)>(columns);
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     p.spawn((Position(0.0), Velocity(1.0))).unwrap();
///     p.spawn((Position(0.0),)).unwrap(); // no velocity: ends a run
///     p.spawn((Position(0.0), Velocity(1.0))).unwrap();
///     p.run_all(&());
/// });
/// assert_eq!(world.outputs::<Runs>(), [2]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a column query step `{S}` can run",
    note = "a column query is `&Component`, `&mut Component`, or a tuple of those, over `contiguous` components the step declares"
)]
pub unsafe trait ColumnQuery<Cx: ContextDecl, S> {
    /// What each run yields: a slice per component, element `k` being the
    /// value of the run's `k`-th id.
    type Slices<'i>;
    /// What the query keeps between runs (the columns' fetch states).
    type Fetch: Copy;
    /// The components borrowed.
    const ACCESS: &'static [Access];
    /// Whether every column borrowed lays consecutive ids' values side by
    /// side, so that a run of ids is a slice.
    const LINEAR: bool;
    /// The state over these storages.
    // Hidden: called only by the runtime's column walks.
    #[doc(hidden)]
    fn init(storages: &Cx::Storages) -> Self::Fetch;
    /// The slices of the `len` ids from `start` on.
    ///
    /// # Safety
    /// `fetch` comes from `init` on storages that stay shared-borrowed for
    /// `'i`; `LINEAR` is true; `len >= 1` and every id of `start..start +
    /// len` holds every component of `ACCESS`; for `'i`, no other borrow of
    /// those values conflicts with these (no other mutable borrow, and no
    /// shared borrow of a component borrowed mutably).
    // Hidden: called only by the runtime's column walks.
    #[doc(hidden)]
    unsafe fn slices<'i>(fetch: Self::Fetch, start: EntityId, len: usize) -> Self::Slices<'i>;
}

// SAFETY: borrows only `C` of the run's ids, shared; `LINEAR` is the column's.
unsafe impl<Cx: ContextDecl, S: CanRead<Cx, C>, C: Component<Cx>> ColumnQuery<Cx, S> for &C {
    type Slices<'i> = &'i [C];
    type Fetch = <C::Column as Column>::Fetch;
    const ACCESS: &'static [Access] = &[Some((C::INDEX, false))];
    const LINEAR: bool = <C::Column as Column>::LINEAR;
    #[inline(always)]
    fn init(storages: &Cx::Storages) -> Self::Fetch {
        C::column(storages).fetch_state()
    }
    #[inline(always)]
    unsafe fn slices<'i>(fetch: Self::Fetch, start: EntityId, len: usize) -> &'i [C] {
        // SAFETY: `start` holds `C` and the state is live (caller).
        let first = unsafe { C::Column::fetch(fetch, start) };
        // SAFETY: the column is `LINEAR` and every id of the run holds `C`,
        // so the value of `start + k` is at `first.add(k)` for `k < len`:
        // `len` initialised, aligned `C`s in one allocation (values live in
        // `UnsafeCell`s, so the pointer may be shared). No mutable borrow of
        // them exists for `'i` (caller).
        unsafe { core::slice::from_raw_parts(first.as_ptr(), len) }
    }
}

// SAFETY: borrows only `C` of the run's ids, mutably; `LINEAR` is the column's.
unsafe impl<Cx: ContextDecl, S: CanWrite<Cx, C>, C: Component<Cx>> ColumnQuery<Cx, S> for &mut C {
    type Slices<'i> = &'i mut [C];
    type Fetch = <C::Column as Column>::Fetch;
    const ACCESS: &'static [Access] = &[Some((C::INDEX, true))];
    const LINEAR: bool = <C::Column as Column>::LINEAR;
    #[inline(always)]
    fn init(storages: &Cx::Storages) -> Self::Fetch {
        C::column(storages).fetch_state()
    }
    #[inline(always)]
    unsafe fn slices<'i>(fetch: Self::Fetch, start: EntityId, len: usize) -> &'i mut [C] {
        // SAFETY: `start` holds `C` and the state is live (caller).
        let first = unsafe { C::Column::fetch(fetch, start) };
        // SAFETY: as for `&C`: `len` initialised `C`s side by side, which
        // may be written through the column's pointer while it is shared
        // (`Column`'s contract); no other borrow of them exists for `'i`
        // (caller).
        unsafe { core::slice::from_raw_parts_mut(first.as_ptr(), len) }
    }
}

macro_rules! tuple_column_query {
    ($($Q:ident),+) => {
        // SAFETY: the tuple borrows exactly what its elements borrow; the
        // caller rules out conflicts between them by checking `ACCESS` with
        // `is_valid`, and `LINEAR` holds only when it holds for each.
        #[diagnostic::do_not_recommend]
        unsafe impl<Cx: ContextDecl, S, $($Q: ColumnQuery<Cx, S>),+> ColumnQuery<Cx, S> for ($($Q,)+) {
            type Slices<'i> = ($($Q::Slices<'i>,)+);
            type Fetch = ($($Q::Fetch,)+);
            const ACCESS: &'static [Access] = &[$(first($Q::ACCESS)),+];
            const LINEAR: bool = true $(&& $Q::LINEAR)+;
            #[inline(always)]
            fn init(storages: &Cx::Storages) -> Self::Fetch {
                ($($Q::init(storages),)+)
            }
            #[inline(always)]
            #[allow(non_snake_case, reason = "the fetch states are named after their query types")]
            unsafe fn slices<'i>(fetch: Self::Fetch, start: EntityId, len: usize) -> Self::Slices<'i> {
                let ($($Q,)+) = fetch;
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { <$Q as ColumnQuery<Cx, S>>::slices($Q, start, len) },)+)
            }
        }
    };
}

tuple_column_query!(A);
tuple_column_query!(A, B);
tuple_column_query!(A, B, C);
tuple_column_query!(A, B, C, D);
tuple_column_query!(A, B, C, D, E);
tuple_column_query!(A, B, C, D, E, F);
tuple_column_query!(A, B, C, D, E, F, G);
tuple_column_query!(A, B, C, D, E, F, G, H);
