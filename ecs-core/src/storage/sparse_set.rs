//! `sparse_set`: values packed in a dense array, with an id-to-index map and
//! swap-remove (the component list of seed 001).

use super::drops::{drop_each, Drops};
use super::packed::{Packed, RawPacked};
use super::{Column, Storage};
use crate::bounds::ComponentBounds;
use crate::error::EntityLimit;
use crate::handle::EntityId;
use core::alloc::Layout;
use core::ops::Range;
use core::ptr::NonNull;

const ABSENT: u32 = u32::MAX;

/// Packed values: memory proportional to the entities that hold the component,
/// iteration over a dense array, O(1) insert, lookup and removal.
///
/// Invariant: `values.len() == owners.len()`; for every stored id,
/// `owners[index[id]] == id`; every other id maps to `ABSENT` or lies past
/// `index.len()`.
///
/// ```
/// use ecs::storage::{Column, SparseSetStorage, Storage};
/// use ecs::{EntityId, EntityLimit};
///
/// let mut column = SparseSetStorage::<u32>::new(EntityLimit::Dynamic { initial: 0 });
/// let id = EntityId::from_bits(3);
/// assert_eq!(column.insert(id, 1), None);
/// assert_eq!(column.insert(id, 2), Some(1));
/// assert_eq!(column.get(id), Some(&2));
/// assert_eq!(column.remove(id), Some(2));
/// assert!(!column.contains(id));
/// ```
// `repr(C)`, of fields whose layouts do not depend on `T` (`Packed<T>` is
// its untyped `RawPacked`): every `SparseSetStorage<T>` has the layout of
// `SparseSetStorage<()>`, through which `discard_sparse_set` and
// `relocate_sparse_set` reach the untyped parts of any of them.
#[repr(C)]
pub struct SparseSetStorage<T> {
    values: Packed<T>,
    owners: Vec<EntityId>,
    index: Vec<u32>,
}

/// The untyped parts of a [`SparseSetStorage`], in its field order and
/// `repr(C)`: the layout of every `SparseSetStorage<T>` (`Packed<T>` is
/// `repr(transparent)` over `RawPacked`), which `new` makes of it.
#[repr(C)]
struct Parts {
    values: RawPacked,
    owners: Vec<EntityId>,
    index: Vec<u32>,
}

/// The id-to-index map's operations that do not touch the values, on
/// `owners` and `index` as [`SparseSetStorage`]'s invariant describes them:
/// the cold ones (creation, relocation) are compiled once here rather than
/// once per component type.
mod ids {
    use super::super::drops::DropRun;
    use super::{RawPacked, ABSENT};
    use crate::handle::EntityId;
    use core::alloc::Layout;

    /// The packed index of `id`'s value in `index`, if any: not generic
    /// (a method of the generic storage was compiled per component type).
    #[inline]
    pub(super) fn slot(index: &[u32], id: EntityId) -> Option<usize> {
        match index.get(id.index()) {
            Some(&p) if p != ABSENT => Some(p as usize),
            _ => None,
        }
    }

    /// An empty storage's parts, with room for `cap` ids: values of
    /// layout `item` dropped by `drop`, `owners` and `index`. Built here,
    /// not in the generic `new`: there, the parts built before a call that
    /// can unwind had a landing pad dropping them in every component
    /// type's copy (`SparseSetStorage::new`, 540 lines of a debug build's
    /// IR at 64/32, 12 copies).
    #[inline(never)]
    pub(super) fn with_capacity(item: Layout, drop: Option<DropRun>, cap: usize) -> super::Parts {
        super::Parts {
            values: RawPacked::new(item, drop, cap),
            owners: Vec::with_capacity(cap),
            index: vec![ABSENT; cap],
        }
    }

    /// Takes `id`, packed at `p`, out of the map the way `swap_remove(p)`
    /// takes its value out of the packed values: the last packed id moves
    /// to `p`. Inlined: `remove` is on the path of a system's or the step's
    /// `remove`, where a call would cost more than these few instructions.
    /// Records that `id`'s value is at `at`, the end of the packed
    /// values: one bounds check inlined, the map's growth out of line.
    #[inline]
    pub(super) fn claim(owners: &mut Vec<EntityId>, index: &mut Vec<u32>, id: EntityId, at: u32) {
        match index.get_mut(id.index()) {
            Some(p) => *p = at,
            None => claim_grown(index, id, at),
        }
        owners.push(id);
    }

    /// [`claim`]'s map entry for an id past the map's end: grows the map.
    #[cold]
    #[inline(never)]
    fn claim_grown(index: &mut Vec<u32>, id: EntityId, at: u32) {
        index.resize(id.index() + 1, ABSENT);
        index[id.index()] = at;
    }

    #[inline]
    pub(super) fn swap_remove(owners: &mut Vec<EntityId>, index: &mut [u32], id: EntityId, p: usize) {
        index[id.index()] = ABSENT;
        owners.swap_remove(p);
        if let Some(&moved) = owners.get(p) {
            index[moved.index()] = p as u32;
        }
    }

    /// `insert_new`'s id that held a value after all (packed at `p`, in
    /// `values` of slots of `size` bytes): its value discarded, as
    /// `Column::discard` does. Cold, out of line and not generic: inlined
    /// (the typed `discard`), it was compiled into every spawn of an
    /// optimised build.
    #[cold]
    #[inline(never)]
    pub(super) fn discard_unclaimed(
        owners: &mut Vec<EntityId>,
        index: &mut [u32],
        values: &mut super::RawPacked,
        size: usize,
        id: EntityId,
        p: usize,
    ) {
        swap_remove(owners, index, id, p);
        // SAFETY: a stored id's packed index is below the values' length
        // (the storage's invariant), and the map no longer names it; `size`
        // is the slots' size (the caller's `T`'s).
        unsafe { values.discard(p, size) };
    }

    /// A debug build's `Column::insert_new` of the `size` bytes at `value`
    /// (the values' size) for `id`, untyped: as the typed one does, an
    /// unclaimed value `id` held is discarded first.
    ///
    /// # Safety
    /// `value` points to `size` readable and writable bytes of a value of `values`'
    /// type, which needs no drop (a panic before it is stored leaks it),
    /// outside `values`' buffer; `owners`, `index` and `values` are one
    /// storage's.
    #[cfg(debug_assertions)]
    pub(super) unsafe fn insert_bytes(
        owners: &mut Vec<EntityId>,
        index: &mut Vec<u32>,
        values: &mut super::RawPacked,
        id: EntityId,
        value: *mut u8,
        size: usize,
    ) {
        if let Some(p) = slot(index, id) {
            discard_unclaimed(owners, index, values, size, id, p);
        }
        // SAFETY: the caller's contract.
        let at = unsafe { values.push_bytes(value, size) } as u32;
        claim(owners, index, id, at);
    }

    /// Gives the value of `from`, if any, to `to`, and the value `to` held,
    /// if any (one no entity claims), to `from`: the values stay where they
    /// are packed, only their owners change. The whole of
    /// [`Column::relocate`](super::Column::relocate), not generic.
    #[inline(never)]
    pub(super) fn relocate(owners: &mut [EntityId], index: &mut Vec<u32>, from: EntityId, to: EntityId) {
        let Some(p) = slot(index, from) else {
            return;
        };
        if to.index() >= index.len() {
            index.resize(to.index() + 1, ABSENT);
        }
        let q = index[to.index()];
        index[to.index()] = p as u32;
        owners[p] = to;
        index[from.index()] = q;
        if q != ABSENT {
            owners[q as usize] = from;
        }
    }
}

// SAFETY: as for `Contiguous`: shared access hands out `&T` and raw pointers
// whose writes the scheduler coordinates per id.
unsafe impl<T: ComponentBounds> Sync for SparseSetStorage<T> {}
// SAFETY: its fields are a `Vec` of `T`s and `Vec`s of ids and indices, which
// are `Send` when `T` is, and `T: Send`. Written out (not derived) so that a
// `T` that is not thread-safe reports `ComponentBounds`'s one error, not
// `Send`'s besides.
unsafe impl<T: ComponentBounds> Send for SparseSetStorage<T> {}

impl<T> SparseSetStorage<T> {
    /// The typed body of [`Column::insert_new`]: an optimised build's for
    /// every value, a debug build's for a value that needs a drop (one
    /// that needs none is copied by untyped code there). Inlined into the
    /// optimised build's `insert_new`, which stays that build's only body.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn insert_typed(&mut self, id: EntityId, value: T) {
        if let Some(p) = self.slot(id) {
            // Not new after all (an unclaimed value, left by a spawn that
            // panicked): the old value is discarded first, out of line and
            // untyped (the map first: a panicking `drop` leaves the column
            // without it), rather than replaced by typed code.
            ids::discard_unclaimed(
                &mut self.owners,
                &mut self.index,
                self.values.raw_mut(),
                const { size_of::<T>() },
                id,
                p,
            );
        }
        let at = self.values.len() as u32;
        self.values.push(value);
        ids::claim(&mut self.owners, &mut self.index, id, at);
    }

    /// The packed index of `id`'s value, if any.
    #[inline]
    fn slot(&self, id: EntityId) -> Option<usize> {
        ids::slot(&self.index, id)
    }

    /// The ids holding a value, in the packed order.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{Column, SparseSetStorage, Storage};
    /// use ecs::{EntityId, EntityLimit};
    ///
    /// let mut column = SparseSetStorage::<u8>::new(EntityLimit::Dynamic { initial: 0 });
    /// let [a, b, c] = [9, 2, 5].map(EntityId::from_bits);
    /// column.insert(a, 0);
    /// column.insert(b, 1);
    /// column.insert(c, 2);
    /// assert_eq!(column.ids(), [a, b, c]);
    /// // Removal swaps the last value into the hole.
    /// column.remove(a);
    /// assert_eq!(column.ids(), [c, b]);
    /// ```
    pub fn ids(&self) -> &[EntityId] {
        &self.owners
    }
}

impl<T: ComponentBounds> Storage for SparseSetStorage<T> {
    // Always inlined: see `Contiguous`'s.
    #[inline(always)]
    fn new(limit: EntityLimit) -> Self {
        let parts = ids::with_capacity(const { Layout::new::<T>() }, Drops::<T>::RUN, limit.initial_capacity());
        // SAFETY: `Parts` has `Self`'s layout (see `Parts`), and `parts`
        // meets `Self`'s invariants: its values' slots have `T`'s layout
        // and `T`'s drop function, and it is empty. A transmute, not a
        // call: nothing is live across a call that could unwind, so a
        // debug build compiles no landing pad per `T`.
        unsafe { core::mem::transmute::<Parts, Self>(parts) }
    }
}

// SAFETY: the index map and the packed arrays are kept consistent by every
// `&mut self` method; each id owns one slot in `values`, reached through the
// array's raw pointer (writes allowed under `&self`); `&self`
// methods touch only the cell of the id asked for.
unsafe impl<T: ComponentBounds> Column for SparseSetStorage<T> {
    type Item = T;

    fn insert(&mut self, id: EntityId, value: T) -> Option<T> {
        if let Some(p) = self.slot(id) {
            return Some(self.values.replace(p, value));
        }
        let at = self.values.len() as u32;
        self.values.push(value);
        ids::claim(&mut self.owners, &mut self.index, id, at);
        None
    }

    // `insert` without handing back a value: a spawned component's store
    // (the default's `insert` was compiled for every `sparse_set`
    // component spawned, with its `Option<T>` and drop flags, for this
    // alone).
    // Not `#[inline]`: as `insert`, left to the optimiser (with the hint,
    // inlined into every spawn, rustc's instructions for an optimised build
    // of `scripts/compile-cost`'s 64/32 rose by 3%).
    #[cfg(not(debug_assertions))]
    fn insert_new(&mut self, id: EntityId, value: T) {
        self.insert_typed(id, value);
    }

    // A debug build stores a value that needs no drop by
    // `ids::insert_bytes`, compiled once; one that does as an optimised
    // build does. In both branches the value is moved before any call: no
    // drop flag, no unwinding path for it (the typed body was 62 lines of
    // IR per component type, `cargo llvm-lines` at 64 components / 32
    // systems).
    #[cfg(debug_assertions)]
    fn insert_new(&mut self, id: EntityId, value: T) {
        if const { core::mem::needs_drop::<T>() } {
            self.insert_typed(id, value);
        } else {
            let mut value = core::mem::ManuallyDrop::new(value);
            // SAFETY: `value` is a `T` (`ManuallyDrop` is
            // `repr(transparent)`), which needs no drop, on the stack, of
            // the values' size; `owners`, `index` and `values` are this
            // storage's.
            unsafe {
                ids::insert_bytes(
                    &mut self.owners,
                    &mut self.index,
                    self.values.raw_mut(),
                    id,
                    &raw mut value as *mut u8,
                    const { size_of::<T>() },
                )
            };
        }
    }

    fn remove(&mut self, id: EntityId) -> Option<T> {
        let p = self.slot(id)?;
        // SAFETY: a stored id's packed index is below `values.len()` (the
        // invariant: `owners[p]` exists, and `values` is as long).
        let value = unsafe { self.values.swap_remove(p) };
        ids::swap_remove(&mut self.owners, &mut self.index, id, p);
        Some(value)
    }

    // Always inlined: see `Contiguous`'s. The map first, then the value
    // dropped by the packed array's untyped core: a panicking `drop`
    // finds the column without it.
    #[inline(always)]
    fn discard(&mut self, id: EntityId) {
        if let Some(p) = self.slot(id) {
            ids::swap_remove(&mut self.owners, &mut self.index, id, p);
            // SAFETY: a stored id's packed index is below `values.len()`
            // (as in `remove`), and the map no longer names it.
            unsafe { self.values.discard(p) };
        }
    }

    fn remove_range(&mut self, ids: Range<usize>) {
        if ids.start == 0 && ids.end >= self.index.len() {
            // Every value: the map and the ids are cleared first, then the
            // values are drained, every one even after a panicking `drop`
            // (the buffer keeps its memory).
            self.index.fill(ABSENT);
            self.owners.clear();
            self.values.clear();
        } else {
            drop_each(ids, |i| drop(self.remove(EntityId(i as u32))));
        }
    }

    // Always inlined, as `relocate`: see `Contiguous`'s `discard`.
    #[inline(always)]
    fn swap(&mut self, a: EntityId, b: EntityId) {
        // Relocating onto an id that holds a value exchanges the two values
        // in place (see `relocate`), which is a swap when both are claimed.
        self.relocate(a, b);
    }

    #[inline(always)]
    fn relocate(&mut self, from: EntityId, to: EntityId) {
        // The value stays where it is packed: only its owner changes. An
        // unclaimed value at `to` goes to `from` in exchange, not dropped.
        ids::relocate(&mut self.owners, &mut self.index, from, to);
    }

    #[inline]
    fn contains(&self, id: EntityId) -> bool {
        self.slot(id).is_some()
    }

    #[inline]
    fn get(&self, id: EntityId) -> Option<&T> {
        // SAFETY: the slot holds a value; callers of the column contract
        // never write it while a shared reference exists.
        self.slot(id)
            .and_then(|p| self.values.get(p))
            .map(|v| unsafe { v.as_ref() })
    }

    #[inline]
    fn get_mut(&mut self, id: EntityId) -> Option<&mut T> {
        let p = self.slot(id)?;
        Some(self.values.get_mut(p))
    }

    #[inline]
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<T>> {
        self.slot(id).and_then(|p| self.values.get(p))
    }

    /// The packed values and the id-to-index map.
    type Fetch = (NonNull<T>, NonNull<u32>);

    #[inline]
    fn fetch_state(&self) -> Self::Fetch {
        // The map is only read through its pointer.
        (self.values.base(), NonNull::from(self.index.as_slice()).cast::<u32>())
    }

    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn fetch((values, index): Self::Fetch, id: EntityId) -> NonNull<T> {
        // Read through a reference made by `transmute` (the layout of
        // `NonNull<u32>` and `&u32` is the same), not by dereferencing the
        // raw pointer: a debug build checks that dereference (alignment and
        // null) in this function, one per sparse component type
        // (COMPILE_COST.md, eighteenth round).
        // SAFETY: the caller guarantees the state is this storage's, still
        // live, and that `id` has a value: `index[id]` is in bounds and names
        // its packed slot.
        let slot = unsafe { *core::mem::transmute::<NonNull<u32>, &u32>(index.add(id.index())) } as usize;
        // SAFETY: as above, `slot < values.len()`: an in-bounds offset of
        // the array's raw pointer, which keeps write permission under a
        // shared borrow.
        unsafe { values.add(slot) }
    }
}

// Dropped by its fields: `Packed` drops every value, even after panicking
// `drop`s (a `Vec` aborts at the second), and frees the buffer.

/// The `SparseSetStorage<T>` at byte `offset` of `storages`, of any `T`, as
/// a `SparseSetStorage<()>`: the same layout (see the type's `repr(C)`),
/// to be used for its map and its values' untyped core only (the typed
/// methods of a `SparseSetStorage<()>` would read its values as `()`).
///
/// # Safety
/// As [`discard_sparse_set`]'s; the result is used only as said above.
#[inline(always)]
unsafe fn untyped<'a>(storages: *mut u8, offset: usize) -> &'a mut SparseSetStorage<()> {
    // SAFETY: the caller's contract: a live `SparseSetStorage<T>` at
    // `offset`, accessible through this pointer alone for the call; its
    // layout is `SparseSetStorage<()>`'s.
    unsafe { &mut *(storages.add(offset) as *mut SparseSetStorage<()>) }
}

/// [`Column::discard`] of the `SparseSetStorage` column at byte `offset` of
/// `storages`, whatever its component type: the arm that the declaration's
/// `remove_component` shares between all its `sparse_set` components
/// (see [`discard_contiguous`](super::discard_contiguous)). The map first,
/// then the value dropped by the values' untyped core, of the size its
/// slots have: a panicking `drop` finds the column without it.
///
/// # Safety
/// `storages` is valid for reads and writes, and nothing else accesses
/// it during the call; the bytes at `offset` from it hold a live
/// `SparseSetStorage<T>` (of any `T`).
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn discard_sparse_set(storages: *mut u8, offset: usize, id: EntityId) {
    // SAFETY: the caller's contract; only the map and the untyped values
    // are used.
    let column = unsafe { untyped(storages, offset) };
    if let Some(p) = column.slot(id) {
        ids::swap_remove(&mut column.owners, &mut column.index, id, p);
        let values = column.values.raw_mut();
        let size = values.item_size();
        // SAFETY: a stored id's packed index is below the values' length
        // (the invariant), and the map no longer names it; `size` is the
        // slots' size.
        unsafe { values.discard(p, size) };
    }
}

/// [`Column::relocate`] (and so [`Column::swap`]) of the
/// `SparseSetStorage` column at byte `offset` of `storages`, whatever its
/// component type: only the map changes.
///
/// # Safety
/// As [`discard_sparse_set`]'s.
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn relocate_sparse_set(storages: *mut u8, offset: usize, from: EntityId, to: EntityId) {
    // SAFETY: the caller's contract; only the map is used.
    let column = unsafe { untyped(storages, offset) };
    ids::relocate(&mut column.owners, &mut column.index, from, to);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_fixed_and_dynamic() {
        super::super::tests::exercise(SparseSetStorage::<u64>::new(EntityLimit::Fixed(200)));
        super::super::tests::exercise(SparseSetStorage::<u64>::new(EntityLimit::Dynamic { initial: 0 }));
    }

    #[test]
    fn insert_new_over_a_panicking_value() {
        super::super::tests::insert_new_over_a_panicking_value(SparseSetStorage::new(EntityLimit::Dynamic {
            initial: 0,
        }));
    }

    /// `new` builds the untyped parts and transmutes them: the values'
    /// slots must have the type's layout (an over-aligned type is stored
    /// aligned, with room made up front for a fixed limit) and its drop
    /// function (the storage's drop drops each value once).
    #[test]
    fn new_gives_the_values_their_type_layout_and_drop() {
        super::super::tests::insert_new_drops_replaced(SparseSetStorage::new(EntityLimit::Fixed(8)));
        super::super::tests::stores_over_aligned_values(SparseSetStorage::new(EntityLimit::Fixed(8)));
    }

    #[test]
    fn insert_new_drops_a_replaced_value_once() {
        super::super::tests::insert_new_drops_replaced(SparseSetStorage::new(EntityLimit::Dynamic { initial: 0 }));
    }

    #[test]
    fn swap_remove_keeps_values_packed() {
        let mut s = SparseSetStorage::<u32>::new(EntityLimit::Dynamic { initial: 0 });
        for i in 0..5 {
            s.insert(EntityId(i), i);
        }
        s.remove(EntityId(1));
        assert_eq!(s.ids(), &[EntityId(0), EntityId(4), EntityId(2), EntityId(3)]);
        assert_eq!(s.get(EntityId(4)), Some(&4));
        s.remove(EntityId(3));
        assert_eq!(s.ids().len(), 3);
        assert_eq!(s.get(EntityId(2)), Some(&2));
    }
}
