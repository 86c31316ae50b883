//! `hash_map`: values packed in an array and found through a hash map from
//! id, for large components that few entities hold.

use super::drops::{drop_each, DropRun, Drops};
use super::packed::{Packed, RawPacked};
use super::{Column, Storage};
use crate::bounds::ComponentBounds;
use crate::error::EntityLimit;
use crate::handle::EntityId;
use core::alloc::Layout;
use core::mem::ManuallyDrop;
use core::ops::Range;
use core::ptr::NonNull;
use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;

/// Memory only for the entities that hold the component; lookups hash the id.
///
/// The values are packed in one array (swap-remove, as `sparse_set` does);
/// a hash map from id to packed index finds them. The map and the ids are
/// the same types for every component, so their code (hashing, probing,
/// growing the table) is compiled once, not once per component type.
///
/// Invariant: `values.len() == ids.owners.len()`; for every stored id,
/// `owners[slots[id]] == id`, and `slots` has no other key.
///
/// ```
/// use ecs::storage::{Column, HashMapStorage, Storage};
/// use ecs::{EntityId, EntityLimit};
///
/// let mut column = HashMapStorage::<String>::new(EntityLimit::Dynamic { initial: 0 });
/// let id = EntityId::from_bits(3);
/// assert_eq!(column.insert(id, "a".to_string()), None);
/// assert_eq!(column.insert(id, "b".to_string()), Some("a".to_string()));
/// assert_eq!(column.get(id), Some(&"b".to_string()));
/// assert_eq!(column.remove(id), Some("b".to_string()));
/// assert!(!column.contains(id));
/// ```
// `repr(C)`, as `SparseSetStorage`'s: the layout of
// `HashMapStorage<()>` for every `T` (`discard_hash_map`).
#[repr(C)]
pub struct HashMapStorage<T> {
    values: Packed<T>,
    ids: Ids,
}

/// The untyped parts of a [`HashMapStorage`], in its field order and
/// `repr(C)`: the layout of every `HashMapStorage<T>` (`Packed<T>` is
/// `repr(transparent)` over `RawPacked`), which `new` makes of it.
#[repr(C)]
struct Parts {
    values: RawPacked,
    ids: Ids,
}

/// An empty storage's parts: values of layout `item` dropped by `drop`.
/// Built here, not in the generic `new`: there, the values built before
/// the map (a call that can unwind) had a landing pad dropping them in
/// every component type's copy (`HashMapStorage::new`, 300 lines of a
/// debug build's IR at 64/32, 10 copies).
#[inline(never)]
fn empty_parts(item: Layout, drop: Option<DropRun>) -> Parts {
    Parts {
        values: RawPacked::new(item, drop, 0),
        ids: Ids::default(),
    }
}

/// The id-to-index map and the packed ids of a [`HashMapStorage`], for every
/// component type alike.
///
/// Its fields are freed by its `drop`, compiled once here: left to the drop
/// glue, the map's and the vector's glue were compiled into every crate
/// declaring a context (the columns' glue calls this `drop` instead).
#[derive(Default)]
struct Ids {
    /// Packed index of each stored id.
    slots: ManuallyDrop<FxHashMap<u32, u32>>,
    /// The id of each packed value.
    owners: ManuallyDrop<Vec<EntityId>>,
}

impl Drop for Ids {
    fn drop(&mut self) {
        // SAFETY: `drop` runs once; neither field is used after. Neither
        // drop unwinds (they free plain integers' memory).
        unsafe {
            ManuallyDrop::drop(&mut self.slots);
            ManuallyDrop::drop(&mut self.owners);
        }
    }
}

impl Ids {
    /// The packed index of `id`'s value. Inlined: the lookup of every
    /// access and of iteration (one copy per crate, not per type).
    #[inline]
    fn slot(&self, id: EntityId) -> Option<usize> {
        self.slots.get(&id.0).map(|&p| p as usize)
    }

    /// The packed index of `id`'s value, `Ok` when it has one; otherwise
    /// gives `id` the next packed index, returned as `Err`: the caller
    /// pushes the value. Not inlined: each type's `insert` calls this one
    /// copy instead of holding its own lookup and insertion.
    #[inline(never)]
    fn find_or_claim(&mut self, id: EntityId) -> Result<usize, usize> {
        let next = self.owners.len();
        match self.slots.entry(id.0) {
            Entry::Occupied(e) => Ok(*e.get() as usize),
            Entry::Vacant(e) => {
                e.insert(next as u32);
                self.owners.push(id);
                Err(next)
            }
        }
    }

    /// `insert_new`'s id that held a value after all, in `values` of slots
    /// of `size` bytes: its value discarded (as `Column::discard` does),
    /// then the id given the next packed index, as a new one. Cold, out of
    /// line and not generic: inlined (the typed `discard`), it was compiled
    /// into every spawn of an optimised build.
    #[cold]
    #[inline(never)]
    fn discard_unclaimed(&mut self, values: &mut RawPacked, size: usize, id: EntityId) {
        if let Some(p) = self.swap_remove(id) {
            // SAFETY: `p` was a stored id's packed index, below the values'
            // length (the storage's invariant), and the map no longer names
            // it; `size` is the slots' size (the caller's `T`'s).
            unsafe { values.discard(p, size) };
        }
        let _ = self.find_or_claim(id);
    }

    /// A debug build's [`Column::insert_new`] of the `size` bytes at
    /// `value` (the values' size) for `id`, untyped: as the typed one
    /// does, an unclaimed value `id` held is discarded first.
    ///
    /// # Safety
    /// `value` points to `size` readable and writable bytes of a value of `values`'
    /// type, which needs no drop (a panic before it is stored leaks it),
    /// outside `values`' buffer; `values` are this map's.
    #[cfg(debug_assertions)]
    unsafe fn insert_bytes(&mut self, values: &mut RawPacked, id: EntityId, value: *mut u8, size: usize) {
        values.reserve_one();
        if self.find_or_claim(id).is_ok() {
            self.discard_unclaimed(values, size, id);
        }
        // SAFETY: the caller's contract; `id` now names the next packed
        // index, where the value goes.
        unsafe { values.push_bytes(value, size) };
    }

    /// Takes `id` out of the map the way `swap_remove(p)` takes its value
    /// out of the packed values, and returns `p`: the last packed id moves
    /// to `p`.
    #[inline(never)]
    fn swap_remove(&mut self, id: EntityId) -> Option<usize> {
        let p = self.slots.remove(&id.0)? as usize;
        self.owners.swap_remove(p);
        if let Some(&moved) = self.owners.get(p)
            && let Some(slot) = self.slots.get_mut(&moved.0)
        {
            *slot = p as u32;
        }
        Some(p)
    }

    /// Gives the value of `from` to `to`, and the value `to` held, if any
    /// (one no entity claims), to `from`: the values stay where they are
    /// packed, only their owners change.
    #[inline(never)]
    fn relocate(&mut self, from: EntityId, to: EntityId) {
        let Some(p) = self.slots.remove(&from.0) else {
            return;
        };
        if let Some(q) = self.slots.insert(to.0, p) {
            self.slots.insert(from.0, q);
            self.owners[q as usize] = from;
        }
        self.owners[p as usize] = to;
    }

    /// The stored ids in `range`, when there are fewer stored ids than ids
    /// in the range; `None` when removing the range id by id is cheaper.
    #[inline(never)]
    fn stored_in(&self, range: Range<usize>) -> Option<Vec<EntityId>> {
        (range.len() > self.owners.len()).then(|| {
            self.owners
                .iter()
                .copied()
                .filter(|id| range.contains(&id.index()))
                .collect()
        })
    }
}

// SAFETY: as for `Contiguous`: shared access hands out `&T` and raw pointers
// whose writes the scheduler coordinates per id; the packed values and the
// map change only under `&mut self`.
unsafe impl<T: ComponentBounds> Sync for HashMapStorage<T> {}
// SAFETY: its fields are a `Vec` of `T`s, and a map and a `Vec` of ids, which
// are `Send` when `T` is, and `T: Send`. Written out (not derived) so that a
// `T` that is not thread-safe reports `ComponentBounds`'s one error, not
// `Send`'s besides.
unsafe impl<T: ComponentBounds> Send for HashMapStorage<T> {}

impl<T: ComponentBounds> Storage for HashMapStorage<T> {
    // Always inlined: see `Contiguous`'s.
    #[inline(always)]
    fn new(_limit: EntityLimit) -> Self {
        let parts = empty_parts(const { Layout::new::<T>() }, Drops::<T>::RUN);
        // SAFETY: `Parts` has `Self`'s layout (see `Parts`), and `parts`
        // meets `Self`'s invariants: its values' slots have `T`'s layout
        // and `T`'s drop function, and it is empty. A transmute, not a
        // call: see `SparseSetStorage::new`.
        unsafe { core::mem::transmute::<Parts, Self>(parts) }
    }
}

impl<T> HashMapStorage<T> {
    /// The typed body of [`Column::insert_new`]: an optimised build's for
    /// every value, a debug build's for a value that needs a drop (one
    /// that needs none is copied by untyped code there). Inlined into the
    /// optimised build's `insert_new`, which stays that build's only body.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn insert_typed(&mut self, id: EntityId, value: T) {
        self.values.reserve_one();
        if self.ids.find_or_claim(id).is_ok() {
            // Not new after all (an unclaimed value, left by a spawn that
            // panicked): the old value is discarded first, out of line and
            // untyped (the map first: a panicking `drop` leaves the column
            // without it), then `id` claims the next packed index.
            self.ids
                .discard_unclaimed(self.values.raw_mut(), const { size_of::<T>() }, id);
        }
        self.values.push(value);
    }

    /// Number of ids holding a value.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{Column, HashMapStorage, Storage};
    /// use ecs::{EntityId, EntityLimit};
    ///
    /// let mut column = HashMapStorage::<u64>::new(EntityLimit::Dynamic { initial: 0 });
    /// assert!(column.is_empty());
    /// column.insert(EntityId::from_bits(5), 1);
    /// column.insert(EntityId::from_bits(900), 2);
    /// assert_eq!(column.len(), 2);
    /// column.remove(EntityId::from_bits(5));
    /// assert_eq!(column.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no id holds a value.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{Column, HashMapStorage, Storage};
    /// use ecs::{EntityId, EntityLimit};
    ///
    /// let mut column = HashMapStorage::<u64>::new(EntityLimit::Dynamic { initial: 0 });
    /// assert!(column.is_empty());
    /// column.insert(EntityId::from_bits(9), 1);
    /// assert!(!column.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.values.len() == 0
    }
}

// SAFETY: each stored id owns one slot of the packed values (the
// invariant), reached through the array's raw pointer (writes allowed
// under `&self`); the values move only in `&mut self` methods; `&self`
// methods touch only the slot of the id asked for.
unsafe impl<T: ComponentBounds> Column for HashMapStorage<T> {
    type Item = T;

    fn insert(&mut self, id: EntityId, value: T) -> Option<T> {
        // Room first, so that the map and the values stay in step should
        // growing fail (a value replaced in place needs none, and the
        // reservation then costs a comparison).
        self.values.reserve_one();
        match self.ids.find_or_claim(id) {
            Ok(p) => Some(self.values.replace(p, value)),
            Err(_) => {
                self.values.push(value);
                None
            }
        }
    }

    // `insert` without handing back a value, as `SparseSetStorage`'s.
    // Not `#[inline]`: as `insert`, left to the optimiser (with the hint,
    // inlined into every spawn, rustc's instructions for an optimised build
    // of `scripts/compile-cost`'s 64/32 rose by 3%).
    #[cfg(not(debug_assertions))]
    fn insert_new(&mut self, id: EntityId, value: T) {
        self.insert_typed(id, value);
    }

    // A debug build stores a value that needs no drop by `insert_bytes`,
    // compiled once; one that does as an optimised build does. In both
    // branches the value is moved before any call: no drop flag, no
    // unwinding path for it (the typed body was 45 lines of IR per
    // component type, 450 at 64 components / 32 systems, `cargo
    // llvm-lines`).
    #[cfg(debug_assertions)]
    fn insert_new(&mut self, id: EntityId, value: T) {
        if const { core::mem::needs_drop::<T>() } {
            self.insert_typed(id, value);
        } else {
            let mut value = ManuallyDrop::new(value);
            // SAFETY: `value` is a `T` (`ManuallyDrop` is
            // `repr(transparent)`), which needs no drop, on the stack, of
            // the values' size.
            unsafe {
                self.ids.insert_bytes(
                    self.values.raw_mut(),
                    id,
                    &raw mut value as *mut u8,
                    const { size_of::<T>() },
                )
            };
        }
    }

    fn remove(&mut self, id: EntityId) -> Option<T> {
        let p = self.ids.swap_remove(id)?;
        // SAFETY: `p` was a stored id's packed index, below `values.len()`
        // (the invariant: `owners` was as long as `values` before the id
        // left it).
        Some(unsafe { self.values.swap_remove(p) })
    }

    // Always inlined: see `Contiguous`'s. The map first (`swap_remove`),
    // then the value dropped by the packed array's untyped core.
    #[inline(always)]
    fn discard(&mut self, id: EntityId) {
        if let Some(p) = self.ids.swap_remove(id) {
            // SAFETY: as in `remove`; the map no longer names the value.
            unsafe { self.values.discard(p) };
        }
    }

    fn remove_range(&mut self, ids: Range<usize>) {
        match self.ids.stored_in(ids.clone()) {
            // Fewer values than ids: the stored ids in range, each removed.
            Some(stored) => drop_each(stored.into_iter(), |id| drop(self.remove(id))),
            None => drop_each(ids, |i| drop(self.remove(EntityId(i as u32)))),
        }
    }

    // Always inlined: see `Contiguous`'s `discard`.
    #[inline(always)]
    fn relocate(&mut self, from: EntityId, to: EntityId) {
        // The value stays where it is packed: only its owner changes. An
        // unclaimed value at `to` goes to `from` in exchange, not dropped.
        self.ids.relocate(from, to);
    }

    #[inline]
    fn contains(&self, id: EntityId) -> bool {
        self.ids.slot(id).is_some()
    }

    #[inline]
    fn get(&self, id: EntityId) -> Option<&T> {
        // SAFETY: the slot holds a value; callers of the column contract
        // never write it while a shared reference exists.
        self.ids
            .slot(id)
            .and_then(|p| self.values.get(p))
            .map(|v| unsafe { v.as_ref() })
    }

    #[inline]
    fn get_mut(&mut self, id: EntityId) -> Option<&mut T> {
        let p = self.ids.slot(id)?;
        Some(self.values.get_mut(p))
    }

    #[inline]
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<T>> {
        self.ids.slot(id).and_then(|p| self.values.get(p))
    }

    /// The storage itself: a lookup per entity.
    type Fetch = NonNull<Self>;

    #[inline]
    fn fetch_state(&self) -> NonNull<Self> {
        NonNull::from(self)
    }

    #[inline]
    unsafe fn fetch(this: NonNull<Self>, id: EntityId) -> NonNull<T> {
        // SAFETY: the caller guarantees the storage is live and not mutably
        // borrowed, and that `id` has a value.
        unsafe { this.as_ref().get_ptr_unchecked(id) }
    }

    #[inline]
    unsafe fn get_ptr_unchecked(&self, id: EntityId) -> NonNull<T> {
        let p = self.ids.slot(id);
        debug_assert!(p.is_some(), "get_ptr_unchecked on an id without a value");
        // SAFETY: the caller guarantees `id` has a value, so the map holds it.
        let p = unsafe { p.unwrap_unchecked() };
        // SAFETY: a stored id's packed index is below `values.len()` (the
        // invariant: `owners[p]` exists, and `values` is as long): an
        // in-bounds offset.
        unsafe { self.values.base().add(p) }
    }
}

// Dropped by its fields: `Packed` drops every value, even after panicking
// `drop`s, and frees the buffer.

/// [`Column::discard`] of the `HashMapStorage` column at byte `offset` of
/// `storages`, whatever its component type: the arm shared by all the
/// `hash_map` components of a declaration (as
/// [`discard_sparse_set`](super::discard_sparse_set)'s).
///
/// # Safety
/// `storages` is valid for reads and writes, and nothing else accesses
/// it during the call; the bytes at `offset` from it hold a live
/// `HashMapStorage<T>` (of any `T`).
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn discard_hash_map(storages: *mut u8, offset: usize, id: EntityId) {
    // SAFETY: the caller's contract; a `HashMapStorage<T>` has the layout of
    // `HashMapStorage<()>` (`repr(C)` of fields whose layouts do not depend
    // on `T`), of which only the map and the untyped values are used.
    let column = unsafe { &mut *(storages.add(offset) as *mut HashMapStorage<()>) };
    if let Some(p) = column.ids.swap_remove(id) {
        let values = column.values.raw_mut();
        let size = values.item_size();
        // SAFETY: `p` was a stored id's packed index, below the values'
        // length, and the map no longer names it; `size` is the slots' size.
        unsafe { values.discard(p, size) };
    }
}

/// [`Column::relocate`] of the `HashMapStorage` column at byte `offset` of
/// `storages`, whatever its component type: only the map changes.
///
/// # Safety
/// As [`discard_hash_map`]'s.
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn relocate_hash_map(storages: *mut u8, offset: usize, from: EntityId, to: EntityId) {
    // SAFETY: as in `discard_hash_map`; only the map is used.
    let column = unsafe { &mut *(storages.add(offset) as *mut HashMapStorage<()>) };
    column.ids.relocate(from, to);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract() {
        super::super::tests::exercise(HashMapStorage::<u64>::new(EntityLimit::Fixed(10)));
        super::super::tests::exercise(HashMapStorage::<u64>::new(EntityLimit::Dynamic { initial: 0 }));
    }

    #[test]
    fn insert_new_over_a_panicking_value() {
        super::super::tests::insert_new_over_a_panicking_value(HashMapStorage::new(EntityLimit::Dynamic {
            initial: 0,
        }));
    }

    /// `new` builds the untyped parts and transmutes them: the values'
    /// slots must have the type's layout (an over-aligned type is stored
    /// aligned, with room made up front for a fixed limit) and its drop
    /// function (the storage's drop drops each value once).
    #[test]
    fn new_gives_the_values_their_type_layout_and_drop() {
        super::super::tests::insert_new_drops_replaced(HashMapStorage::new(EntityLimit::Fixed(8)));
        super::super::tests::stores_over_aligned_values(HashMapStorage::new(EntityLimit::Fixed(8)));
    }

    #[test]
    fn insert_new_drops_a_replaced_value_once() {
        super::super::tests::insert_new_drops_replaced(HashMapStorage::new(EntityLimit::Dynamic { initial: 0 }));
    }

    /// Removal packs the values (the last moves into the hole), relocation
    /// moves only owners (an unclaimed value at the target goes back), and
    /// a range drops exactly the values in it, by the stored ids when they
    /// are fewer than the range.
    #[test]
    fn packed_values_follow_their_ids() {
        let mut s = HashMapStorage::<String>::new(EntityLimit::Dynamic { initial: 0 });
        for i in [7, 1_000_000, 3, 42] {
            s.insert(EntityId(i), i.to_string());
        }
        assert_eq!(s.remove(EntityId(7)).as_deref(), Some("7"));
        assert_eq!(s.len(), 3);
        for i in [1_000_000, 3, 42] {
            assert_eq!(s.get(EntityId(i)).map(String::as_str), Some(i.to_string().as_str()));
        }
        // `to` holds a value no entity claims: the two swap owners.
        s.relocate(EntityId(42), EntityId(3));
        assert_eq!(s.get(EntityId(3)).map(String::as_str), Some("42"));
        assert_eq!(s.get(EntityId(42)).map(String::as_str), Some("3"));
        s.relocate(EntityId(3), EntityId(9));
        assert!(!s.contains(EntityId(3)));
        assert_eq!(s.get(EntityId(9)).map(String::as_str), Some("42"));
        // Relocating an id without a value changes nothing.
        s.relocate(EntityId(3), EntityId(5));
        assert_eq!(s.len(), 3);
        // A range wider than the stored values: by the stored ids.
        s.remove_range(0..100);
        assert_eq!(s.len(), 1);
        assert!(s.contains(EntityId(1_000_000)));
        // A narrow range: id by id.
        s.remove_range(1_000_000..1_000_001);
        assert!(s.is_empty());
    }
}
