//! Queries over `many` components: an entity's instances as one view
//! ([`Instances`], [`InstancesMut`]), and each instance on its own
//! ([`InstanceQuery`], for [`Data::for_each_instance`](crate::Data::for_each_instance)).

use crate::access::{CanRead, CanReadShared, CanWrite};
use crate::decl::{Component, ContextDecl};
use crate::handle::EntityId;
use crate::many::Many;
use crate::query::{Access, Query, QueryCode, QueryRights, SharedQuery};
use crate::storage::{Column, ManyColumn, ManyFetch, ManyMut, ManyRef, Storage};
use core::marker::PhantomData;

/// The instance type `T` of a component declared `T: many;` in context
/// `Cx`, implemented by `declare_context!` for each (and for no other
/// type). The instance queries ask for it first, and name the component
/// through it, so that a query over a component not declared `many` fails
/// with this trait's one error rather than one per missing right.
///
/// # Safety
/// `Component` is `Many<Self>`, the component `declare_context!` declared
/// for `Self: many;` in `Cx`, and `Inner` the strategy of its first
/// instances.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component declared `many` in context `{Cx}`",
    label = "instances are walked only for a component declared `many`",
    note = "`for_each_instance`, `Instances<T>` and `InstancesMut<T>` reach the instances of a component declared `T: many;` in `{Cx}`'s `declare_context!`; walk a plain component with `for_each`"
)]
pub unsafe trait DeclaredMany<Cx: ContextDecl>: Sized + Send + Sync + 'static {
    /// The first instances' column.
    type Inner: Column<Item = Many<Self>> + Storage;
    /// `Many<Self>`.
    type Component: Component<Cx, Column = ManyColumn<Self, Self::Inner>>;
}

/// Query element: every instance an entity holds of the `many` component
/// `T`, read-only, as a [`ManyRef`] (the system reads `Many<T>`).
///
/// ```
/// use ecs::{Data, Instances, Many, System};
/// #[derive(Debug, PartialEq)]
/// pub struct Emitter(pub u32);
/// #[derive(Default)]
/// pub struct Census;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Emitter: many; }
///         systems { census: Census { read: [Emitter], output: usize } }
///     }
/// }
///
/// impl System<World> for Census {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         let mut n = 0;
///         data.for_each::<Instances<Emitter>>(|emitters| n += emitters.len());
///         *data.output() = n;
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.spawn((Many::new(Emitter(1)),)).unwrap();
///     p.add_instance(e, Emitter(2)).unwrap();
///     p.spawn((Many::new(Emitter(3)),)).unwrap();
///     p.run_all(&());
/// });
/// assert_eq!(world.outputs::<Census>(), [3]);
/// ```
pub struct Instances<T>(PhantomData<fn() -> T>);

/// Query element: every instance an entity holds of the `many` component
/// `T`, as a [`ManyMut`] that changes, adds and removes instances (the
/// system writes `Many<T>`).
///
/// ```
/// use ecs::{Data, InstancesMut, Many, System};
/// #[derive(Clone, Debug, PartialEq)]
/// pub struct Emitter(pub u32);
/// #[derive(Default)]
/// pub struct Grow;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Emitter: many; }
///         systems { grow: Grow { write: [Emitter] } }
///     }
/// }
///
/// impl System<World> for Grow {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         data.for_each::<InstancesMut<Emitter>>(|mut emitters| {
///             for e in emitters.iter_mut() {
///                 e.0 += 1;
///             }
///             if emitters.len() < 3 {
///                 emitters.push(Emitter(0));
///             }
///         });
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Many::new(Emitter(10)),)).unwrap());
/// world.step(|p| p.run_all(&()));
/// world.step(|p| p.run_all(&()));
/// world.step(|p| {
///     p.run_all(&());
///     assert_eq!(p.instances::<Emitter>(e).unwrap().to_vec(), [Emitter(13), Emitter(2), Emitter(1)]);
/// });
/// ```
pub struct InstancesMut<T>(PhantomData<fn() -> T>);

/// A run or block of an [`Instances`]/[`InstancesMut`] walk: the state and
/// the first id (views are reached by id).
#[doc(hidden)]
pub struct ViewRun<T, K: Column> {
    fetch: ManyFetch<T, K>,
    start: EntityId,
}

// By hand: a derive would ask `T: Copy` and `K: Copy`.
impl<T, K: Column> Clone for ViewRun<T, K> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, K: Column> Copy for ViewRun<T, K> {}

impl<T, K: Column> ViewRun<T, K> {
    #[inline(always)]
    fn at(&self, k: usize) -> EntityId {
        EntityId(self.start.0 + k as u32)
    }
}

macro_rules! view_query {
    ($Ty:ident, $Right:ident, $Item:ident, $get:ident, $mutable:literal) => {
        // SAFETY: `S` may read `Many<T>`, or write it when `$mutable`
        // (the `$Right` bound).
        unsafe impl<Cx, S, T, K> QueryRights<Cx, S> for $Ty<T>
        where
            Cx: ContextDecl,
            T: DeclaredMany<Cx, Component = Many<T>, Inner = K>,
            <T as DeclaredMany<Cx>>::Component: Component<Cx, Column = ManyColumn<T, K>>,
            K: Column<Item = Many<T>> + Storage,
            S: $Right<Cx, <T as DeclaredMany<Cx>>::Component>,
        {
        }

        // SAFETY: borrows only the instances of `Many<T>` of the given id
        // (`ACCESS`), mutably when `$mutable`; runs and blocks fetch each id
        // on its own.
        unsafe impl<Cx, T, K> QueryCode<Cx> for $Ty<T>
        where
            Cx: ContextDecl,
            T: DeclaredMany<Cx, Component = Many<T>, Inner = K>,
            <T as DeclaredMany<Cx>>::Component: Component<Cx, Column = ManyColumn<T, K>>,
            K: Column<Item = Many<T>> + Storage,
        {
            type Item<'i> = $Item<'i, T>;
            type Fetch = ManyFetch<T, K>;
            const ACCESS: &'static [Access] = &[Some((<Many<T> as Component<Cx>>::INDEX, $mutable))];
            #[inline(always)]
            fn init(storages: &Cx::Storages) -> Self::Fetch {
                <Many<T> as Component<Cx>>::column(storages).many_fetch()
            }
            #[inline(always)]
            unsafe fn fetch<'i>(fetch: Self::Fetch, id: EntityId) -> $Item<'i, T> {
                // SAFETY: the caller's guarantees are `get`'s.
                unsafe { fetch.$get(id) }
            }
            const STAGED: usize = 0;
            const WITH_ID: bool = false;
            const READS: usize = 0;
            const LINEAR: bool = false;
            type Run = ViewRun<T, K>;
            #[inline(always)]
            unsafe fn run(fetch: Self::Fetch, start: EntityId) -> Self::Run {
                ViewRun { fetch, start }
            }
            #[inline(always)]
            unsafe fn run_item<'i>(run: &Self::Run, k: usize) -> $Item<'i, T> {
                // SAFETY: as `fetch`, for id `start + k` (caller).
                unsafe { run.fetch.$get(run.at(k)) }
            }
            type Block = ViewRun<T, K>;
            #[inline(always)]
            unsafe fn block(run: &Self::Run, k: usize) -> Self::Block {
                ViewRun {
                    fetch: run.fetch,
                    start: run.at(k),
                }
            }
            #[inline(always)]
            unsafe fn block_item<'i>(block: &'i mut Self::Block, j: usize) -> $Item<'i, T> {
                // SAFETY: as `fetch`, for id `start + j` of the block
                // (caller).
                unsafe { block.fetch.$get(block.at(j)) }
            }
        }
    };
}

view_query!(Instances, CanRead, ManyRef, get, false);
view_query!(InstancesMut, CanWrite, ManyMut, get_mut, true);

// SAFETY: shared, to a component `S` only reads (`CanReadShared`).
unsafe impl<Cx, S, T, K> SharedQuery<Cx, S> for Instances<T>
where
    Cx: ContextDecl,
    T: DeclaredMany<Cx, Component = Many<T>, Inner = K>,
    <T as DeclaredMany<Cx>>::Component: Component<Cx, Column = ManyColumn<T, K>>,
    K: Column<Item = Many<T>> + Storage,
    S: CanReadShared<Cx, <T as DeclaredMany<Cx>>::Component>,
{
}

/// How [`Data::for_each_instance`](crate::Data::for_each_instance) hands
/// out each instance of a `many` component `T`: `&T` (the system reads
/// `Many<T>`) or `&mut T` (it writes it).
///
/// # Safety
/// `First` borrows `Many<T>` as the item does (shared for `&T`, mutably
/// for `&mut T`); `MUT` says which, and `fetch` is `Many<T>`'s column's.
///
/// ```
/// use ecs::traits::{InstanceQuery, SystemOf};
/// use ecs::{Data, Many, System};
/// # pub struct Emitter(pub u32);
/// # #[derive(Default)]
/// # pub struct Count;
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Emitter: many; }
/// #         systems { count: Count { read: [Emitter], output: usize } }
/// #     }
/// # }
///
/// /// How many instances `I` walks, in any context.
/// fn instances<Cx: ecs::traits::ContextDecl, S: SystemOf<Cx>, I: InstanceQuery<Cx, S>>(data: &mut Data<'_, Cx, S>) -> usize {
///     let mut n = 0;
///     data.for_each_instance::<I, ()>(|_, ()| n += 1);
///     n
/// }
///
/// impl System<World> for Count {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         *data.output() = instances::<_, _, &Emitter>(data);
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.spawn((Many::new(Emitter(0)),)).unwrap();
///     p.add_instance(e, Emitter(1)).unwrap();
///     p.run_all(&());
/// });
/// assert_eq!(world.outputs::<Count>(), [2]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an instance of a `many` component system `{S}` can walk",
    note = "the instance is `&T` or `&mut T` for a component declared `T: many`, named `Many<T>` in the system's `read` or `write` list"
)]
pub unsafe trait InstanceQuery<Cx: ContextDecl, S> {
    /// The instance type.
    type Instance: 'static;
    /// The first instances' column type.
    type Column: Column<Item = Many<Self::Instance>>;
    /// The query over first instances: `&Many<T>` or `&mut Many<T>`.
    type First: Query<Cx, S>;
    /// What the closure gets.
    type Item<'i>;
    /// Whether the item is mutable.
    const MUT: bool;
    /// A first instance's item.
    // Hidden: called only by the runtime's instance walks.
    #[doc(hidden)]
    fn from_first<'i>(first: <Self::First as QueryCode<Cx>>::Item<'i>) -> Self::Item<'i>;
    /// Another instance's item.
    ///
    /// # Safety
    /// `ptr` points to a live instance that nothing else borrows for `'i`
    /// (mutably, when `MUT` is false).
    // Hidden: called only by the runtime's instance walks.
    #[doc(hidden)]
    unsafe fn from_ptr<'i>(ptr: *mut Self::Instance) -> Self::Item<'i>;
    /// The walk state of the column of `Many<T>`.
    // Hidden: called only by the runtime's instance walks.
    #[doc(hidden)]
    fn fetch(storages: &Cx::Storages) -> ManyFetch<Self::Instance, Self::Column>;
}

// SAFETY: `&Many<T>` borrows `Many<T>` shared, as the item does.
unsafe impl<Cx, S, T, K> InstanceQuery<Cx, S> for &T
where
    Cx: ContextDecl,
    T: DeclaredMany<Cx, Component = Many<T>, Inner = K>,
    <T as DeclaredMany<Cx>>::Component: Component<Cx, Column = ManyColumn<T, K>>,
    K: Column<Item = Many<T>> + Storage,
    S: CanRead<Cx, <T as DeclaredMany<Cx>>::Component>,
{
    type Instance = T;
    type Column = K;
    type First = &'static Many<T>;
    type Item<'i> = &'i T;
    const MUT: bool = false;
    #[inline(always)]
    fn from_first<'i>(first: <&'static Many<T> as QueryCode<Cx>>::Item<'i>) -> &'i T {
        &first.0
    }
    #[inline(always)]
    unsafe fn from_ptr<'i>(ptr: *mut T) -> &'i T {
        // SAFETY: a live instance, not borrowed mutably for `'i` (caller).
        unsafe { &*ptr }
    }
    #[inline(always)]
    fn fetch(storages: &Cx::Storages) -> ManyFetch<T, K> {
        <Many<T> as Component<Cx>>::column(storages).many_fetch()
    }
}

// SAFETY: `&mut Many<T>` borrows `Many<T>` mutably, as the item does.
unsafe impl<Cx, S, T, K> InstanceQuery<Cx, S> for &mut T
where
    Cx: ContextDecl,
    T: DeclaredMany<Cx, Component = Many<T>, Inner = K>,
    <T as DeclaredMany<Cx>>::Component: Component<Cx, Column = ManyColumn<T, K>>,
    K: Column<Item = Many<T>> + Storage,
    S: CanWrite<Cx, <T as DeclaredMany<Cx>>::Component>,
{
    type Instance = T;
    type Column = K;
    type First = &'static mut Many<T>;
    type Item<'i> = &'i mut T;
    const MUT: bool = true;
    #[inline(always)]
    fn from_first<'i>(first: <&'static mut Many<T> as QueryCode<Cx>>::Item<'i>) -> &'i mut T {
        &mut first.0
    }
    #[inline(always)]
    unsafe fn from_ptr<'i>(ptr: *mut T) -> &'i mut T {
        // SAFETY: a live instance that nothing else borrows for `'i`
        // (caller).
        unsafe { &mut *ptr }
    }
    #[inline(always)]
    fn fetch(storages: &Cx::Storages) -> ManyFetch<T, K> {
        <Many<T> as Component<Cx>>::column(storages).many_fetch()
    }
}

// SAFETY: accesses nothing.
unsafe impl<Cx: ContextDecl, S> QueryRights<Cx, S> for () {}

// SAFETY: borrows nothing: the query with no element, for
// `for_each_instance` with nothing beside the instance.
unsafe impl<Cx: ContextDecl> QueryCode<Cx> for () {
    type Item<'i> = ();
    type Fetch = ();
    const ACCESS: &'static [Access] = &[];
    #[inline(always)]
    fn init(_: &Cx::Storages) {}
    #[inline(always)]
    unsafe fn fetch<'i>((): (), _: EntityId) -> Self::Item<'i> {}
    const STAGED: usize = 0;
    const WITH_ID: bool = false;
    const READS: usize = 0;
    const LINEAR: bool = false;
    type Run = ();
    #[inline(always)]
    unsafe fn run((): (), _: EntityId) {}
    #[inline(always)]
    unsafe fn run_item<'i>((): &(), _: usize) -> Self::Item<'i> {}
    type Block = ();
    #[inline(always)]
    unsafe fn block((): &(), _: usize) {}
    #[inline(always)]
    unsafe fn block_item<'i>((): &'i mut (), _: usize) -> Self::Item<'i> {}
}

// SAFETY: borrows nothing.
unsafe impl<Cx: ContextDecl, S> SharedQuery<Cx, S> for () {}
