//! Creating entities with their components: bundles, `spawn` and
//! `spawn_batch`.

use crate::bitset::ComponentSet;
use crate::decl::{Component, ContextDecl};
use crate::error::ContextFull;
use crate::handle::{Entity, EntityId};
use crate::proxy::Defer;
use crate::storage::drops::{drop_each, DropRun, Drops};
use crate::storage::packed::Packed;
use crate::storage::Column;
use core::iter::FusedIterator;
use core::ops::Range;
use core::ptr::NonNull;

/// A set of component types of context `Cx`, written as a tuple: `()` (no
/// component), `(A,)`, `(A, B)`, ... up to twelve. The filter of
/// [`Defer::add_to_all`], and what every [`Bundle`] is.
///
/// Sealed: only these tuples implement it, and no other type can, since
/// `spawn` records the bits a bundle reports and systems then read those
/// components without checking (see `SAFETY.md`).
///
/// ```
/// use ecs::traits::{Component, Components, ContextDecl};
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
/// /// Gives component `C` to every entity that has the components `W` and
/// /// lacks `C`, in any context.
/// fn give<Cx: ContextDecl, W: Components<Cx>, C: Component<Cx>>(p: &mut Defer<'_, Cx>, make: impl Fn() -> C) -> usize {
///     p.add_to_all::<W, C>(|_| make())
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.spawn((Position(0.0),)).unwrap();
///     assert_eq!(give::<World, (Position,), _>(p, || Velocity(1.0)), 1);
///     assert!(p.has::<Velocity>(e));
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of components of `{Cx}`",
    note = "write the components as a tuple: `({Self},)` for one, `(A, B)` for several, `()` for none"
)]
pub trait Components<Cx: ContextDecl>: sealed::SealedComponents<Cx> {
    /// The components, as a bitset.
    // Hidden: called only by the runtime (sealed trait).
    #[doc(hidden)]
    fn bits() -> Cx::Bits;
}

impl<Cx: ContextDecl> Components<Cx> for () {
    #[inline]
    fn bits() -> Cx::Bits {
        Cx::Bits::default()
    }
}

/// A set of components added together by [`Defer::spawn`] and
/// [`Defer::spawn_batch`]: a tuple of one to twelve distinct components; a
/// single component is written `(value,)`.
///
/// A tuple that names a component twice fails to compile when it is spawned
/// (a constant evaluation error says so).
///
/// Sealed: only these tuples implement it. `spawn` trusts a bundle to
/// store a value of every component its bits report, for the new entity
/// only; an implementation outside this crate could break that from safe
/// code (see `SAFETY.md`).
///
/// ```
/// use ecs::traits::{Bundle, ContextDecl};
/// use ecs::{ContextFull, Defer, Entity};
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
/// /// Spawns `n` entities, each with the bundle `make` returns, in any context.
/// fn spawn_n<Cx: ContextDecl, B: Bundle<Cx>>(
///     p: &mut Defer<'_, Cx>,
///     n: usize,
///     make: impl Fn() -> B,
/// ) -> Result<Vec<Entity>, ContextFull> {
///     (0..n).map(|_| p.spawn(make())).collect()
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let es = spawn_n(p, 3, || (Position(1.0), Velocity(0.5))).unwrap();
///     assert_eq!(es.len(), 3);
///     assert!(p.has::<Velocity>(es[2]));
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle of components of `{Cx}`",
    note = "give the values as a tuple of distinct components: `(value,)` for one, `(a, b)` for several"
)]
pub trait Bundle<Cx: ContextDecl>: Components<Cx> + sealed::SealedBundle<Cx> {}

/// The private supertraits that seal [`Components`] and [`Bundle`], and the
/// part of a bundle that only this crate may call: the traits are public
/// (they appear in public bounds) but live in a module no other crate can
/// name, so no other crate can implement them, nor call their methods.
mod sealed {
    use crate::decl::ContextDecl;
    use crate::handle::EntityId;
    use core::ops::Range;

    /// Implemented by `()` and by the tuples of one to twelve components.
    #[diagnostic::on_unimplemented(
        message = "`ecs::traits::Components` is sealed: `{Self}` cannot implement it",
        note = "component sets are tuples of the context's components, `(A,)`, `(A, B)`, ... or `()`, which implement it already"
    )]
    pub trait SealedComponents<Cx: ContextDecl> {}

    /// Implemented by the tuples of one to twelve components.
    ///
    /// Contract (upheld by the only implementations, in this file): `store`
    /// and `store_fresh` store a value of every component of
    /// `Components::bits` for each id they report as stored, and touch no
    /// other id's values; `DISTINCT` is whether the tuple names each
    /// component once.
    #[diagnostic::on_unimplemented(
        message = "`ecs::traits::Bundle` is sealed: `{Self}` cannot implement it",
        note = "bundles are tuples of distinct components of the context, `(a,)`, `(a, b)`, ..., which implement it already: spawn a tuple"
    )]
    pub trait SealedBundle<Cx: ContextDecl>: Sized {
        /// Whether the bundle names each component once.
        const DISTINCT: bool;

        /// Stores every value of the bundle for `id`, without recording them
        /// in the id's bitset (the caller does, once they are all stored).
        fn store(self, storages: &mut Cx::Storages, id: EntityId);

        /// Stores the values of up to `ids.len()` bundles of `bundles` for
        /// the fresh ids `ids`, in order, without recording them in bitsets;
        /// returns how many bundles it stored (fewer when `bundles` ends
        /// early).
        fn store_fresh(storages: &mut Cx::Storages, ids: Range<usize>, bundles: impl Iterator<Item = Self>) -> usize;
    }

    /// Implemented by the tuples of one to twelve components that are all
    /// `Clone`.
    ///
    /// Contract (upheld by the only implementations, in this file):
    /// `store_copies` stores a value of every component of
    /// `Components::bits` for each id of `ids`, and touches no other id's
    /// values; when it panics, the ids of `ids` hold no value it stored.
    #[diagnostic::on_unimplemented(
        message = "`ecs::traits::CloneBundle` is sealed: `{Self}` cannot implement it",
        note = "bundles are tuples of distinct components of the context, `(a,)`, `(a, b)`, ..., which implement it already when every component is `Clone`"
    )]
    pub trait SealedCloneBundle<Cx: ContextDecl>: SealedBundle<Cx> {
        /// Stores `ids.len()` copies of `bundle` (clones, the last one the
        /// bundle itself) for the fresh ids `ids`, column by column, without
        /// recording them in bitsets.
        fn store_copies(storages: &mut Cx::Storages, ids: Range<usize>, bundle: Self);
    }
}

use sealed::SealedBundle;
use sealed::SealedCloneBundle;

/// A [`Bundle`] whose components are all `Clone`: what
/// [`Defer::spawn_n`] copies into many entities at once.
///
/// Implemented by every tuple of distinct components that are `Clone`;
/// sealed, as `Bundle` is.
///
/// ```
/// use ecs::traits::{CloneBundle, ContextDecl};
/// use ecs::{ContextFull, Defer};
/// # #[derive(Clone)]
/// # pub struct Position(pub f32);
/// # ecs::declare_context! {
/// #     pub context World { components { Position: contiguous; } systems {} }
/// # }
/// /// Spawns a square of `side * side` copies of `bundle`, in any context.
/// fn square<Cx: ContextDecl, B: CloneBundle<Cx>>(p: &mut Defer<'_, Cx>, side: usize, bundle: B) -> Result<usize, ContextFull> {
///     Ok(p.spawn_n(side * side, bundle)?.len())
/// }
///
/// let mut world = World::new();
/// assert_eq!(world.step(|p| square(p, 3, (Position(0.0),))), Ok(9));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle of `Clone` components of `{Cx}`",
    note = "`spawn_n` clones the bundle: give a tuple of distinct components that all implement `Clone`, or use `spawn_batch` with an iterator of bundles"
)]
pub trait CloneBundle<Cx: ContextDecl>: Bundle<Cx> + Clone + SealedCloneBundle<Cx> {}

impl<Cx: ContextDecl> sealed::SealedComponents<Cx> for () {}

/// The compile-time error of a bundle that names a component twice.
const DUPLICATE: &str = "a bundle names the same component twice; give each component once";

/// The debug-build message of a storage that did not store a value it was
/// given (a broken `Column` contract).
const UNSTORED: &str =
    "a storage holds no value for an id it was just given one: its `Column` implementation breaks the trait's contract";

/// Whether column `C` holds a value for every id of `ids`: the debug
/// builds' check after storing bundles in bulk. One function per component
/// type with a plain loop: an `all` closure in each bundle's code was three
/// more functions per bundle and component in a debug build (`all`, its
/// `try_fold` and the closure: 3 000 of the 117 000 instructions a debug
/// build compiled for `scripts/compile-cost`'s 64/32 declaration).
///
/// A `while` loop, not `for` over the range: the range's `into_iter` and
/// `next` were two calls in each of these functions.
fn stores_all<Cx: ContextDecl, C: Component<Cx>>(storages: &Cx::Storages, ids: Range<usize>) -> bool {
    let column = C::column(storages);
    let mut i = ids.start;
    while i < ids.end {
        if !column.contains(EntityId(i as u32)) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether no index appears twice.
const fn distinct(indices: &[usize]) -> bool {
    let mut i = 0;
    while i < indices.len() {
        let mut j = i + 1;
        while j < indices.len() {
            if indices[i] == indices[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// Values being stored for ids that are not entities yet: if dropped by a
/// panic before [`disarm`](Self::disarm), removes every value of
/// `components` that `ids` hold, so that the ids hold nothing when they are
/// handed out later.
struct Unstore<'a, Cx: ContextDecl> {
    storages: &'a mut Cx::Storages,
    components: Cx::Bits,
    ids: Range<usize>,
}

impl<'a, Cx: ContextDecl> Unstore<'a, Cx> {
    #[inline]
    fn new(storages: &'a mut Cx::Storages, components: Cx::Bits, ids: Range<usize>) -> Self {
        Self {
            storages,
            components,
            ids,
        }
    }

    /// The values are stored: keep them.
    #[inline]
    fn disarm(mut self) {
        self.ids = 0..0;
    }
}

impl<Cx: ContextDecl> Unstore<'_, Cx> {
    #[cold]
    #[inline(never)]
    fn remove_all(&mut self) {
        for id in self.ids.clone() {
            let id = EntityId(id as u32);
            self.components.for_each(|c| Cx::remove_component(self.storages, c, id));
        }
    }
}

impl<Cx: ContextDecl> Drop for Unstore<'_, Cx> {
    #[inline]
    fn drop(&mut self) {
        if !self.ids.is_empty() {
            self.remove_all();
        }
    }
}

/// Values of a buffer moved out one at a time, in order: if dropped (by a
/// panic) before all were, drops the others. Untyped: the values' size and
/// their type's drop function (`None` when they need none), so that
/// [`Defer::spawn_collected`]'s loop is compiled once per context, not per
/// bundle type. Contract (of whoever builds one): the `len` values of
/// `size` bytes from `first` are initialised values of the type `drop` was
/// made for, owned by nobody else, those from `next` on are not moved out,
/// and the buffer outlives this.
struct Unread {
    first: *mut u8,
    size: usize,
    next: usize,
    len: usize,
    drop: Option<DropRun>,
}

impl Drop for Unread {
    fn drop(&mut self) {
        if self.next < self.len
            && let Some(drop) = self.drop
        {
            // SAFETY: by the contract above, the values from `next` to
            // `len` are initialised, of `drop`'s type, owned by nobody else,
            // and not moved out; each is dropped once (`DropRun` drops the
            // rest after a panicking one).
            unsafe { drop(self.first.add(self.next * self.size), self.len - self.next) };
        }
    }
}

/// Moves the bundle at `at` out and stores it for `id` (`Bundle::store`):
/// the one part of [`Defer::spawn_collected`] compiled per bundle type.
///
/// # Safety
/// `at` points to an initialised `B` that the caller gives up (never reads
/// or drops it again).
unsafe fn store_at<Cx: ContextDecl, B: Bundle<Cx>>(at: *mut u8, storages: &mut Cx::Storages, id: EntityId) {
    // SAFETY: an initialised `B`, moved out once (the caller's contract).
    // An `as` cast, not `cast`: one generic call fewer per bundle type in
    // a debug build.
    let bundle = unsafe { (at as *mut B).read() };
    bundle.store(storages, id);
}

/// Values written through the slot pointers of `prepare_fill` (one
/// `Option<NonNull<C>>` per component of a bundle, `None` for columns that
/// store with `insert_new`) for the first `stored` ids of a batch, not yet
/// recorded by `fill`: if dropped by a panic with `stored > 0`, drops them,
/// each once (a panicking `drop` stops none of the others). A bundle cut
/// short by a panicking `insert_new` (no built-in storage's panics) is not
/// counted: its values written through slots before the panic are leaked,
/// never dropped twice.
struct Written<S: WrittenSlots> {
    slots: S,
    stored: usize,
}

impl<S: WrittenSlots> Drop for Written<S> {
    #[inline]
    fn drop(&mut self) {
        if self.stored > 0 {
            // SAFETY: `stored` counts the bundles whose values were all
            // written through the slots, and is reset to 0 once `fill` is to
            // record them: the values are initialised and owned by nobody
            // else.
            unsafe { self.slots.drop_first(self.stored) };
        }
    }
}

/// The slot pointers of a bundle's columns (see [`Written`]).
trait WrittenSlots {
    /// Drops the first `n` values written through each pointer.
    ///
    /// # Safety
    /// Those values are initialised and owned by nobody else, and are not
    /// used again.
    unsafe fn drop_first(&self, n: usize);

    /// Drops the first `counts[i]` values written through pointer `i`.
    ///
    /// # Safety
    /// As for [`drop_first`](Self::drop_first), for each pointer's count;
    /// `counts` has one entry per pointer.
    unsafe fn drop_firsts(&self, counts: &[usize]);
}

/// Values written through the slot pointers of `prepare_fill` by
/// `store_copies`, column by column: `counts[i]` values through pointer
/// `i`, not yet recorded by `fill`. If dropped by a panic (`armed`), drops
/// them, each once.
struct Copies<S: WrittenSlots> {
    slots: S,
    counts: [usize; 12],
    armed: bool,
}

impl<S: WrittenSlots> Drop for Copies<S> {
    #[inline]
    fn drop(&mut self) {
        if self.armed {
            // SAFETY: `counts[i]` counts the values written through pointer
            // `i` (a `None` pointer keeps 0), and `armed` is cleared before
            // `fill` records them: they are initialised and owned by nobody
            // else.
            unsafe { self.slots.drop_firsts(&self.counts) };
        }
    }
}

/// Drops the first `n` values written through `first`.
///
/// # Safety
/// The `n` slots from `first` hold initialised values that nothing else
/// owns or reads again (written through `prepare_fill`'s pointer and not
/// recorded by `fill`).
#[cold]
unsafe fn drop_written<T>(first: NonNull<T>, n: usize) {
    if const { core::mem::needs_drop::<T>() } {
        // SAFETY: by the caller, each of the `n` slots is initialised and
        // owned by nobody else; each is dropped once (`drop_each` takes
        // every offset once, panic or not).
        drop_each(0..n, |k| unsafe { first.add(k).drop_in_place() });
    }
}

macro_rules! bundle {
    ($($C:ident $i:tt),+) => {
        impl<Cx: ContextDecl, $($C: Component<Cx>),+> sealed::SealedComponents<Cx> for ($($C,)+) {}

        impl<Cx: ContextDecl, $($C: Component<Cx>),+> Components<Cx> for ($($C,)+) {
            #[inline]
            fn bits() -> Cx::Bits {
                let mut bits = <Cx::Bits as Default>::default();
                $(bits.insert($C::INDEX);)+
                bits
            }
        }

        impl<Cx: ContextDecl, $($C: Component<Cx>),+> Bundle<Cx> for ($($C,)+) {}

        impl<$($C),+> WrittenSlots for ($(Option<NonNull<$C>>,)+) {
            #[cold]
            unsafe fn drop_first(&self, n: usize) {
                $(
                    if let Some(first) = self.$i {
                        // SAFETY: by the caller, the first `n` values of
                        // each column are initialised and owned by nobody
                        // else.
                        unsafe { drop_written(first, n) };
                    }
                )+
            }

            #[cold]
            unsafe fn drop_firsts(&self, counts: &[usize]) {
                $(
                    if let Some(first) = self.$i {
                        // SAFETY: by the caller, the first `counts[$i]`
                        // values of this column are initialised and owned by
                        // nobody else.
                        unsafe { drop_written(first, counts[$i]) };
                    }
                )+
            }
        }

        impl<Cx: ContextDecl, $($C: Component<Cx> + Clone),+> CloneBundle<Cx> for ($($C,)+) {}

        impl<Cx: ContextDecl, $($C: Component<Cx> + Clone),+> SealedCloneBundle<Cx> for ($($C,)+) {
            #[inline]
            #[allow(clippy::redundant_pattern_matching, reason = "`is_some` is a function per type in a debug build")]
            fn store_copies(storages: &mut Cx::Storages, ids: Range<usize>, bundle: Self) {
                const { assert!(<Self as SealedBundle<Cx>>::DISTINCT, "{}", DUPLICATE) };
                let n = ids.len();
                if n == 0 {
                    return;
                }
                // As in `store_fresh`: a pointer to the slot of `ids.start`
                // for each column that keeps values at fixed places, no two
                // to the same column.
                let slots = ($($C::column_mut(storages).prepare_fill(ids.clone()),)+);
                // The columns without slots store with `insert_new`; a panic
                // removes what they hold for `ids` (nothing else does: the
                // ids are fresh).
                let mut inserted = <Cx::Bits as Default>::default();
                // `if let`, not `is_none`/`is_some`, here and below: see
                // `store_fresh`.
                $(if let None = slots.$i {
                    inserted.insert($C::INDEX);
                })+
                let mut copies = Copies { slots, counts: [0; 12], armed: true };
                let unstore = Unstore::<Cx>::new(&mut *storages, inserted, ids.clone());
                // Column by column, each a loop storing one value again and
                // again: for a bundle whose `clone` is a copy, the compiler
                // knows every element is the same (as in `vec![value; n]`).
                // A panicking `clone` leaves the value being cloned and the
                // fields of `bundle` not yet moved to be dropped with them,
                // the copies to `copies` and `unstore`.
                $(
                    // Out of the bundle (which may be behind a pointer, and
                    // the column's stores might change it, as far as the
                    // compiler can tell) into a local, which stays in
                    // registers.
                    let value = bundle.$i;
                    match copies.slots.$i {
                        Some(first) => {
                            for k in 0..n - 1 {
                                let value = value.clone();
                                // SAFETY: `prepare_fill(ids)` returned this
                                // pointer and only other columns were touched
                                // since (distinct components); `k < ids.len()`,
                                // so the slot is that of an id of `ids`.
                                unsafe { first.add(k).write(value) };
                                copies.counts[$i] = k + 1;
                            }
                            // SAFETY: as above, for the last id of `ids`.
                            unsafe { first.add(n - 1).write(value) };
                            copies.counts[$i] = n;
                        }
                        None => {
                            let column = $C::column_mut(unstore.storages);
                            for id in ids.start..ids.end - 1 {
                                column.insert_new(EntityId(id as u32), value.clone());
                            }
                            column.insert_new(EntityId((ids.end - 1) as u32), value);
                        }
                    }
                )+
                unstore.disarm();
                copies.armed = false;
                $(
                    if let Some(_) = copies.slots.$i {
                        // SAFETY: every slot of `ids` was written through the
                        // pointer above, and this column had no other `&mut`
                        // call since `prepare_fill`.
                        unsafe { $C::column_mut(storages).fill(ids.clone()) };
                    }
                )+
                // As in `store`: the caller records these components next.
                $(debug_assert!(stores_all::<Cx, $C>(storages, ids.clone()), "{}", UNSTORED);)+
            }
        }

        impl<Cx: ContextDecl, $($C: Component<Cx>),+> SealedBundle<Cx> for ($($C,)+) {
            const DISTINCT: bool = distinct(&[$($C::INDEX),+]);

            #[inline]
            fn store(self, storages: &mut Cx::Storages, id: EntityId) {
                // Unguarded: only a storage's own `insert_new` could panic
                // here (built-in ones only fail to allocate, which aborts);
                // a value it left would be replaced or dropped later.
                $($C::column_mut(storages).insert_new(id, self.$i);)+
                // The caller records these components next, and systems
                // then read them unchecked: a storage that broke the
                // `Column` contract shows up here in debug builds.
                $(debug_assert!($C::column(storages).contains(id), "{}", UNSTORED);)+
            }

            #[inline]
            #[allow(clippy::redundant_pattern_matching, reason = "`is_some` is a function per type in a debug build")]
            fn store_fresh(
                storages: &mut Cx::Storages,
                ids: Range<usize>,
                bundles: impl Iterator<Item = Self>,
            ) -> usize {
                // Each column that keeps values at fixed places gives a
                // pointer to the slot of `ids.start`; the components are
                // distinct (asserted at compile time), so no two pointers are
                // to the same column.
                const { assert!(Self::DISTINCT, "{}", DUPLICATE) };
                let slots = ($($C::column_mut(storages).prepare_fill(ids.clone()),)+);
                // A panic (of `bundles`, or of a storage) leaves no value
                // behind: `unstore` removes those stored by `insert_new`,
                // `written` drops those written through the slots of the
                // bundles stored whole.
                let mut written = Written { slots, stored: 0 };
                let mut unstore = Unstore::<Cx>::new(&mut *storages, Self::bits(), ids.start..ids.start);
                // One counter bounds the loop: `zip` with the range of
                // offsets stops at `ids.len()`, and, for iterators that give
                // their items by index (`map` over a range, slices), checks
                // one bound per bundle instead of two. (Compiled in an
                // optimised build and under Miri only: a debug build stores
                // a batch through `spawn_collected`, see `spawn_batch`.)
                // In a block: the iterator is dropped at its end, while the
                // guards are still armed (a panicking `drop` of the bundles
                // a lying iterator kept leaves nothing behind, as any panic
                // of the iterator), as the `for` loop over `zip` dropped it.
                {
                    let mut pairs = (0..ids.len()).zip(bundles);
                    loop {
                        let Some((k, bundle)) = pairs.next() else { break };
                        let id = ids.start + k;
                        unstore.ids.end = id + 1;
                        $(
                            match written.slots.$i {
                                // SAFETY: `prepare_fill(ids)` returned this pointer and
                                // only other columns were touched since (distinct
                                // components; `unstore` has removed nothing, and removes
                                // nothing of a slot not yet filled); `k < ids.len()`, so
                                // the slot is that of an id of `ids`.
                                Some(first) => unsafe { first.add(k).write(bundle.$i) },
                                None => $C::column_mut(unstore.storages).insert_new(EntityId(id as u32), bundle.$i),
                            }
                        )+
                        written.stored = k + 1;
                    }
                }
                let stored = written.stored;
                unstore.disarm();
                written.stored = 0;
                $(
                    // `if let`, not `is_some`, which was one more function
                    // per component type in a debug build (29 at 64
                    // components / 32 systems; `matches!` costs 8 debug IR
                    // instructions more per use than `if let`).
                    if let Some(_) = written.slots.$i {
                        // SAFETY: the slots of the first `stored` ids of `ids`
                        // were written through the pointer above, and this
                        // column had no other `&mut` call since `prepare_fill`.
                        unsafe { $C::column_mut(storages).fill(ids.start..ids.start + stored) };
                    }
                )+
                // As in `store`: the caller records these components next.
                $(debug_assert!(stores_all::<Cx, $C>(storages, ids.start..ids.start + stored), "{}", UNSTORED);)+
                stored
            }
        }
    };
}
bundle!(A 0);
bundle!(A 0, B 1);
bundle!(A 0, B 1, C 2);
bundle!(A 0, B 1, C 2, D 3);
bundle!(A 0, B 1, C 2, D 3, E 4);
bundle!(A 0, B 1, C 2, D 3, E 4, F 5);
bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

impl<Cx: ContextDecl> Defer<'_, Cx> {
    /// Creates an entity holding the components of `bundle`.
    ///
    /// # Errors
    /// [`ContextFull`] when a fixed-size context holds its limit of entities
    /// (alive or killed but not yet reclaimed); nothing changes and the
    /// bundle is dropped.
    ///
    /// # Examples
    /// ```
    /// use ecs::ContextFull;
    /// # #[derive(Debug, PartialEq)]
    /// # pub struct Position(pub f32);
    /// # pub struct Frozen;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         settings { entities: fixed(1) }
    /// #         components { Position: contiguous; Frozen: tag; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new(); // room for one entity
    /// world.step(|p| {
    ///     let e = p.spawn((Position(1.0), Frozen)).unwrap();
    ///     assert_eq!(p.get::<Position>(e), Some(&Position(1.0)));
    ///     assert!(p.has::<Frozen>(e));
    ///     assert_eq!(p.spawn((Position(2.0),)), Err(ContextFull { limit: 1 }));
    ///     assert_eq!(p.len(), 1);
    /// });
    /// ```
    #[inline]
    pub fn spawn<B: Bundle<Cx>>(&mut self, bundle: B) -> Result<Entity, ContextFull> {
        const { assert!(B::DISTINCT, "{}", DUPLICATE) };
        // `Entities::create_with`'s steps, not a call of it: it takes the
        // storing as a closure, so it and the closure were compiled per
        // call site (about 70 lines of IR each, at 64/32 1 400 lines in all);
        // only `store` is per bundle.
        #[cfg(not(debug_assertions))]
        {
            let cx = &mut *self.cx;
            let Some(index) = cx.entities.next_index() else {
                return Err(cx.full());
            };
            bundle.store(&mut cx.storages, EntityId(index));
            Ok(cx.entities.record_created(index, &B::bits()))
        }
        // A debug build gives the bundle up to `spawn_one`, compiled once
        // per context: the steps above, with their `Option`, `Result` and
        // the bundle's drop flags and unwinding paths, were 86 lines of IR
        // per bundle type (1 891 at 64 components / 32 systems, `cargo
        // llvm-lines`); what stays per bundle type is this shell and
        // `store_at`, which `spawn_batch`'s bundle types have anyway.
        #[cfg(debug_assertions)]
        {
            let mut bundle = core::mem::ManuallyDrop::new(bundle);
            // SAFETY: `bundle` is an initialised `B` (`ManuallyDrop` is
            // `repr(transparent)`), never used again here: `spawn_one`
            // moves it out or drops it. `store_at::<Cx, B>` stores a `B`
            // with the components of `B::bits()`, whose drop function is
            // `Drops::<B>::RUN`.
            unsafe {
                self.spawn_one(
                    &raw mut bundle as *mut u8,
                    Drops::<B>::RUN,
                    store_at::<Cx, B>,
                    &B::bits(),
                )
            }
        }
    }

    /// [`spawn`](Self::spawn) of the bundle at `bundle`, stored through
    /// `store` (which moves it out), not generic over the bundle: a debug
    /// build compiles it once per context. No room: the bundle is dropped
    /// (by `drop`), as `spawn` drops it.
    ///
    /// # Safety
    /// `bundle` points to an initialised bundle that the caller gives up;
    /// `store` moves a bundle of that type out and stores a value of each
    /// component of `bits` (and no other) for the id it is given; `drop`
    /// is that type's `DropRun` (`None` when it needs none).
    #[cfg(debug_assertions)]
    unsafe fn spawn_one(
        &mut self,
        bundle: *mut u8,
        drop: Option<DropRun>,
        store: unsafe fn(*mut u8, &mut Cx::Storages, EntityId),
        bits: &Cx::Bits,
    ) -> Result<Entity, ContextFull> {
        let cx = &mut *self.cx;
        let Some(index) = cx.entities.next_index() else {
            // No room: the bundle, given up to this function, is dropped
            // (by the guard, on return), after the error is made, as
            // `spawn`'s optimised form drops it.
            let _unread = Unread {
                first: bundle,
                size: 0,
                next: 0,
                len: 1,
                drop,
            };
            return Err(cx.full());
        };
        // SAFETY: the caller's contract: an initialised bundle given up,
        // moved out once, here; `store` is its type's.
        unsafe { store(bundle, &mut cx.storages, EntityId(index)) };
        Ok(cx.entities.record_created(index, bits))
    }

    /// Creates one entity per bundle of `bundles`, all or none, and returns
    /// their handles in the order of the bundles.
    ///
    /// The faster way to create many entities: room is checked once; the
    /// new entities take the next ids, one ascending run, so systems walk
    /// their components forwards; their values go straight into their slots
    /// (for storages that keep values at fixed places, such as `contiguous`)
    /// and the entities are recorded at once. The handles come as an
    /// iterator that owns them (no allocation when no freed slot is reused);
    /// drop it if they are not needed.
    ///
    /// Any iterator will do. One that knows its length, by an exact
    /// [`size_hint`](Iterator::size_hint) (ranges of any integer type,
    /// `map` over them, slices, `Vec`s, arrays, `zip`s of those), is
    /// written straight into the columns; one that does not (`filter`,
    /// `chain` of unbounded iterators, ...) is first collected into a `Vec`,
    /// since room for all of them must be known before any is created. (A
    /// debug build collects every batch first, which compiles less; the
    /// entities made are the same.)
    ///
    /// ```
    /// # #[derive(Debug, PartialEq, Clone, Copy)] pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// ecs::declare_context! {
    ///     pub context World {
    ///         settings { entities: fixed(1000), threads: 1 }
    ///         components { Position, Velocity: contiguous; }
    ///         systems {}
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let n: u64 = 900;
    /// let made: Vec<ecs::Entity> = world.step(|p| {
    ///     p.spawn_batch((0..n).map(|i| (Position(i as f32), Velocity(1.0))))
    ///         .expect("room for 900")
    ///         .collect()
    /// });
    /// assert_eq!(world.step(|p| *p.component::<Position>(made[7])), Position(7.0));
    /// // Of unknown length: collected first, then created.
    /// world.step(|p| p.spawn_batch((0..200).filter(|i| i % 2 == 0).map(|_| (Position(0.0),))).unwrap());
    /// assert_eq!(world.len(), 1000);
    /// // Full: the next batch creates nothing.
    /// assert!(world.step(|p| p.spawn_batch([(Position(0.0),)]).is_err()));
    /// assert_eq!(world.len(), 1000);
    /// ```
    ///
    /// # Errors
    /// [`ContextFull`] when the context has room for fewer entities than
    /// `bundles` holds; nothing changes and the bundles are dropped.
    ///
    /// # Panics
    /// A panic of the iterator reaches the caller. No entity is made, and
    /// the values its bundles gave so far are dropped, each once.
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> Result<Spawned, ContextFull>
    where
        B: Bundle<Cx>,
        I: IntoIterator<Item = B>,
    {
        const { assert!(B::DISTINCT, "{}", DUPLICATE) };
        let bundles = bundles.into_iter();
        #[cfg(any(not(debug_assertions), miri))]
        match bundles.size_hint() {
            (low, Some(high)) if low == high => {
                // `low` bundles, so the iterator says (a safe promise, which
                // it may break: `store_fresh` stores no more than `ids`
                // holds, and tells how many it stored). Here rather than in
                // a function of its own, which was compiled per call site
                // besides this one (137 lines of IR each; here, 25 fewer).
                let ids = self.batch_ids(low)?;
                let count = ids.len();
                let stored = B::store_fresh(&mut self.cx.storages, ids, bundles);
                debug_assert!(stored <= count);
                Ok(self.record_batch(stored, &B::bits()))
            }
            _ => {
                // A loop of pushes, not `collect`: `collect` compiles its
                // specialisations (`from_iter`, `extend_trusted`) for each
                // iterator type, though iterators of known length, most
                // batches, never come here. Into the storages' untyped
                // array, not a `Vec`, whose `push`, growth and drop were
                // compiled per bundle type (a debug build's `push_mut`,
                // `grow_one` and drop glue, about 100 IR instructions each).
                // A panic of the iterator drops the array and the bundles
                // in it.
                let mut collected = Packed::with_capacity(bundles.size_hint().0);
                for bundle in bundles {
                    collected.push(bundle);
                }
                self.spawn_collected(collected, None)
            }
        }
        // A debug build (Miri aside, which checks the path above) collects
        // every batch, of known length or not, and stores it through
        // `spawn_collected`, a bundle at a time by `Bundle::store`: the
        // bulk path above (`store_fresh` per call site, with its slots'
        // guard and drops per bundle type, `prepare_fill`, `fill` and the
        // check `stores_all` per component type) is what an optimised
        // build runs, but a debug build compiled it besides the collecting
        // path, which every bundle type given to `spawn_batch` has anyway
        // (the path is chosen at run time). At 64 components / 32 systems
        // that was about 5 500 of the 70 200 lines of IR of a debug build
        // (`cargo llvm-lines`). What the caller sees is the same: room is
        // checked before any bundle is asked for when the length is known,
        // no more bundles than it are asked for, and a panic leaves
        // nothing behind. (`.ci/run` runs the bulk spawns' tests in release
        // too, and Miri runs the path above.)
        #[cfg(all(debug_assertions, not(miri)))]
        {
            let (ids, bound, capacity) = self.collect_plan(bundles.size_hint())?;
            let mut collected = Packed::with_capacity(capacity);
            // The bound first, as `store_fresh`'s `zip` does: no bundle is
            // asked for past `bound`. A panic of the iterator drops the
            // array and the bundles in it; the iterator itself is dropped
            // at the block's end, before any is stored.
            {
                let mut bundles = bundles;
                while collected.len() < bound {
                    let Some(bundle) = bundles.next() else { break };
                    collected.push(bundle);
                }
            }
            self.spawn_collected(collected, ids)
        }
    }

    /// How a debug build's [`spawn_batch`](Self::spawn_batch) collects an
    /// iterator of size hint `hint`: the ids of a known length (room
    /// checked; `None` for an unknown one), how many bundles to read at
    /// most, and the array's first capacity. Not generic: the same code in
    /// each call site's `spawn_batch` was more IR per call site.
    #[cfg(all(debug_assertions, not(miri)))]
    fn collect_plan(
        &mut self,
        hint: (usize, Option<usize>),
    ) -> Result<(Option<Range<usize>>, usize, usize), ContextFull> {
        let (low, high) = hint;
        if high == Some(low) {
            let ids = self.batch_ids(low)?;
            let n = ids.len();
            Ok((Some(ids), n, n))
        } else {
            Ok((None, usize::MAX, low))
        }
    }

    /// [`spawn_batch`](Self::spawn_batch) of bundles collected first (from
    /// an iterator that does not tell its length, or any in a debug build),
    /// each stored by `Bundle::store`: not through `store_fresh`, whose
    /// second copy per call site (for `vec::IntoIter`, besides the caller's
    /// iterator) was about 500 lines of IR for a path that iterators of
    /// known length never take. Compiled for every bundle type given to
    /// `spawn_batch`, whatever its iterator (the path is chosen at run
    /// time), so the loop is [`store_collected`](Self::store_collected),
    /// compiled once per context; this shell and `store_at` are all that is
    /// per bundle type (at 64 components / 32 systems, a debug build
    /// compiled 228 IR instructions of this function per bundle type).
    ///
    /// `ids`: the ids `batch_ids` gave for the length the iterator told
    /// (at least `bundles.len()` of them), or `None` to ask for them here.
    fn spawn_collected<B: Bundle<Cx>>(
        &mut self,
        mut bundles: Packed<B>,
        ids: Option<Range<usize>>,
    ) -> Result<Spawned, ContextFull> {
        const { assert!(B::DISTINCT, "{}", DUPLICATE) };
        // An optimised build checks the room and records the entities
        // here, as before the debug build's `spawn_stored`: through it, the
        // loop of an unknown-length batch got one instruction more per
        // bundle (a register move; +0.75% for 10 000 bundles, callgrind).
        #[cfg(not(debug_assertions))]
        {
            // `ids` is `None`: only a debug build's `spawn_batch` checks
            // the room before collecting (its code and this are compiled
            // under opposite `cfg`s). Main's code otherwise: with `ids`
            // used and the check below an `assert!`, rustc's instructions
            // for the 64/32 crate's release build were 6.6 M (0.07%) more.
            let _ = ids;
            let ids = self.batch_ids(bundles.len())?;
            // `batch_ids` checked the room for every bundle: `ids` is as
            // long as `bundles`.
            let n = ids.len();
            debug_assert_eq!(n, bundles.len());
            // The `n` values stay where they are, given up to
            // `store_collected` (moved out one by one, or dropped by its
            // guard). The array keeps its buffer, freed when it drops,
            // after the call.
            let first = bundles.forget_all();
            // SAFETY: `first` holds `n` initialised `B`s given up above, of
            // `size_of::<B>()` bytes each; `store_at::<Cx, B>` stores a
            // `B`, whose drop function is `Drops::<B>::RUN`, with the
            // components of `B::bits()`; the `n` ids came from `batch_ids`.
            unsafe {
                self.store_collected(
                    first,
                    const { size_of::<B>() },
                    Drops::<B>::RUN,
                    store_at::<Cx, B>,
                    ids,
                    &B::bits(),
                )
            };
            Ok(self.record_batch(n, &B::bits()))
        }
        #[cfg(debug_assertions)]
        {
            let n = bundles.len();
            // As above: the values are given up to `spawn_stored`, which
            // drops them if there is no room.
            let first = bundles.forget_all();
            // SAFETY: as above; `ids`, if given, came from `batch_ids` (in
            // `spawn_batch`).
            unsafe {
                self.spawn_stored(
                    first,
                    n,
                    const { size_of::<B>() },
                    Drops::<B>::RUN,
                    store_at::<Cx, B>,
                    ids,
                    &B::bits(),
                )
            }
        }
    }

    /// Creates an entity for each of the `n` bundles of `size` bytes from
    /// `first`, in order, stored through `store` (moving each out), with
    /// the ids `ids` (or, `None`, those `batch_ids` gives for `n`): the body
    /// of [`spawn_collected`](Self::spawn_collected), not generic over the
    /// bundle, so that a debug build compiles it once per context (the
    /// room's check, the recording and their `Result`s were 40 lines of IR
    /// in each bundle type's `spawn_collected`). No room: the bundles are
    /// dropped.
    ///
    /// # Safety
    /// As for [`store_collected`](Self::store_collected), with `n` bundles;
    /// `ids`, if given, came from `batch_ids` (that they are at least `n`
    /// is checked here).
    #[cfg(debug_assertions)]
    #[allow(
        clippy::too_many_arguments,
        reason = "the untyped parts of a bundle type, each a plain value"
    )]
    unsafe fn spawn_stored(
        &mut self,
        first: *mut u8,
        n: usize,
        size: usize,
        drop: Option<DropRun>,
        store: unsafe fn(*mut u8, &mut Cx::Storages, EntityId),
        ids: Option<Range<usize>>,
        bits: &Cx::Bits,
    ) -> Result<Spawned, ContextFull> {
        let ids = if let Some(ids) = ids {
            ids
        } else {
            match self.batch_ids(n) {
                Ok(ids) => ids,
                Err(full) => {
                    // No room: the bundles, given up to this function, are
                    // dropped (by the guard, on return).
                    let _unread = Unread {
                        first,
                        size,
                        next: 0,
                        len: n,
                        drop,
                    };
                    return Err(full);
                }
            }
        };
        // `batch_ids` checked the room for every bundle (the caller's, for
        // at least `n`: no more were read): the first `n` ids of `ids` are
        // the bundles'. Checked, not only in debug builds: one panic path
        // per context, and the loop stores for these ids.
        assert!(n <= ids.len(), "more bundles than ids");
        // SAFETY: the caller's contract, for `n` bundles and `n` of the ids
        // `batch_ids` gave.
        unsafe { self.store_collected(first, size, drop, store, ids.start..ids.start + n, bits) };
        Ok(self.record_batch(n, bits))
    }

    /// Stores the `ids.len()` bundles of `size` bytes from `first`, in
    /// order, one per id, through `store` (moving each out): the loop of
    /// [`spawn_collected`](Self::spawn_collected), not generic over the
    /// bundle. A panic (of a storage: built-in ones only fail to allocate,
    /// which aborts) leaves no value behind: `unstore` removes those of the
    /// ids stored so far, the one being stored included, and `rest` drops
    /// the bundles not stored yet.
    ///
    /// # Safety
    /// `first` holds `ids.len()` initialised bundles of `size` bytes each,
    /// which the caller gives up; `store` moves a bundle of that type out
    /// and stores a value of each component of `bits` (and no other) for
    /// the id it is given; `drop` is that type's `DropRun` (`None` when it
    /// needs none); `ids` are fresh (from `batch_ids`).
    unsafe fn store_collected(
        &mut self,
        first: *mut u8,
        size: usize,
        drop: Option<DropRun>,
        store: unsafe fn(*mut u8, &mut Cx::Storages, EntityId),
        ids: Range<usize>,
        bits: &Cx::Bits,
    ) {
        let n = ids.len();
        let mut unstore = Unstore::<Cx>::new(&mut self.cx.storages, *bits, ids.start..ids.start);
        let mut rest = Unread {
            first,
            size,
            next: 0,
            len: n,
            drop,
        };
        for k in 0..n {
            unstore.ids.end = ids.start + k + 1;
            rest.next = k + 1;
            // SAFETY: `k < len` and `next` was `k`: the bundle is initialised
            // and not moved out yet (the caller's contract); `next` moved
            // past it first, so it is moved out once, here, even if `store`
            // panics.
            unsafe { store(first.add(k * size), unstore.storages, EntityId((ids.start + k) as u32)) };
        }
        unstore.disarm();
    }

    /// Creates `n` entities, each holding a copy of `bundle` (clones of it,
    /// the last entity the bundle itself), all or none, and returns their
    /// handles, in creation order.
    ///
    /// EnTT's `insert(first, last, value)`, `vec![bundle; n]` for entities:
    /// the fastest way to create many identical entities. Each column is
    /// filled in one loop that stores the same value again and again (for
    /// components whose `clone` is a copy, the compiler knows every element
    /// is the same and writes them as `vec!` does), and the entities are
    /// recorded at once, with the next ids, in one ascending run. The
    /// handles come as an iterator that owns them, without a list of
    /// them when no freed slot is reused.
    ///
    /// ```
    /// # #[derive(Debug, PartialEq, Clone, Copy)] pub struct Position(pub f32);
    /// # #[derive(Clone, Copy)] pub struct Velocity(pub f32);
    /// ecs::declare_context! {
    ///     pub context World {
    ///         settings { entities: fixed(1000), threads: 1 }
    ///         components { Position, Velocity: contiguous; }
    ///         systems {}
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let made: Vec<ecs::Entity> = world.step(|p| {
    ///     p.spawn_n(900, (Position(1.0), Velocity(0.5))).expect("room for 900").collect()
    /// });
    /// assert_eq!(made.len(), 900);
    /// assert_eq!(world.step(|p| *p.component::<Position>(made[899])), Position(1.0));
    /// // Full: the next batch creates nothing.
    /// assert!(world.step(|p| p.spawn_n(101, (Position(0.0),)).is_err()));
    /// assert_eq!(world.len(), 900);
    /// ```
    ///
    /// # Errors
    /// [`ContextFull`] when the context has room for fewer than `n` more
    /// entities; nothing changes and the bundle is dropped.
    ///
    /// # Panics
    /// A panic of a component's `clone` reaches the caller. No entity is
    /// made, and every clone made so far, and the bundle, are dropped, each
    /// once.
    #[inline]
    pub fn spawn_n<B: CloneBundle<Cx>>(&mut self, n: usize, bundle: B) -> Result<Spawned, ContextFull> {
        const { assert!(B::DISTINCT, "{}", DUPLICATE) };
        let ids = self.batch_ids(n)?;
        // `batch_ids` checked the room for all `n`.
        debug_assert_eq!(ids.len(), n);
        B::store_copies(&mut self.cx.storages, ids.clone(), bundle);
        Ok(self.record_batch(ids.len(), &B::bits()))
    }

    /// The ids of a batch of `n` entities: the next ones, in one run, with
    /// room reserved for them. Not generic over the bundle, like
    /// `record_batch`: only storing the values is.
    fn batch_ids(&mut self, n: usize) -> Result<Range<usize>, ContextFull> {
        let cx = &mut *self.cx;
        if cx.entities.room() < n {
            return Err(cx.full());
        }
        cx.entities.reserve(n);
        // The new entities take the next ids, in one run: values straight
        // into their columns, then every entity recorded at once.
        let start = cx.entities.id_bound();
        // `n` is a safe promise: bound the run by the room left, whatever
        // the iterator does (it cannot exceed it if it keeps its promise).
        let count = n.min(cx.entities.room());
        Ok(start..start + count)
    }

    /// Records the `stored` entities of a batch, holding `bits`.
    fn record_batch(&mut self, stored: usize, bits: &Cx::Bits) -> Spawned {
        let (reused, fresh) = self.cx.entities.create_run(stored, bits);
        Spawned {
            reused: reused.into_iter(),
            fresh,
        }
    }
}

/// The handles of the entities a [`Defer::spawn_batch`] created, in the order
/// of their bundles: an iterator that owns them.
///
/// Handles of slots that were freed and reused are kept in a list; fresh
/// slots, which come last and all have generation 0, are kept as a range.
///
/// ```
/// use ecs::{Entity, Spawned};
///
/// pub struct Position(pub f32);
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems {}
///     }
/// }
///
/// let mut world = World::new();
/// let spawned: Spawned = world.step(|p| p.spawn_batch((0..3u8).map(|i| (Position(f32::from(i)),))).unwrap());
/// assert_eq!(spawned.len(), 3);
/// let handles: Vec<Entity> = spawned.collect();
/// world.step(|p| assert_eq!(p.get::<Position>(handles[2]).map(|p| p.0), Some(2.0)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Spawned {
    reused: std::vec::IntoIter<Entity>,
    fresh: Range<u32>,
}

impl Iterator for Spawned {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        self.reused
            .next()
            .or_else(|| self.fresh.next().map(|slot| Entity { slot, generation: 0 }))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for Spawned {
    #[inline]
    fn len(&self) -> usize {
        self.reused.len() + self.fresh.len()
    }
}

impl FusedIterator for Spawned {}
