//! `many`: a column of first instances, with the other instances of the
//! entities holding several kept apart (the layout and its figures are in
//! the `many` module's documentation).
//!
//! ```text
//! first: K             [e0.0][e1.0][e2.0][e3.0] ...  the column walks touch
//! more:  [u8]          [ 0  ][ 1  ][ 0  ][ 0  ] ...  1: `side[id].rest` holds instances
//! side:  [Side<T>]     first key, last key minted, rest: None | Box<{ values, keys }>
//! several: AtomicUsize how many ids have `more` set
//! ```

use super::drops::drop_each;
use super::{Column, Contiguous, Storage};
use crate::bounds::ComponentBounds;
use crate::error::EntityLimit;
use crate::handle::EntityId;
use crate::many::{InstanceKey, Many};
use core::cell::UnsafeCell;
use core::num::NonZeroU64;
use core::ops::Range;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicUsize, Ordering};

/// The column of a component declared `many`: its first instances in the
/// column `K` (`Contiguous` by default, or the `sparse_set`/`hash_map`
/// column `many(...)` names), and, per id, the keys and the other
/// instances.
///
/// Systems reach it through [`Instances`](crate::Instances),
/// [`InstancesMut`](crate::InstancesMut) and
/// [`Data::for_each_instance`](crate::Data::for_each_instance); the step
/// proxy through [`Defer::instances`](crate::Defer::instances) and its
/// siblings. As a [`Column`] its value of an id is the id's first instance,
/// and removing it removes every instance.
///
/// Invariants, for every id:
/// - `side[id]` and `more[id]` exist whenever `first` holds a value of
///   `id` (both are grown before a value is stored);
/// - `side[id].rest` is `Some` only while `first` holds a value of `id`,
///   and then holds at least one instance, with one key per instance;
/// - `more[id]` is 1 exactly when `side[id].rest` is `Some`, 0 otherwise,
///   and `several` counts the ids whose `more` is 1;
/// - the keys of an id's instances are distinct, each at most
///   `side[id].last_key`, which never decreases while the id's entity
///   lives (it moves with the entity when ids are packed or swapped).
///
/// ```
/// use ecs::storage::{Column, ManyColumn, Storage};
/// use ecs::{EntityId, EntityLimit, Many};
///
/// let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(8));
/// let id = EntityId::from_bits(3);
/// column.insert(id, Many::new("smoke"));
/// let sparks = column.instances_mut(id).unwrap().push("sparks");
/// let all = column.instances(id).unwrap();
/// assert_eq!(all.to_vec(), ["smoke", "sparks"]);
/// assert_eq!(all.get_by_key(sparks), Some(&"sparks"));
/// // As a column, the value of an id is its first instance; removing it
/// // removes them all.
/// assert_eq!(column.remove(id), Some(Many::new("smoke")));
/// assert!(column.instances(id).is_none());
/// ```
pub struct ManyColumn<T, K = Contiguous<Many<T>>> {
    first: K,
    more: Vec<UnsafeCell<u8>>,
    side: Vec<UnsafeCell<Side<T>>>,
    several: AtomicUsize,
}

/// The keys and other instances of one id.
pub(crate) struct Side<T> {
    /// The first instance's key (0 while the id holds none).
    first_key: u64,
    /// The last key minted at this id.
    last_key: u64,
    /// The instances after the first; never an empty `Rest`.
    rest: Option<Box<Rest<T>>>,
}

/// Instances after the first, in order, with their keys (as many keys as
/// values, the key of `values[i]` being `keys[i]`).
struct Rest<T> {
    values: Vec<T>,
    keys: Vec<InstanceKey>,
}

impl<T> Drop for Rest<T> {
    /// Every instance, even after a panicking `drop` (a `Vec` would abort
    /// on a second panic): the first panic is resumed at the end.
    fn drop(&mut self) {
        if const { core::mem::needs_drop::<T>() } {
            drop_each(core::mem::take(&mut self.values).into_iter(), drop);
        }
    }
}

impl<T> Side<T> {
    const EMPTY: Self = Side {
        first_key: 0,
        last_key: 0,
        rest: None,
    };

    /// A key no instance of this id's entity had.
    ///
    /// # Panics
    /// After 2^64 - 1 keys at one id (centuries at one per nanosecond).
    fn mint(&mut self) -> InstanceKey {
        self.last_key = self.last_key.checked_add(1).expect("instance keys exhausted");
        InstanceKey::from_nonzero(NonZeroU64::new(self.last_key).expect("incremented from 0 or more"))
    }

    fn first_key(&self) -> InstanceKey {
        InstanceKey::from_nonzero(NonZeroU64::new(self.first_key).expect("a held first instance has a key"))
    }

    fn len(&self) -> usize {
        1 + self.rest.as_ref().map_or(0, |r| r.values.len())
    }

    fn key(&self, i: usize) -> Option<InstanceKey> {
        match i {
            0 => Some(self.first_key()),
            _ => self.rest.as_ref()?.keys.get(i - 1).copied(),
        }
    }

    fn index_of(&self, key: InstanceKey) -> Option<usize> {
        if key.get() == self.first_key {
            return Some(0);
        }
        Some(1 + self.rest.as_ref()?.keys.iter().position(|&k| k == key)?)
    }

    fn rest(&self) -> &[T] {
        self.rest.as_ref().map_or(&[], |r| &r.values)
    }

    fn rest_mut(&mut self) -> &mut [T] {
        self.rest.as_mut().map_or(&mut [], |r| &mut r.values)
    }

    fn rest_keys(&self) -> &[InstanceKey] {
        self.rest.as_ref().map_or(&[], |r| &r.keys)
    }
}

// SAFETY: shared, the column hands out `&Many<T>`/`&T` (reads of `T` from
// several threads: `T: Sync`) and raw pointers to per-id slots that the
// scheduler gives one thread at a time (the `Column` contract); `several`
// is atomic. Only `T: Send + Sync` and `K`'s own thread safety are needed.
unsafe impl<T: ComponentBounds, K: Sync> Sync for ManyColumn<T, K> {}
// SAFETY: it owns `T`s (in `first` and boxes), which are `Send`.
unsafe impl<T: ComponentBounds, K: Send> Send for ManyColumn<T, K> {}

impl<T, K: Column<Item = Many<T>>> ManyColumn<T, K> {
    /// Makes `side` and `more` cover id `i`.
    fn cover(&mut self, i: usize) {
        if i >= self.side.len() {
            self.grow(i);
        }
    }

    #[cold]
    fn grow(&mut self, i: usize) {
        let len = (i + 1).max(self.side.len() * 2);
        self.side.resize_with(len, || UnsafeCell::new(Side::EMPTY));
        self.more.resize_with(len, || UnsafeCell::new(0));
    }

    /// Takes id `i`'s other instances out, keeping the invariants.
    fn take_rest(&mut self, i: usize) -> Option<Box<Rest<T>>> {
        let side = self.side.get_mut(i)?.get_mut();
        let rest = side.rest.take()?;
        *self.more[i].get_mut() = 0;
        *self.several.get_mut() -= 1;
        Some(rest)
    }

    /// The instances of `id`, if it holds any.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// assert_eq!(column.instances(id).unwrap().to_vec(), ["smoke", "sparks"]);
    /// assert!(column.instances(EntityId::from_bits(1)).is_none());
    /// ```
    pub fn instances(&self, id: EntityId) -> Option<ManyRef<'_, T>> {
        let first = self.first.get(id)?;
        // SAFETY: `id` holds a value, so its side slot exists; `&self`
        // methods never write it, and writers hold `&mut self` or (systems)
        // the scheduler's exclusive right to `id`, which excludes this
        // shared borrow (the `Column` contract).
        let side = unsafe { &*self.side[id.index()].get() };
        Some(ManyRef { first: &first.0, side })
    }

    /// The instances of `id`, mutably, if it holds any.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// column.instances_mut(id).unwrap().push("fire");
    /// assert_eq!(column.instances(id).unwrap().len(), 3);
    /// ```
    pub fn instances_mut(&mut self, id: EntityId) -> Option<ManyMut<'_, T>> {
        let i = id.index();
        let Self {
            first,
            more,
            side,
            several,
        } = self;
        let first = first.get_mut(id)?;
        Some(ManyMut {
            first: &mut first.0,
            side: side[i].get_mut(),
            more: more[i].get_mut(),
            several,
        })
    }

    /// What systems' walks keep: the first instances' fetch state and the
    /// per-id arrays' addresses.
    pub(crate) fn many_fetch(&self) -> ManyFetch<T, K> {
        ManyFetch {
            first: self.first.fetch_state(),
            // `as_ptr` of a `Vec` is never null; `raw_get` keeps write
            // permission through the shared borrow.
            more: NonNull::new(UnsafeCell::raw_get(self.more.as_ptr())).expect("a Vec's pointer is never null"),
            side: NonNull::new(UnsafeCell::raw_get(self.side.as_ptr())).expect("a Vec's pointer is never null"),
            several: NonNull::from(&self.several),
        }
    }
}

/// A walk's state over a [`ManyColumn`] (see `many_fetch`).
#[doc(hidden)]
pub struct ManyFetch<T, K: Column> {
    pub(crate) first: K::Fetch,
    more: NonNull<u8>,
    side: NonNull<Side<T>>,
    several: NonNull<AtomicUsize>,
}

impl<T, K: Column> Clone for ManyFetch<T, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, K: Column> Copy for ManyFetch<T, K> {}

impl<T, K: Column<Item = Many<T>>> ManyFetch<T, K> {
    /// The instances of `id`, mutably.
    ///
    /// # Safety
    /// As [`Column::fetch`] for `id`, and for `'i` nothing else borrows
    /// `id`'s instances (the caller has the exclusive right to them).
    #[inline(always)]
    pub(crate) unsafe fn get_mut<'i>(self, id: EntityId) -> ManyMut<'i, T> {
        let i = id.index();
        ManyMut {
            // SAFETY: the state is live and `id` holds a value (caller).
            first: unsafe { &mut (*K::fetch(self.first, id).as_ptr()).0 },
            // SAFETY: `id` holds a value, so its slots exist (invariant);
            // each id has its own, borrowed by nothing else (caller).
            side: unsafe { &mut *self.side.as_ptr().add(i) },
            // SAFETY: as for `side`.
            more: unsafe { &mut *self.more.as_ptr().add(i) },
            // SAFETY: the column is live (caller); the count is atomic.
            several: unsafe { self.several.as_ref() },
        }
    }

    /// The instances of `id`.
    ///
    /// # Safety
    /// As [`Column::fetch`] for `id`, and for `'i` nothing borrows `id`'s
    /// instances mutably.
    #[inline(always)]
    pub(crate) unsafe fn get<'i>(self, id: EntityId) -> ManyRef<'i, T> {
        ManyRef {
            // SAFETY: the state is live and `id` holds a value (caller).
            first: unsafe { &(*K::fetch(self.first, id).as_ptr()).0 },
            // SAFETY: `id` holds a value, so its slot exists (invariant),
            // and nothing writes it for `'i` (caller).
            side: unsafe { &*self.side.as_ptr().add(id.index()) },
        }
    }

    /// Calls `f` with a pointer to each instance after the first of each
    /// id of `ids` (ascending, and consecutive when `run`), with the id.
    /// Blocks of 8 consecutive ids are checked with one load of their
    /// `more` bytes.
    ///
    /// # Safety
    /// The column is live and shared-borrowed throughout; every id of
    /// `ids` holds a value, and the caller has the right to the instances
    /// of each (exclusive if it writes through the pointers), which the
    /// pointer is valid for until `f` returns; `f` does not add or remove
    /// instances of these ids.
    #[inline(always)]
    pub(crate) unsafe fn for_each_extra(
        self,
        ids: &[EntityId],
        run: bool,
        mutable: bool,
        mut f: impl FnMut(EntityId, *mut T),
    ) {
        // SAFETY: the column is live (caller).
        if unsafe { self.several.as_ref() }.load(Ordering::Relaxed) == 0 {
            // None of the ids holds more than one: the walk of first
            // instances was all. (Ids the caller has the right to change
            // only under that right, so a count of 0 read here cannot hide
            // one of them.)
            return;
        }
        let more = self.more.as_ptr();
        let mut visit = |id: EntityId| {
            let side = self.side.as_ptr().wrapping_add(id.index());
            if mutable {
                // SAFETY: `id` holds a value, so its slot exists, and the
                // caller has the exclusive right to its instances.
                if let Some(rest) = unsafe { &mut *side }.rest.as_mut() {
                    let values = rest.values.as_mut_ptr();
                    for j in 0..rest.values.len() {
                        // SAFETY: `j < len`: an instance of `id`.
                        f(id, unsafe { values.add(j) });
                    }
                }
            } else {
                // SAFETY: `id` holds a value, so its slot exists, and the
                // caller has the right to read its instances (shared: other
                // readers may hold shared borrows too).
                if let Some(rest) = unsafe { &*side }.rest.as_ref() {
                    let values = rest.values.as_ptr();
                    for j in 0..rest.values.len() {
                        // SAFETY: `j < len`: an instance of `id`, for reads
                        // only (`mutable` is false).
                        f(id, unsafe { values.add(j) }.cast_mut());
                    }
                }
            }
        };
        if run && let Some(&start) = ids.first() {
            let blocks = ids.len() / 8;
            for b in 0..blocks {
                let at = start.index() + b * 8;
                // SAFETY: the 8 ids `at..at + 8` are ids of `ids` (one run),
                // so their bytes exist and are the caller's to read; an
                // unaligned read of the 8 bytes, which are plain `u8`s.
                let mut bits = unsafe { more.add(at).cast::<u64>().read_unaligned() };
                // Only the ids whose byte is set (a byte is 0 or 1).
                while bits != 0 {
                    let j = (bits.trailing_zeros() / 8) as usize;
                    visit(EntityId((at + j) as u32));
                    bits &= bits - 1;
                }
            }
            for &id in &ids[blocks * 8..] {
                visit(id);
            }
        } else {
            for &id in ids {
                // SAFETY: `id` holds a value, so its byte exists.
                if unsafe { *more.add(id.index()) } != 0 {
                    visit(id);
                }
            }
        }
    }
}

impl<T: ComponentBounds, K: Column<Item = Many<T>> + Storage> Storage for ManyColumn<T, K> {
    fn new(limit: EntityLimit) -> Self {
        let mut c = ManyColumn {
            first: K::new(limit),
            more: Vec::new(),
            side: Vec::new(),
            several: AtomicUsize::new(0),
        };
        let n = limit.initial_capacity();
        if n > 0 {
            c.grow(n - 1);
        }
        c
    }
}

// SAFETY: the values are `first`'s, which keeps the contract; the methods
// below change what an id holds only through `first`'s methods for the ids
// named, and move the per-id slots with the values (`relocate`, `swap`);
// `&self` methods touch only the slots of the id asked for. A panic in a
// drop of other instances (`insert`, `remove`) happens after `first` and
// the slots are consistent, the id holding what the call leaves it.
unsafe impl<T: ComponentBounds, K: Column<Item = Many<T>> + Storage> Column for ManyColumn<T, K> {
    type Item = Many<T>;
    const LINEAR: bool = K::LINEAR;

    fn insert(&mut self, id: EntityId, value: Many<T>) -> Option<Many<T>> {
        let i = id.index();
        self.cover(i);
        let old = self.first.insert(id, value);
        let side = self.side[i].get_mut();
        side.first_key = side.mint().get();
        // A value replaced is the set replaced: its other instances go.
        drop(self.take_rest(i));
        old
    }

    fn insert_new(&mut self, id: EntityId, value: Many<T>) {
        let i = id.index();
        self.cover(i);
        self.first.insert_new(id, value);
        let side = self.side[i].get_mut();
        side.first_key = side.mint().get();
        drop(self.take_rest(i));
    }

    fn prepare_fill(&mut self, ids: Range<usize>) -> Option<NonNull<Many<T>>> {
        if ids.is_empty() {
            return self.first.prepare_fill(ids);
        }
        self.cover(ids.end - 1);
        if *self.several.get_mut() > 0 {
            // Fresh ids hold no other instances (only a held value has
            // them); dropped should one be there all the same.
            for i in ids.clone() {
                drop(self.take_rest(i));
            }
        }
        self.first.prepare_fill(ids)
    }

    unsafe fn fill(&mut self, ids: Range<usize>) {
        // SAFETY: forwarded: `prepare_fill` forwarded to `first` for a
        // range containing `ids`.
        unsafe { self.first.fill(ids.clone()) };
        for i in ids {
            let side = self.side[i].get_mut();
            side.first_key = side.mint().get();
        }
    }

    fn remove(&mut self, id: EntityId) -> Option<Many<T>> {
        let value = self.first.remove(id)?;
        let i = id.index();
        self.side[i].get_mut().first_key = 0;
        // Dropped after the slots are consistent: a panic leaves `id`
        // holding nothing, as the call does.
        drop(self.take_rest(i));
        Some(value)
    }

    fn relocate(&mut self, from: EntityId, to: EntityId) {
        let (f, t) = (from.index(), to.index());
        if f == t || !self.first.contains(from) {
            return;
        }
        self.cover(t);
        self.first.relocate(from, to);
        // `first` moved the value to `to` (or exchanged it with one no
        // entity claims): the slots follow.
        self.side.swap(f, t);
        self.more.swap(f, t);
    }

    fn swap(&mut self, a: EntityId, b: EntityId) {
        if a == b {
            return;
        }
        self.first.swap(a, b);
        let (a, b) = (a.index(), b.index());
        self.side.swap(a, b);
        self.more.swap(a, b);
    }

    #[inline]
    fn contains(&self, id: EntityId) -> bool {
        self.first.contains(id)
    }

    #[inline]
    fn get(&self, id: EntityId) -> Option<&Many<T>> {
        self.first.get(id)
    }

    #[inline]
    fn get_mut(&mut self, id: EntityId) -> Option<&mut Many<T>> {
        self.first.get_mut(id)
    }

    #[inline]
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<Many<T>>> {
        self.first.get_ptr(id)
    }

    type Fetch = K::Fetch;

    #[inline]
    fn fetch_state(&self) -> K::Fetch {
        self.first.fetch_state()
    }

    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn fetch(state: K::Fetch, id: EntityId) -> NonNull<Many<T>> {
        // SAFETY: forwarded from the caller.
        unsafe { K::fetch(state, id) }
    }

    #[inline]
    unsafe fn get_ptr_unchecked(&self, id: EntityId) -> NonNull<Many<T>> {
        // SAFETY: forwarded from the caller.
        unsafe { self.first.get_ptr_unchecked(id) }
    }
}

impl<T, K> Drop for ManyColumn<T, K> {
    /// The other instances, even after a panicking `drop`; `first` drops
    /// its own after this (as a field, also while this unwinds).
    fn drop(&mut self) {
        if const { core::mem::needs_drop::<T>() } && *self.several.get_mut() > 0 {
            drop_each(self.side.iter_mut(), |s| drop(s.get_mut().rest.take()));
        }
    }
}

/// The instances an entity holds of a `many` component: the first, then
/// the others in the order they were added. Handed out by the
/// [`Instances`](crate::Instances) query and
/// [`Defer::instances`](crate::Defer::instances).
///
/// ```
/// # #[derive(Clone, Debug, PartialEq)] pub struct Emitter(pub u8);
/// ecs::declare_context! {
///     pub context World {
///         components { Emitter: many; }
///         systems {}
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.create().unwrap();
///     let a = p.add_instance(e, Emitter(1)).unwrap();
///     let b = p.add_instance(e, Emitter(2)).unwrap();
///     let all = p.instances::<Emitter>(e).unwrap();
///     assert_eq!((all.len(), all.first(), all.get(1)), (2, &Emitter(1), Some(&Emitter(2))));
///     assert_eq!(all.keys().collect::<Vec<_>>(), [a, b]);
///     assert_eq!(all.index_of(b), Some(1));
/// });
/// ```
pub struct ManyRef<'a, T> {
    first: &'a T,
    side: &'a Side<T>,
}

impl<T> Clone for ManyRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ManyRef<'_, T> {}

impl<'a, T> ManyRef<'a, T> {
    /// The number of instances (at least 1).
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.len(), 2);
    /// ```
    #[inline]
    #[expect(
        clippy::len_without_is_empty,
        reason = "an entity holding the component holds an instance"
    )]
    pub fn len(&self) -> usize {
        self.side.len()
    }

    /// The first instance.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.first(), &"smoke");
    /// ```
    #[inline]
    pub fn first(&self) -> &'a T {
        self.first
    }

    /// The instance at `index`, if there is one.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.get(1), Some(&"sparks"));
    /// assert_eq!(all.get(2), None);
    /// ```
    #[inline]
    pub fn get(&self, index: usize) -> Option<&'a T> {
        match index {
            0 => Some(self.first),
            i => self.side.rest().get(i - 1),
        }
    }

    /// The instances, in order.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert!(all.iter().eq(&["smoke", "sparks"]));
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &'a T> + use<'a, T> {
        core::iter::once(self.first).chain(self.side.rest())
    }

    /// The keys of the instances, in the same order as [`iter`](Self::iter).
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.keys().nth(1), Some(sparks));
    /// assert_eq!(all.keys().count(), 2);
    /// ```
    pub fn keys(&self) -> impl Iterator<Item = InstanceKey> + use<'a, T> {
        core::iter::once(self.side.first_key()).chain(self.side.rest_keys().iter().copied())
    }

    /// The key of the instance at `index`, if there is one.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.key(1), Some(sparks));
    /// assert_eq!(all.key(2), None);
    /// ```
    #[inline]
    pub fn key(&self, index: usize) -> Option<InstanceKey> {
        self.side.key(index)
    }

    /// Where the instance named `key` is now; `None` when the entity does
    /// not hold it.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.index_of(sparks), Some(1));
    /// ```
    #[inline]
    pub fn index_of(&self, key: InstanceKey) -> Option<usize> {
        self.side.index_of(key)
    }

    /// The instance named `key`, if the entity holds it.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.get_by_key(sparks), Some(&"sparks"));
    /// ```
    #[inline]
    pub fn get_by_key(&self, key: InstanceKey) -> Option<&'a T> {
        self.get(self.index_of(key)?)
    }

    /// The instances with their keys.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.iter_keyed().nth(1), Some((sparks, &"sparks")));
    /// ```
    pub fn iter_keyed(&self) -> impl Iterator<Item = (InstanceKey, &'a T)> + use<'a, T> {
        self.keys().zip(self.iter())
    }

    /// The instances, cloned into a `Vec`.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let all = column.instances(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.to_vec(), ["smoke", "sparks"]);
    /// ```
    pub fn to_vec(&self) -> Vec<T>
    where
        T: Clone,
    {
        self.iter().cloned().collect()
    }
}

impl<'a, T> IntoIterator for ManyRef<'a, T> {
    type Item = &'a T;
    type IntoIter = core::iter::Chain<core::iter::Once<&'a T>, core::slice::Iter<'a, T>>;
    fn into_iter(self) -> Self::IntoIter {
        core::iter::once(self.first).chain(self.side.rest().iter())
    }
}

impl<T: core::fmt::Debug> core::fmt::Debug for ManyRef<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map()
            .entries(self.iter_keyed().map(|(k, v)| (k.get(), v)))
            .finish()
    }
}

/// The instances an entity holds of a `many` component, mutably: handed
/// out by the [`InstancesMut`](crate::InstancesMut) query and
/// [`Defer::instances_mut`](crate::Defer::instances_mut). Instances can be
/// changed, added and removed, except the last one (an entity holding the
/// component holds an instance, so the systems it matches stay the same
/// during a run): take that one with
/// [`Defer::remove_instance`](crate::Defer::remove_instance).
///
/// ```
/// # #[derive(Clone, Debug, PartialEq)] pub struct Emitter(pub u8);
/// ecs::declare_context! {
///     pub context World {
///         components { Emitter: many; }
///         systems {}
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.spawn((ecs::Many::new(Emitter(1)),)).unwrap();
///     let mut all = p.instances_mut::<Emitter>(e).unwrap();
///     let two = all.push(Emitter(2));
///     let three = all.push(Emitter(3));
///     for em in all.iter_mut() {
///         em.0 *= 10;
///     }
///     let first = all.key(0).unwrap();
///     assert_eq!(all.swap_remove(first), Some(Emitter(10)));
///     assert_eq!(all.index_of(three), Some(0), "the last took the first place");
///     assert_eq!(all.remove(three), Some(Emitter(30)));
///     assert_eq!(all.remove(two), None, "the last instance stays");
/// });
/// ```
pub struct ManyMut<'a, T> {
    first: &'a mut T,
    side: &'a mut Side<T>,
    more: &'a mut u8,
    several: &'a AtomicUsize,
}

impl<'a, T> ManyMut<'a, T> {
    /// The instances, read-only.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.as_ref().to_vec(), ["smoke", "sparks"]);
    /// ```
    #[inline]
    pub fn as_ref(&self) -> ManyRef<'_, T> {
        ManyRef {
            first: self.first,
            side: self.side,
        }
    }

    /// The number of instances (at least 1).
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.len(), 2);
    /// ```
    #[inline]
    #[expect(
        clippy::len_without_is_empty,
        reason = "an entity holding the component holds an instance"
    )]
    pub fn len(&self) -> usize {
        self.side.len()
    }

    /// The instance at `index`, if there is one.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.get(1), Some(&"sparks"));
    /// assert_eq!(all.get(2), None);
    /// ```
    #[inline]
    pub fn get(&self, index: usize) -> Option<&T> {
        self.as_ref().get(index)
    }

    /// The instance at `index`, mutably, if there is one.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// *all.get_mut(1).unwrap() = "embers";
    /// assert_eq!(all.get(1), Some(&"embers"));
    /// ```
    #[inline]
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        match index {
            0 => Some(self.first),
            i => self.side.rest_mut().get_mut(i - 1),
        }
    }

    /// The first instance, mutably.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// *all.first_mut() = "fog";
    /// assert_eq!(all.get(0), Some(&"fog"));
    /// ```
    #[inline]
    pub fn first_mut(&mut self) -> &mut T {
        self.first
    }

    /// The instances, in order.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// assert!(all.iter().eq(&["smoke", "sparks"]));
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.as_ref().iter()
    }

    /// The instances, mutably, in order.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// all.iter_mut().for_each(|e| *e = "ash");
    /// assert!(all.iter().eq(&["ash", "ash"]));
    /// ```
    #[inline]
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        // The side slot is read only when the `more` byte says it holds
        // instances: a walk over entities of one instance touches no slot.
        let rest = if *self.more != 0 { self.side.rest_mut() } else { &mut [] };
        IterMut {
            head: core::slice::from_mut(&mut *self.first).iter_mut(),
            rest: rest.iter_mut(),
        }
    }

    /// The key of the instance at `index`, if there is one.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.key(1), Some(sparks));
    /// ```
    #[inline]
    pub fn key(&self, index: usize) -> Option<InstanceKey> {
        self.side.key(index)
    }

    /// The keys of the instances, in order.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.keys().nth(1), Some(sparks));
    /// ```
    pub fn keys(&self) -> impl Iterator<Item = InstanceKey> + '_ {
        self.as_ref().keys()
    }

    /// Where the instance named `key` is now; `None` when the entity does
    /// not hold it.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.index_of(sparks), Some(1));
    /// ```
    #[inline]
    pub fn index_of(&self, key: InstanceKey) -> Option<usize> {
        self.side.index_of(key)
    }

    /// The instance named `key`, if the entity holds it.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// assert_eq!(all.get_by_key(sparks), Some(&"sparks"));
    /// ```
    #[inline]
    pub fn get_by_key(&self, key: InstanceKey) -> Option<&T> {
        self.get(self.index_of(key)?)
    }

    /// The instance named `key`, mutably, if the entity holds it.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// *all.get_by_key_mut(sparks).unwrap() = "embers";
    /// assert_eq!(all.get(1), Some(&"embers"));
    /// ```
    #[inline]
    pub fn get_by_key_mut(&mut self, key: InstanceKey) -> Option<&mut T> {
        let i = self.index_of(key)?;
        self.get_mut(i)
    }

    /// The first instance and the others, for the view's whole lifetime.
    pub(crate) fn split(self) -> (&'a mut T, &'a mut [T]) {
        (self.first, self.side.rest_mut())
    }

    /// Adds an instance after the others and returns its key, which no
    /// instance of this entity had before.
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// let fire = all.push("fire");
    /// assert_eq!(all.get_by_key(fire), Some(&"fire"));
    /// assert_eq!(all.len(), 3);
    /// ```
    pub fn push(&mut self, value: T) -> InstanceKey {
        let key = self.side.mint();
        match &mut self.side.rest {
            Some(rest) => {
                // Room for both first, so that the two stay the same length.
                rest.keys.reserve(1);
                rest.values.push(value);
                rest.keys.push(key);
            }
            None => {
                self.side.rest = Some(Box::new(Rest {
                    values: vec![value],
                    keys: vec![key],
                }));
                *self.more = 1;
                self.several.fetch_add(1, Ordering::Relaxed);
            }
        }
        key
    }

    /// Removes the instance named `key` and returns it, keeping the order
    /// of the others; `None` when the entity does not hold it, or when it
    /// is the only instance (which stays).
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// all.push("fire");
    /// all.push("embers");
    /// assert_eq!(all.remove(sparks), Some("sparks"));
    /// assert!(all.iter().eq(&["smoke", "fire", "embers"]));
    /// ```
    pub fn remove(&mut self, key: InstanceKey) -> Option<T> {
        self.take(key, false)
    }

    /// Removes the instance named `key` and returns it, moving the last
    /// instance into its place (O(1)); `None` as for
    /// [`remove`](Self::remove).
    ///
    /// # Examples
    /// ```
    /// # use ecs::storage::{Column, ManyColumn, Storage};
    /// # use ecs::{EntityId, EntityLimit, Many};
    /// # let mut column = ManyColumn::<&str>::new(EntityLimit::Fixed(1));
    /// # let id = EntityId::from_bits(0);
    /// # column.insert(id, Many::new("smoke"));
    /// # let sparks = column.instances_mut(id).unwrap().push("sparks");
    /// let mut all = column.instances_mut(id).unwrap(); // "smoke", then "sparks"
    /// all.push("fire");
    /// all.push("embers");
    /// assert_eq!(all.swap_remove(sparks), Some("sparks"));
    /// assert!(all.iter().eq(&["smoke", "embers", "fire"]));
    /// ```
    pub fn swap_remove(&mut self, key: InstanceKey) -> Option<T> {
        self.take(key, true)
    }

    fn take(&mut self, key: InstanceKey, swap: bool) -> Option<T> {
        let i = self.side.index_of(key)?;
        let rest = self.side.rest.as_mut()?;
        let value = if i == 0 {
            let (next, next_key) = if swap {
                (rest.values.pop(), rest.keys.pop())
            } else {
                (Some(rest.values.remove(0)), Some(rest.keys.remove(0)))
            };
            let (Some(next), Some(next_key)) = (next, next_key) else {
                unreachable!("a `Rest` is never empty")
            };
            self.side.first_key = next_key.get();
            core::mem::replace(self.first, next)
        } else if swap {
            rest.keys.swap_remove(i - 1);
            rest.values.swap_remove(i - 1)
        } else {
            rest.keys.remove(i - 1);
            rest.values.remove(i - 1)
        };
        if self.side.rest.as_ref().is_some_and(|r| r.values.is_empty()) {
            // Back to one instance: the empty `Rest` holds no value to drop.
            self.side.rest = None;
            *self.more = 0;
            self.several.fetch_sub(1, Ordering::Relaxed);
        }
        Some(value)
    }
}

/// The instances of a [`ManyMut`], mutably, in order (its
/// [`iter_mut`](ManyMut::iter_mut)).
///
/// ```
/// # pub struct Emitter(pub u8);
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Emitter: many; }
/// #         systems {}
/// #     }
/// # }
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.spawn((ecs::Many::new(Emitter(1)),)).unwrap();
///     p.add_instance(e, Emitter(2)).unwrap();
///     let mut all = p.instances_mut::<Emitter>(e).unwrap();
///     let iter = all.iter_mut();
///     assert_eq!(iter.len(), 2);
///     assert_eq!(iter.map(|em| em.0).sum::<u8>(), 3);
/// });
/// ```
pub struct IterMut<'a, T> {
    /// The first instance, then (once it is taken) the others.
    head: core::slice::IterMut<'a, T>,
    /// The others, until `head` takes them.
    rest: core::slice::IterMut<'a, T>,
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = &'a mut T;

    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        match self.head.next() {
            Some(x) => Some(x),
            None => {
                self.head = core::mem::take(&mut self.rest);
                self.head.next()
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.head.len() + self.rest.len();
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for IterMut<'_, T> {}

impl<T: core::fmt::Debug> core::fmt::Debug for ManyMut<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.as_ref().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn column(limit: EntityLimit) -> ManyColumn<Arc<u32>> {
        ManyColumn::new(limit)
    }

    #[test]
    fn contract_of_first_instances() {
        for limit in [EntityLimit::Fixed(200), EntityLimit::Dynamic { initial: 0 }] {
            let mut c: ManyColumn<u64> = ManyColumn::new(limit);
            let ids = [0u32, 7, 3, 100, 42];
            for &i in &ids {
                assert_eq!(c.insert(EntityId(i), Many::new(i as u64)), None);
            }
            c.instances_mut(EntityId(7)).unwrap().push(70);
            c.swap(EntityId(7), EntityId(100));
            assert_eq!(c.instances(EntityId(100)).unwrap().to_vec(), [7, 70]);
            assert_eq!(c.instances(EntityId(7)).unwrap().to_vec(), [100]);
            c.relocate(EntityId(100), EntityId(150));
            assert!(!c.contains(EntityId(100)));
            assert_eq!(c.instances(EntityId(150)).unwrap().to_vec(), [7, 70]);
            assert_eq!(c.remove(EntityId(150)).map(Many::into_inner), Some(7));
            assert_eq!(*c.several.get_mut(), 0);
        }
    }

    #[test]
    fn keys_stay_with_their_instance() {
        let mut c = column(EntityLimit::Dynamic { initial: 2 });
        let v = |n| Arc::new(n);
        c.insert(EntityId(1), Many::new(v(0)));
        let mut m = c.instances_mut(EntityId(1)).unwrap();
        let k0 = m.key(0).unwrap();
        let keys: Vec<_> = (1..5).map(|n| m.push(v(n))).collect();
        assert_eq!(m.remove(k0).as_deref(), Some(&0));
        assert_eq!(m.get_by_key(keys[0]).map(|a| **a), Some(1));
        assert_eq!(m.index_of(keys[0]), Some(0));
        assert_eq!(m.swap_remove(keys[0]).as_deref(), Some(&1));
        // The last moved into the first place, with its key.
        assert_eq!(m.index_of(keys[3]), Some(0));
        assert_eq!(m.iter().map(|a| **a).collect::<Vec<_>>(), [4, 2, 3]);
        assert_eq!(m.swap_remove(keys[1]).as_deref(), Some(&2));
        assert_eq!(m.remove(keys[3]).as_deref(), Some(&4));
        assert_eq!(m.remove(keys[2]), None, "the last instance stays");
        assert_eq!(m.len(), 1);
        assert_eq!(*c.several.get_mut(), 0);
        assert_eq!(*c.more[1].get_mut(), 0);
        // A key minted after removals is new.
        let fresh = c.instances_mut(EntityId(1)).unwrap().push(v(9));
        assert!(!keys.contains(&fresh) && fresh != k0);
        // Removing the component and adding it again keeps counting.
        drop(c.remove(EntityId(1)));
        c.insert(EntityId(1), Many::new(v(10)));
        let again = c.instances(EntityId(1)).unwrap().key(0).unwrap();
        assert!(again.get() > fresh.get());
    }

    #[test]
    fn every_instance_dropped_once() {
        let rc = Arc::new(0);
        {
            let mut c = column(EntityLimit::Fixed(16));
            for i in 0..8 {
                c.insert(EntityId(i), Many::new(rc.clone()));
                for _ in 0..i % 3 {
                    c.instances_mut(EntityId(i)).unwrap().push(rc.clone());
                }
            }
            assert_eq!(Arc::strong_count(&rc), 1 + 8 + 7);
            drop(c.remove(EntityId(2)));
            drop(c.insert(EntityId(5), Many::new(rc.clone())));
            assert_eq!(Arc::strong_count(&rc), 1 + 7 + 3);
        }
        assert_eq!(Arc::strong_count(&rc), 1);
    }
}
