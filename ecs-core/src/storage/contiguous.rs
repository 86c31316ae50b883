//! `contiguous`: one buffer per component, indexed by entity id (SoA).

use super::drops::{DropPresent, Drops};
use super::presence::Presence;
use super::slots::Slots;
use super::{Column, Storage};
use crate::bounds::ComponentBounds;
use crate::error::EntityLimit;
use crate::handle::EntityId;
use core::alloc::Layout;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ops::Range;
use core::ptr::NonNull;

/// One slot per id in a single buffer: the fastest layout to iterate when most
/// entities hold the component.
///
/// Invariants: those of `cells` (`Cells`), whose slots have `T`'s layout
/// and whose drop function drops a `T`. Allocation, growth, relocation,
/// clearing and dropping are not generic (`Cells`); only reading and
/// writing values is compiled per component type.
///
/// ```
/// use ecs::storage::{Column, Contiguous, Storage};
/// use ecs::{EntityId, EntityLimit};
///
/// let mut column = Contiguous::<u32>::new(EntityLimit::Fixed(8));
/// let id = EntityId::from_bits(3);
/// assert_eq!(column.insert(id, 1), None);
/// assert_eq!(column.insert(id, 2), Some(1));
/// assert_eq!(column.get(id), Some(&2));
/// assert_eq!(column.remove(id), Some(2));
/// assert!(!column.contains(id));
/// ```
// Transparent: a `Contiguous<T>` is its `Cells`, for every `T`, so that
// the declaration's dispatch by component index reaches any contiguous
// column's cells through one untyped function ([`discard_contiguous`]).
#[repr(transparent)]
pub struct Contiguous<T> {
    cells: Cells,
    /// The column owns `T`s, and is invariant in `T` as the `UnsafeCell`s
    /// it stands for (values written through a shared borrow) would make
    /// it.
    _values: PhantomData<UnsafeCell<T>>,
}

/// The untyped column under [`Contiguous`]: everything that needs only the
/// values' size and drop function (creation, growth, claiming a slot,
/// relocation, clearing ranges and dropping), compiled once; the typed
/// shell reads and writes values. At 64 components / 32 systems,
/// `Contiguous`'s functions and drop glue were about 7 200 instructions of a
/// debug build's IR, some 330 per component type.
///
/// Invariants: `present` has the bit of `i` set exactly when slot `i` of
/// `slots` holds an initialised value (so `i < slots.len()`); `drop`, when
/// `Some`, is the `DropPresent` of the type whose layout the slots have,
/// and is `Some` whenever the values need dropping; with a fixed limit, `slots`
/// was sized for the limit at creation and never reallocates.
struct Cells {
    slots: Slots,
    present: Presence,
    drop: Option<DropPresent>,
}

impl Cells {
    /// An empty column of slots of layout `item` for ids below `ids`.
    #[inline(never)]
    fn new(item: Layout, drop: Option<DropPresent>, ids: usize) -> Self {
        Self {
            slots: Slots::new(item, ids),
            present: Presence::with_capacity(ids),
            drop,
        }
    }

    /// Makes room for slot `i` (dynamic limits only: fixed ones were sized
    /// for the limit).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, i: usize) {
        self.slots.grow_to((i + 1).max(self.slots.len() * 2));
    }

    /// Slot `i`, grown for, with its presence bit set: the slot and whether
    /// it held a value already (its bit was set). `size` is the slots' size,
    /// a constant in each caller, so that an optimised build, which inlines
    /// this, computes the offset as the generic insertion did: one bounds
    /// check and the store, growth out of line. A debug build calls the
    /// copy in `ecs-core`.
    ///
    /// The caller then writes the value into the slot (when it held none,
    /// the bit is set before the value is written: nothing between can
    /// unwind in its callers, which only write).
    #[cfg_attr(not(debug_assertions), inline)]
    fn claim(&mut self, i: usize, size: usize) -> (NonNull<u8>, bool) {
        if i >= self.slots.len() {
            self.grow(i);
        }
        // SAFETY: `i < slots.len()` (grown above): slot `i`, at byte
        // `i * size`, is in the buffer.
        let slot = unsafe { self.slots.base().add(i * size) };
        (slot, self.present.insert(i))
    }

    /// Copies the `size` bytes at `value` (a value that needs no drop) into
    /// slot `i`, grown for, its bit set, overwriting any value the slot
    /// held: a debug build's [`Column::insert_new`] for such values,
    /// compiled once (the typed shell's slot, cast, `<*mut T>::write` and
    /// the value's drop flag and unwinding path were 45 lines of IR per
    /// component type, 990 at 64 components / 32 systems, `cargo
    /// llvm-lines`).
    ///
    /// # Safety
    /// `value` points to `size` readable bytes of a value of the slots'
    /// type, which needs no drop, outside the buffer; `size` is the slots'
    /// size.
    #[cfg(debug_assertions)]
    unsafe fn put_new(&mut self, i: usize, value: *const u8, size: usize) {
        let (slot, _) = self.claim(i, size);
        // SAFETY: slot `i` is in the buffer (`claim` grew it) and `size`
        // bytes long; `value` is readable for `size` bytes and not in the
        // buffer (the caller's contract). Any value the slot held needs no
        // drop (of the same type): overwriting it leaks nothing.
        unsafe { core::ptr::copy_nonoverlapping(value, slot.as_ptr(), size) };
    }

    /// Slot `i` for the value of an id known to have none
    /// ([`Column::insert_new`]), grown for, its bit set. Should `i` hold a
    /// value after all (an unclaimed one, left by a spawn that panicked),
    /// that value is dropped first, out of line: a panicking `drop` leaves
    /// `i` without a value. The caller writes the value: the typed shell is
    /// then one call and a write, where it had the old value's read, write
    /// and drop compiled per component type.
    #[cfg_attr(not(debug_assertions), inline)]
    fn claim_new(&mut self, i: usize, size: usize) -> NonNull<u8> {
        let (slot, held) = self.claim(i, size);
        if held {
            self.drop_unclaimed(i);
        }
        slot
    }

    /// [`claim_new`](Self::claim_new)'s slot `i` that held a value: drops
    /// it (clearing the bit, then setting it again for the caller's value).
    #[cold]
    #[inline(never)]
    fn drop_unclaimed(&mut self, i: usize) {
        self.discard(i);
        self.present.insert(i);
    }

    /// [`Column::prepare_fill`] for slots of `size` bytes: the slot of
    /// `ids.start`, the slots of `ids` grown for and holding no value.
    fn prepare_fill(&mut self, ids: Range<usize>, size: usize) -> NonNull<u8> {
        if ids.end > self.slots.len() {
            self.grow(ids.end - 1);
        }
        // Ids that are fresh hold nothing, unless a spawn panicked while
        // storing a value for one: drop such a value rather than overwrite it.
        if self.present.any_in(ids.clone()) {
            self.remove_range(ids.clone());
        }
        // The buffer's pointer is a raw one, so it stays valid across later
        // calls of this method (which grow nothing here); the slots of `ids`
        // are inside the buffer (grown above), so the offset is in bounds.
        // SAFETY: `ids.start <= ids.end <= slots.len()`, an in-bounds offset
        // of `ids.start * size` bytes.
        unsafe { self.slots.base().add(ids.start * size) }
    }

    /// [`Column::remove_range`]: clears the bits of `ids`, dropping their
    /// values through `drop` (one call of the typed loop: this is compiled
    /// once, not per component type), nothing to drop when values need no
    /// drop.
    fn remove_range(&mut self, ids: Range<usize>) {
        if let Some(drop) = self.drop {
            // SAFETY: the slots have the layout of the type `drop` was made
            // for, and the set bits mark their initialised values (the
            // invariants), which `drop` drops, clearing their bits.
            unsafe { drop(self.slots.base().as_ptr(), &mut self.present, ids) };
        } else {
            // Nothing to drop: forgetting the values is clearing their bits.
            self.present.remove_range(ids);
        }
    }

    /// [`Column::discard`]: clears the bit of `i`, dropping its value, if
    /// any, through `drop`. Inlined in an optimised build only (as `claim`):
    /// the reclamation of entities calls it once per component held.
    #[cfg_attr(not(debug_assertions), inline)]
    fn discard(&mut self, i: usize) {
        match self.drop {
            // SAFETY: as in `remove_range`, for the one id `i`.
            Some(drop) => unsafe { drop(self.slots.base().as_ptr(), &mut self.present, i..i + 1) },
            // Nothing to drop: forgetting the value is clearing its bit.
            None => {
                self.present.remove(i);
            }
        }
    }

    /// [`Column::relocate`]: moves the value of `f`, if any, to `t` (an
    /// unclaimed value at `t` going to `f`), for slots of `size` bytes.
    fn relocate(&mut self, f: usize, t: usize, size: usize) {
        if f == t || !self.present.get(f) {
            return;
        }
        if t >= self.slots.len() {
            self.grow(t);
        }
        let base = self.slots.base().as_ptr();
        // SAFETY: slots `f` and `t` are in the buffer (`f` holds a value, so
        // `f < slots.len()`; `t` was grown for above) and distinct, slot `i`
        // starting at byte `i * size` of `base`, and `f` holds a value.
        unsafe { move_slot(base, size, &mut self.present, f, t) };
    }
}

impl Drop for Cells {
    fn drop(&mut self) {
        if let Some(drop) = self.drop {
            // Every value, even after a panicking `drop` (the buffer itself
            // is freed by its own `drop`, after this one, even if it
            // panics); the range is every id (the bits end the walk, at the
            // last word).
            // SAFETY: as in `remove_range`; the column is not used after
            // its `drop`.
            unsafe { drop(self.slots.base().as_ptr(), &mut self.present, 0..usize::MAX) };
        }
    }
}

// SAFETY: sharing a `Contiguous` across threads exposes `&T` through `get` and
// raw pointers through `get_ptr`; writes through those pointers are
// coordinated by the scheduler as the `Column` contract describes, so only
// `T: Send + Sync` is needed, as for a `Vec<T>`.
unsafe impl<T: ComponentBounds> Sync for Contiguous<T> {}
// SAFETY: its fields are a buffer owning `T`s (a unique allocation, as a
// `Vec<T>`'s), a `Vec<u64>` of presence bits and a function dropping `T`s,
// so it is `Send` when `T` is, and `T: Send`. Written out (not derived)
// so that a `T` that is not thread-safe reports `ComponentBounds`'s one error,
// not `Send`'s besides.
unsafe impl<T: ComponentBounds> Send for Contiguous<T> {}

impl<T> Contiguous<T> {
    /// An empty column with slots for ids below `ids`.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{Column, Contiguous};
    /// use ecs::EntityId;
    ///
    /// let mut column = Contiguous::<u32>::with_capacity(4);
    /// let id = EntityId::from_bits(2);
    /// assert!(!column.contains(id));
    /// assert_eq!(column.insert(id, 7), None);
    /// assert_eq!(column.get(id), Some(&7));
    /// ```
    pub fn with_capacity(ids: usize) -> Self {
        Self {
            cells: Cells::new(const { Layout::new::<T>() }, Drops::<T>::PRESENT, ids),
            _values: PhantomData,
        }
    }

    /// A debug build's [`Column::insert_new`] of a value that needs a drop
    /// (the optimised build's body): any value the slot held after all (an
    /// unclaimed one, left by a spawn that panicked) is dropped first.
    #[cfg(debug_assertions)]
    fn insert_dropping(&mut self, id: EntityId, value: T) {
        let slot = self.cells.claim_new(id.index(), const { size_of::<T>() });
        // SAFETY: in the buffer and aligned (a slot of `T`'s layout); it
        // holds no value (`claim_new` dropped any), and its bit is set.
        unsafe { (slot.as_ptr() as *mut T).write(value) };
    }
}

impl<T: ComponentBounds> Storage for Contiguous<T> {
    // Always inlined, as every built-in storage's `new`: the context makes
    // each column in a `new_column` of its own (never inlined), which then
    // holds this body rather than a call of one more function per
    // component type.
    #[inline(always)]
    fn new(limit: EntityLimit) -> Self {
        // `with_capacity`'s body, not a call of it: one function fewer
        // compiled per component type.
        Self {
            // The layout a constant, not a call: `Layout::new` is a
            // function per component type in a debug build.
            cells: Cells::new(
                const { Layout::new::<T>() },
                Drops::<T>::PRESENT,
                limit.initial_capacity(),
            ),
            _values: PhantomData,
        }
    }
}

// SAFETY: `present` tracks exactly the initialised slots, so all accessors
// agree; each id has its own slot in the buffer, inside an `UnsafeCell`; the
// buffer only moves in `&mut self` methods (`claim`, `prepare_fill`,
// `relocate`); `&self` methods touch only the slot asked for.
unsafe impl<T: ComponentBounds> Column for Contiguous<T> {
    type Item = T;

    // Slot `i` is at `base().add(i)`, and `fetch` is that offset.
    const LINEAR: bool = true;

    #[inline]
    fn insert(&mut self, id: EntityId, value: T) -> Option<T> {
        // The size as an inline constant, here and below, not a call:
        // `size_of` was one more function per component type in a debug
        // build (64 at 64 components / 32 systems, 4.0 M of rustc's 4.604 G
        // instructions, cachegrind).
        let (slot, held) = self.cells.claim(id.index(), const { size_of::<T>() });
        let slot = slot.as_ptr() as *mut T;
        if held {
            // SAFETY: the presence bit was set, so the slot (of `T`'s
            // layout) is initialised; `&mut self` excludes other access. The
            // old value is moved out and the new one in: nothing unwinds
            // between.
            unsafe {
                let old = slot.read();
                slot.write(value);
                Some(old)
            }
        } else {
            // SAFETY: in the buffer and aligned (a slot of `T`'s layout); it
            // held no value, so nothing is overwritten; its bit is set.
            unsafe { slot.write(value) };
            None
        }
    }

    // A debug build stores a value that needs no drop by `put_new`,
    // compiled once, and one that does by `insert_dropping`; in both
    // branches the value is moved before any call, so neither has a drop
    // flag or an unwinding path for it.
    #[cfg(debug_assertions)]
    fn insert_new(&mut self, id: EntityId, value: T) {
        if const { core::mem::needs_drop::<T>() } {
            self.insert_dropping(id, value);
        } else {
            let value = core::mem::ManuallyDrop::new(value);
            // SAFETY: `value` is a `T` (`ManuallyDrop` is
            // `repr(transparent)`), which needs no drop, on the stack, of
            // the slots' size.
            unsafe {
                self.cells
                    .put_new(id.index(), &raw const value as *const u8, const { size_of::<T>() })
            };
        }
    }

    #[cfg(not(debug_assertions))]
    #[inline]
    fn insert_new(&mut self, id: EntityId, value: T) {
        let slot = if const { core::mem::needs_drop::<T>() } {
            self.cells.claim_new(id.index(), const { size_of::<T>() })
        } else {
            // A value that needs no drop, should the id hold one after all,
            // is simply overwritten: no call of the cold path (whose mere
            // presence cost an optimised `spawn` of seven components 8
            // instructions, callgrind).
            self.cells.claim(id.index(), const { size_of::<T>() }).0
        };
        let slot = slot.as_ptr() as *mut T;
        // SAFETY: in the buffer and aligned (a slot of `T`'s layout); it
        // holds no value (`claim_new` dropped any; or a value that needs no
        // drop, overwritten), and its bit is set.
        unsafe { slot.write(value) };
    }

    // Always inlined: a call of the untyped core.
    #[inline(always)]
    fn prepare_fill(&mut self, ids: Range<usize>) -> Option<NonNull<T>> {
        let base = self.cells.prepare_fill(ids, const { size_of::<T>() });
        // SAFETY: as in `base`: the same pointer, as `T`.
        Some(unsafe { core::mem::transmute::<NonNull<u8>, NonNull<T>>(base) })
    }

    unsafe fn fill(&mut self, ids: Range<usize>) {
        debug_assert!(ids.end <= self.cells.slots.len());
        // The caller guarantees every slot of `ids` was initialised; the
        // presence bits now say so.
        self.cells.present.insert_range(ids);
    }

    fn remove(&mut self, id: EntityId) -> Option<T> {
        let i = id.index();
        if !self.cells.present.remove(i) {
            return None;
        }
        // SAFETY: the bit was set, so the slot is initialised, and in the
        // buffer (`i < slots.len()`, the invariant): no bounds check needed;
        // clearing the bit first means it is never read again before being
        // rewritten.
        Some(unsafe { self.base().add(i).read() })
    }

    // Always inlined, as `relocate` and `swap`: the declaration's
    // dispatch by component index (`remove_component`) calls the untyped
    // core directly, no function per component type (at 64 components /
    // 32 systems, `remove` was 64 functions, 2 500 instructions of a debug
    // build's IR, compiled for this dispatch alone).
    #[inline(always)]
    fn discard(&mut self, id: EntityId) {
        self.cells.discard(id.index());
    }

    #[inline]
    fn remove_range(&mut self, ids: Range<usize>) {
        self.cells.remove_range(ids);
    }

    #[inline(always)]
    fn swap(&mut self, a: EntityId, b: EntityId) {
        // Relocating onto an id that holds a value exchanges the two values
        // in place (see `relocate`), which is a swap when both are claimed.
        self.relocate(a, b);
    }

    #[inline(always)]
    fn relocate(&mut self, from: EntityId, to: EntityId) {
        self.cells.relocate(from.index(), to.index(), const { size_of::<T>() });
    }

    #[inline]
    fn contains(&self, id: EntityId) -> bool {
        self.cells.present.get(id.index())
    }

    #[inline]
    fn get(&self, id: EntityId) -> Option<&T> {
        // SAFETY: present, so initialised; the column contract's callers never
        // write an id's value while a shared reference to it exists.
        self.get_ptr(id).map(|p| unsafe { p.as_ref() })
    }

    #[inline]
    fn get_mut(&mut self, id: EntityId) -> Option<&mut T> {
        if !self.contains(id) {
            return None;
        }
        // SAFETY: present, so initialised and in the buffer; `&mut self`
        // excludes other access.
        Some(unsafe { self.base().add(id.index()).as_mut() })
    }

    #[inline]
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<T>> {
        if !self.contains(id) {
            return None;
        }
        // SAFETY: `id` has a value, which is all `get_ptr_unchecked` needs.
        Some(unsafe { self.get_ptr_unchecked(id) })
    }

    type Fetch = NonNull<T>;

    #[inline]
    fn fetch_state(&self) -> NonNull<T> {
        self.base()
    }

    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn fetch(base: NonNull<T>, id: EntityId) -> NonNull<T> {
        // SAFETY: the caller guarantees `base` is this buffer's, still live,
        // and that `id` has a value, so `id < slots.len()`.
        unsafe { base.add(id.index()) }
    }

    #[inline]
    unsafe fn get_ptr_unchecked(&self, id: EntityId) -> NonNull<T> {
        debug_assert!(self.contains(id));
        // SAFETY: the caller guarantees `id` has a value, so `id <
        // slots.len()` by the presence invariant: an in-bounds offset.
        unsafe { self.base().add(id.index()) }
    }
}

/// [`Column::discard`] of the `Contiguous` column at byte `offset` of
/// `storages`, whatever its component type: the arm that the declaration's
/// `remove_component` shares between all its `contiguous` components. Not
/// generic: where each component's arm was three always-inlined generic
/// calls (`remove_value`, `column_mut`, `discard`), compiled per component
/// type in a debug build, the arms of every contiguous component are one
/// call of this function, compiled once, in `ecs-core`.
///
/// # Safety
/// `storages` is valid for reads and writes, and nothing else accesses
/// it during the call; the bytes at `offset` from it hold a live
/// `Contiguous<T>` (of any `T`).
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn discard_contiguous(storages: *mut u8, offset: usize, id: EntityId) {
    // SAFETY: a `Contiguous<T>` at `offset` of `storages` (the caller's
    // contract), exclusively accessible, is its `Cells` (`repr(transparent)`,
    // for every `T`); the `Cells` hold their values' layout and drop
    // function themselves.
    let cells = unsafe { &mut *(storages.add(offset) as *mut Cells) };
    cells.discard(id.index());
}

/// [`Column::relocate`] (and so [`Column::swap`]) of the `Contiguous`
/// column at byte `offset` of `storages`, whatever its component type, the
/// values' size read from its slots: the arm shared as
/// [`discard_contiguous`]'s.
///
/// # Safety
/// As [`discard_contiguous`]'s.
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn relocate_contiguous(storages: *mut u8, offset: usize, from: EntityId, to: EntityId) {
    // SAFETY: as in `discard_contiguous`.
    let cells = unsafe { &mut *(storages.add(offset) as *mut Cells) };
    let size = cells.slots.item_size();
    cells.relocate(from.index(), to.index(), size);
}

/// Moves the value of slot `f` to slot `t` of a buffer of `size`-byte
/// slots, with its presence bit: the part of [`Contiguous::relocate`] that
/// does not depend on the component type (moving a value is copying its
/// bytes), compiled once. An unclaimed value at `t` goes to `f` in exchange:
/// nothing is dropped.
///
/// # Safety
/// `base` points to a buffer holding slots `f` and `t` (`f != t`), each of
/// `size` bytes, slot `i` at `base + i * size`, valid for reads and writes,
/// whose bits in `present` are set exactly for the slots holding a value;
/// slot `f` holds one.
#[inline(never)]
unsafe fn move_slot(base: *mut u8, size: usize, present: &mut Presence, f: usize, t: usize) {
    // SAFETY: both slots are in the buffer (the caller's contract).
    let (from, to) = unsafe { (base.add(f * size), base.add(t * size)) };
    if present.get(t) {
        // SAFETY: distinct slots of `size` bytes do not overlap. The swap is
        // untyped, as moving values is: each slot holds the other's value,
        // and both bits stay set.
        unsafe { core::ptr::swap_nonoverlapping(from, to, size) };
    } else {
        present.remove(f);
        // SAFETY: both slots are in the buffer (the caller's contract), and
        // the copy is untyped: slot `f`'s bit is clear
        // now, so its bytes are never read as a value again before being
        // rewritten, and slot `t` held no value to overwrite.
        unsafe { copy_bytes(from, to, size) };
        present.insert(t);
    }
}

/// Copies `size` bytes from `from` to `to`, as `copy_nonoverlapping` does
/// (an untyped copy), with a copy of known size for the common sizes of
/// components instead of a call of `memcpy`.
///
/// # Safety
/// As `core::ptr::copy_nonoverlapping(from, to, size)`.
#[inline]
pub(super) unsafe fn copy_bytes(from: *const u8, to: *mut u8, size: usize) {
    /// Copies `N` bytes (arrays of bytes: no alignment needed).
    ///
    /// # Safety
    /// As `copy_bytes` with `size == N`.
    #[inline(always)]
    unsafe fn fixed<const N: usize>(from: *const u8, to: *mut u8) {
        // SAFETY: the caller's contract, for `N` bytes; `[u8; N]` has
        // alignment 1, and the copy is untyped whatever the pointee type.
        unsafe { core::ptr::copy_nonoverlapping(from.cast::<[u8; N]>(), to.cast::<[u8; N]>(), 1) }
    }
    match size {
        // SAFETY: the caller's contract, with `size` this arm's `N`.
        1 => unsafe { fixed::<1>(from, to) },
        // SAFETY: the caller's contract, with `size` this arm's `N`.
        2 => unsafe { fixed::<2>(from, to) },
        // SAFETY: the caller's contract, with `size` this arm's `N`.
        4 => unsafe { fixed::<4>(from, to) },
        // SAFETY: the caller's contract, with `size` this arm's `N`.
        8 => unsafe { fixed::<8>(from, to) },
        // SAFETY: the caller's contract, with `size` this arm's `N`.
        12 => unsafe { fixed::<12>(from, to) },
        // SAFETY: the caller's contract, with `size` this arm's `N`.
        16 => unsafe { fixed::<16>(from, to) },
        // SAFETY: the caller's contract.
        _ => unsafe { core::ptr::copy_nonoverlapping(from, to, size) },
    }
}

impl<T> Contiguous<T> {
    /// The buffer as a pointer to `T`: slot `i` is at `base.add(i)` (the
    /// slots have `T`'s layout). A raw pointer to the allocation, not
    /// derived from a borrow of the column: writing through it under
    /// `&self` is allowed.
    #[inline]
    fn base(&self) -> NonNull<T> {
        // SAFETY: the same non-null pointer, as `T` (sized): what
        // `NonNull::cast` does, which a debug build compiled as one more
        // function per component type (as `prepare_fill`'s below).
        unsafe { core::mem::transmute::<NonNull<u8>, NonNull<T>>(self.cells.slots.base()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc as Rc;

    #[test]
    fn contract_fixed_and_dynamic() {
        super::super::tests::exercise(Contiguous::<u64>::new(EntityLimit::Fixed(200)));
        super::super::tests::exercise(Contiguous::<u64>::new(EntityLimit::Dynamic { initial: 0 }));
    }

    #[test]
    fn insert_new_over_a_panicking_value() {
        super::super::tests::insert_new_over_a_panicking_value(Contiguous::new(EntityLimit::Dynamic { initial: 0 }));
    }

    #[test]
    fn insert_new_drops_a_replaced_value_once() {
        super::super::tests::insert_new_drops_replaced(Contiguous::new(EntityLimit::Dynamic { initial: 0 }));
    }

    #[test]
    fn fixed_never_reallocates() {
        let mut c = Contiguous::<u32>::new(EntityLimit::Fixed(64));
        let base = c.cells.slots.base();
        for i in 0..64 {
            c.insert(EntityId(i), i);
        }
        assert_eq!(base, c.cells.slots.base());
    }

    /// The untyped core's offsets are `id * size` for sizes the fixed
    /// copies of `copy_bytes` do not cover (24 bytes here) and for one they
    /// do (2 bytes): values land in their own slots through growth,
    /// replacement, relocation and swaps.
    #[test]
    fn values_of_any_size_stay_in_their_slots() {
        fn run<T: Copy + PartialEq + core::fmt::Debug + Send + Sync + 'static>(value: impl Fn(u32) -> T) {
            let mut c = Contiguous::<T>::new(EntityLimit::Dynamic { initial: 1 });
            for i in [0u32, 5, 1, 64, 200] {
                assert_eq!(c.insert(EntityId(i), value(i)), None);
            }
            c.insert_new(EntityId(300), value(300));
            assert_eq!(c.insert(EntityId(5), value(55)), Some(value(5)));
            c.relocate(EntityId(64), EntityId(7)); // onto an empty slot
            c.swap(EntityId(1), EntityId(200));
            c.relocate(EntityId(0), EntityId(300)); // onto a held one: exchanged
            let want = [(0, 300), (1, 200), (5, 55), (7, 64), (200, 1), (300, 0)];
            for (i, v) in want {
                assert_eq!(c.get(EntityId(i)), Some(&value(v)), "id {i}");
            }
            assert!(!c.contains(EntityId(64)));
            assert_eq!(c.remove(EntityId(7)), Some(value(64)));
        }
        run(|i| [u64::from(i), u64::from(i) * 3, !u64::from(i)]);
        run(|i| i as u16);
    }

    #[test]
    fn drops_every_value_once() {
        let rc = Rc::new(());
        {
            let mut c = Contiguous::<Rc<()>>::with_capacity(0);
            for i in 0..10 {
                c.insert(EntityId(i * 3), rc.clone());
            }
            drop(c.remove(EntityId(3)));
            drop(c.insert(EntityId(6), rc.clone()));
            assert_eq!(Rc::strong_count(&rc), 10);
        }
        assert_eq!(Rc::strong_count(&rc), 1);
    }

    #[test]
    fn fill_writes_in_place_and_drops_a_leftover() {
        let rc = Rc::new(());
        let mut c = Contiguous::<Rc<()>>::with_capacity(2);
        // A value left at a fresh id (by a spawn that panicked): dropped by
        // `prepare_fill`, not overwritten.
        c.insert(EntityId(3), rc.clone());
        let first = c.prepare_fill(1..5).expect("contiguous slots have fixed places");
        assert_eq!(Rc::strong_count(&rc), 1);
        assert!(c.cells.slots.len() >= 5, "grown for the run");
        for k in 0..4 {
            // SAFETY: the pointer of `prepare_fill(1..5)`, no call since.
            unsafe { first.add(k).write(rc.clone()) };
        }
        assert!(c.get(EntityId(2)).is_none(), "not held before `fill`");
        // SAFETY: slots 1..5 were written just above.
        unsafe { c.fill(1..5) };
        assert!((1..5).all(|i| c.contains(EntityId(i))) && !c.contains(EntityId(0)));
        assert_eq!(Rc::strong_count(&rc), 5);
        drop(c);
        assert_eq!(Rc::strong_count(&rc), 1);
    }
}
