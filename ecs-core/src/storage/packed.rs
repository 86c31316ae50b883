//! Values packed at the front of a [`Slots`] buffer, removed by
//! swap-remove: the value arrays of `sparse_set` and `hash_map`, whose
//! growth, removal's swap and dropping are compiled once (a `Vec<T>`
//! compiles its `push`'s growth, `reserve` and drop for each component
//! type).

use super::contiguous::copy_bytes;
use super::drops::{DropRun, Drops};
use super::slots::Slots;
use core::alloc::Layout;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ptr::NonNull;

/// `len` values of `T`, in slots `0..len` of `slots`: the typed shell over
/// [`RawPacked`], which does everything that needs only `T`'s size and its
/// drop function (growth, the swap of a removal, dropping), compiled once.
/// What stays generic is reading and writing a `T`: at 64 components /
/// 32 systems, `Packed`'s functions were 4 660 instructions of a debug
/// build's IR, about 210 per component type.
///
/// Invariants: those of `raw`, whose slots have `T`'s layout and whose
/// drop function drops a `T` (`None` when `T` needs no drop).
// Transparent: a `Packed<T>` is its `RawPacked` for every `T`, so that a
// storage holding one has the same layout whatever its component type
// (`discard_sparse_set`, `discard_hash_map`).
#[repr(transparent)]
pub(crate) struct Packed<T> {
    raw: RawPacked,
    /// The array owns `T`s, and is invariant in `T` as the `UnsafeCell`s
    /// it stands for (values written through a shared borrow) would make
    /// it.
    _values: PhantomData<UnsafeCell<T>>,
}

/// The untyped array under [`Packed`].
///
/// Invariants: `len <= slots.len()`; slots `0..len` hold initialised
/// values owned by this array, the others none; `drop`, when `Some`, is
/// the `DropRun` of the type whose layout the slots have, and is `Some`
/// whenever the values need dropping.
pub(super) struct RawPacked {
    slots: Slots,
    len: usize,
    drop: Option<DropRun>,
}

/// Grows `slots` for one more value after the first `len` (doubling, as a
/// `Vec` does). Not generic, and out of line: the inlined `push` is one
/// comparison and the store.
#[cold]
#[inline(never)]
fn grow_for_one(slots: &mut Slots, len: usize) {
    slots.grow_to(len.saturating_mul(2).max(len + 1).max(4));
}

impl RawPacked {
    /// An empty array of values of layout `item`, dropped by `drop`, with
    /// room for `cap` of them.
    #[inline(never)]
    pub(super) fn new(item: Layout, drop: Option<DropRun>, cap: usize) -> Self {
        Self {
            slots: Slots::new(item, cap),
            len: 0,
            drop,
        }
    }

    /// The size of one value (the slots' size), for the callers that do
    /// not know the values' type.
    #[inline]
    pub(super) fn item_size(&self) -> usize {
        self.slots.item_size()
    }

    /// Makes room for one more value, so that the next `push` cannot fail.
    #[inline]
    pub(super) fn reserve_one(&mut self) {
        if self.len == self.slots.len() {
            grow_for_one(&mut self.slots, self.len);
        }
    }

    /// The slot after the last value, made room for, for a value of
    /// `size` bytes (the slots' size: a constant in each caller, so that
    /// an optimised build computes the offset as `push` did when it was
    /// generic). The caller writes the value, then counts it
    /// (`len += 1`).
    ///
    /// Plain `#[inline]` in an optimised build only: a debug build calls
    /// the copy in `ecs-core` rather than compile one in each of its
    /// codegen units.
    #[cfg_attr(not(debug_assertions), inline)]
    fn next_slot(&mut self, size: usize) -> NonNull<u8> {
        self.reserve_one();
        // SAFETY: `len < slots.len()` (made room above): slot `len`, at
        // byte `len * size`, is in the buffer.
        unsafe { self.slots.base().add(self.len * size) }
    }

    /// Appends the `size` bytes at `value` (the slots' size) as the value
    /// at index `len`, which it returns: a debug build's `Packed::push` (and the untyped
    /// `insert_new` of the sparse set and the hash map), whose typed steps
    /// (`next_slot`, `<*mut T>::write`, the count's overflow check) were
    /// 41 lines of IR per value type (1 322 at 64 components / 32
    /// systems, `cargo llvm-lines`), compiled here once.
    ///
    /// Should making room panic (a buffer whose size overflows `isize`),
    /// the value is dropped, once, by the array's drop function, as the
    /// typed `push` dropped its argument.
    ///
    /// # Safety
    /// `value` points to `size` readable and writable bytes of a value of
    /// the slots' type, which the array owns from now on (the caller gives
    /// it up, and neither drops nor uses it again).
    #[cfg(debug_assertions)]
    pub(super) unsafe fn push_bytes(&mut self, value: *mut u8, size: usize) -> usize {
        /// Drops the value given up to `push_bytes` if room for it could
        /// not be made.
        struct Unpushed {
            value: *mut u8,
            drop: Option<DropRun>,
        }
        impl Drop for Unpushed {
            fn drop(&mut self) {
                if let Some(drop) = self.drop {
                    // SAFETY: one initialised value of the slots' type,
                    // given up by `push_bytes`' caller, not stored.
                    unsafe { drop(self.value, 1) };
                }
            }
        }
        let unpushed = Unpushed { value, drop: self.drop };
        let slot = self.next_slot(size);
        core::mem::forget(unpushed);
        // SAFETY: slot `len` is in the buffer (`next_slot` made room), holds
        // no value to overwrite, and is `size` bytes long; `value` is
        // readable for `size` bytes (the caller's contract) and not in the
        // buffer (the caller's own value). Counted once written.
        unsafe { core::ptr::copy_nonoverlapping(value, slot.as_ptr(), size) };
        self.len += 1;
        self.len - 1
    }

    /// Value `p`, of `size` bytes (the slots' size, a constant in each
    /// caller). The bounds check and its panic are compiled once, here.
    ///
    /// # Panics
    /// When `p` is past the end.
    #[cfg_attr(not(debug_assertions), inline)]
    fn value(&self, p: usize, size: usize) -> NonNull<u8> {
        assert!(p < self.len, "a packed index is below the length");
        // SAFETY: `p < len <= slots.len()`: slot `p`, at byte `p * size`, is
        // in the buffer.
        unsafe { self.slots.base().add(p * size) }
    }

    /// Forgets value `p`, which the caller has read out, moving the last
    /// value into its place: the untyped half of `swap_remove`, for values
    /// of `size` bytes (a constant in each caller, as in `next_slot`).
    ///
    /// # Safety
    /// `p < len`, `size` is the slots' size, and value `p` was read out
    /// (the array no longer owns it).
    #[cfg_attr(not(debug_assertions), inline)]
    unsafe fn forget_swap(&mut self, p: usize, size: usize) {
        debug_assert!(p < self.len, "a packed index is below the length");
        let last = self.len - 1;
        if p != last {
            let base = self.slots.base().as_ptr();
            // SAFETY: `p < last < len`: distinct slots of `size` bytes in
            // the buffer; the value at `last` moves (an untyped copy) to
            // the slot just emptied, and `last` is past the new end.
            unsafe { copy_bytes(base.add(last * size), base.add(p * size), size) };
        }
        self.len = last;
    }

    /// Drops value `p`, the last value moving into its place: `swap_remove`
    /// with the value dropped, untyped (a value needing no drop is
    /// forgotten, as `forget_swap` does; one that needs it is swapped to the
    /// end, the array shortened past it, then dropped by the array's typed
    /// loop: a panicking `drop` finds the array without it). Inlined in an
    /// optimised build only, as `next_slot`.
    ///
    /// # Safety
    /// `p < len`, and `size` is the slots' size.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(super) unsafe fn discard(&mut self, p: usize, size: usize) {
        let Some(drop) = self.drop else {
            // SAFETY: `p < len` and `size` is the slots' size (the caller's
            // contract); the value needs no drop, so forgetting it drops it.
            unsafe { self.forget_swap(p, size) };
            return;
        };
        debug_assert!(p < self.len, "a packed index is below the length");
        let last = self.len - 1;
        let base = self.slots.base().as_ptr();
        if p != last {
            // SAFETY: `p < last < len`: distinct slots of `size` bytes in the
            // buffer, each holding a value; the untyped swap moves values
            // (a move is a copy of their bytes).
            unsafe { core::ptr::swap_nonoverlapping(base.add(p * size), base.add(last * size), size) };
        }
        self.len = last;
        // SAFETY: slot `last` holds an initialised value of the type `drop`
        // was made for (the invariants), which the array no longer owns
        // (its length is `last`): dropped once, here.
        unsafe { drop(base.add(last * size), 1) };
    }

    /// Drops every value, keeping the memory, each even after a panicking
    /// `drop` (as `drop_each` does). Not generic: the values are dropped by
    /// the array's typed loop, one call (and nothing at all for values that
    /// need no drop).
    pub(super) fn clear(&mut self) {
        let len = core::mem::replace(&mut self.len, 0);
        if let Some(drop) = self.drop {
            // SAFETY: the array held `len` initialised values of the type
            // `drop` was made for (the invariants), which it no longer owns
            // (its length is 0 now): a panic below drops none twice.
            unsafe { drop(self.slots.base().as_ptr(), len) };
        }
    }
}

impl Drop for RawPacked {
    fn drop(&mut self) {
        self.clear();
    }
}

impl<T> Packed<T> {
    /// An empty array with room for `cap` values.
    // Always inlined, as `base`: one-call shells, which a debug build
    // compiled as one more function each per component and bundle type.
    #[inline(always)]
    pub(crate) fn with_capacity(cap: usize) -> Self {
        Self {
            // A constant, as in `Contiguous::new`.
            raw: RawPacked::new(const { Layout::new::<T>() }, Drops::<T>::RUN, cap),
            _values: PhantomData,
        }
    }

    /// How many values the array holds.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.raw.len
    }

    /// The first value: value `p < len` is at `base().add(p)`. A raw
    /// pointer to the buffer, not derived from a borrow of the array:
    /// writing through it under `&self` is allowed.
    #[inline(always)]
    pub(crate) fn base(&self) -> NonNull<T> {
        // SAFETY: the same non-null pointer, as `T` (sized): what
        // `NonNull::cast` does, which a debug build compiled as one more
        // function per component type.
        unsafe { core::mem::transmute::<NonNull<u8>, NonNull<T>>(self.raw.slots.base()) }
    }

    /// Value `p`, or `None` past the end. (An `if`, not `bool::then` and
    /// a closure: two functions fewer per component type in a debug
    /// build.)
    #[inline]
    pub(super) fn get(&self, p: usize) -> Option<NonNull<T>> {
        if p < self.raw.len {
            // SAFETY: `p < len <= slots.len()`: an in-bounds offset.
            Some(unsafe { self.base().add(p) })
        } else {
            None
        }
    }

    /// Value `p`.
    ///
    /// # Panics
    /// When `p` is past the end.
    #[inline]
    pub(super) fn get_mut(&mut self, p: usize) -> &mut T {
        // SAFETY: value `p` is initialised and in the buffer (`value`
        // checked `p < len`), a `T`; `&mut self` excludes other access.
        // The size an inline constant, here and below: `size_of` called is
        // a function per component type in a debug build (as `Contiguous`'s).
        unsafe { &mut *(self.raw.value(p, const { size_of::<T>() }).as_ptr() as *mut T) }
    }

    /// Puts `value` in place of value `p`, returning the old one (read and
    /// written through the pointer: `mem::replace` would be one more
    /// function per component type in a debug build).
    ///
    /// # Panics
    /// When `p` is past the end.
    // Always inlined, as `push`: each is called by its storage's `insert`
    // alone, which a debug build then compiles without two more functions
    // per component type (44 at 64 components / 32 systems).
    #[inline(always)]
    pub(super) fn replace(&mut self, p: usize, value: T) -> T {
        let slot = self.raw.value(p, const { size_of::<T>() }).as_ptr() as *mut T;
        // SAFETY: value `p` is initialised and in the buffer (`value`
        // checked `p < len`), a `T`; `&mut self` excludes other access. The
        // old value is moved out and the new one in, nothing unwinding
        // between.
        unsafe {
            let old = slot.read();
            slot.write(value);
            old
        }
    }

    /// Makes room for one more value, so that the next `push` cannot fail.
    #[inline]
    pub(super) fn reserve_one(&mut self) {
        self.raw.reserve_one();
    }

    /// Appends `value`, at index `len()`.
    #[inline(always)]
    pub(crate) fn push(&mut self, value: T) {
        #[cfg(not(debug_assertions))]
        {
            let slot = self.raw.next_slot(const { size_of::<T>() });
            // SAFETY: slot `len`, in the buffer (`next_slot` made room),
            // aligned for `T` (slot `len` of `T`'s layout), and holding no
            // value to overwrite; counted once written.
            unsafe { (slot.as_ptr() as *mut T).write(value) };
            self.raw.len += 1;
        }
        // A debug build copies the value's bytes in `RawPacked::push_bytes`,
        // compiled once (see there).
        #[cfg(debug_assertions)]
        {
            let mut value = core::mem::ManuallyDrop::new(value);
            // SAFETY: `value` is an initialised `T` (`ManuallyDrop` is
            // `repr(transparent)`), the slots' type, of `size_of::<T>()`
            // bytes; given up to the array (never dropped here).
            let _ = unsafe { self.raw.push_bytes(&raw mut value as *mut u8, const { size_of::<T>() }) };
        }
    }

    /// Takes value `p` out, the last value moving into its place. No
    /// bounds check: the callers' maps prove the index (a check's panic
    /// path kept the sparse set's `remove` from being inlined into the
    /// refresh's reclamation, +9 instructions per value removed).
    ///
    /// # Safety
    /// `p < len()`.
    #[inline]
    pub(super) unsafe fn swap_remove(&mut self, p: usize) -> T {
        // SAFETY: `p < len` (the caller's contract), so initialised; the
        // array forgets it just below.
        let value = unsafe { self.base().add(p).read() };
        // SAFETY: `p < len`, the slots hold `T`s, and value `p` was read
        // out above.
        unsafe { self.raw.forget_swap(p, const { size_of::<T>() }) };
        value
    }

    /// The untyped array, for the storages' cold paths (compiled once, not
    /// per component type).
    #[inline(always)]
    pub(super) fn raw_mut(&mut self) -> &mut RawPacked {
        &mut self.raw
    }

    /// Drops value `p`, the last value moving into its place (see
    /// [`RawPacked::discard`]).
    ///
    /// # Safety
    /// `p < len()`.
    #[inline(always)]
    pub(super) unsafe fn discard(&mut self, p: usize) {
        // SAFETY: `p < len` (the caller's contract); the slots hold `T`s.
        unsafe { self.raw.discard(p, const { size_of::<T>() }) };
    }

    /// Gives up every value without dropping it, keeping the memory: the
    /// caller owns the `len()` values from the returned address (`base()`,
    /// untyped) from now on (moves them out or drops them), as
    /// `Defer::spawn_collected` does with the bundles it collected here.
    #[inline]
    pub(crate) fn forget_all(&mut self) -> *mut u8 {
        self.raw.len = 0;
        self.raw.slots.base().as_ptr()
    }

    /// Drops every value, keeping the memory (see [`RawPacked::clear`]).
    #[inline]
    pub(super) fn clear(&mut self) {
        self.raw.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn push_swap_remove_and_drops() {
        let rc = Arc::new(());
        let mut p = Packed::<(u8, Arc<()>)>::with_capacity(0);
        for i in 0..10 {
            p.push((i, rc.clone()));
        }
        assert_eq!(p.len(), 10);
        // SAFETY: 2 < 10.
        assert_eq!(unsafe { p.swap_remove(2) }.0, 2);
        assert_eq!(p.get_mut(2).0, 9, "the last moved into the hole");
        // SAFETY: 8 < 9.
        assert_eq!(unsafe { p.swap_remove(8) }.0, 8, "the last one: nothing moves");
        assert_eq!(p.len(), 8);
        assert!(p.get(8).is_none());
        assert_eq!(Arc::strong_count(&rc), 9);
        p.clear();
        assert_eq!((p.len(), Arc::strong_count(&rc)), (0, 1));
        p.push((0, rc.clone()));
        drop(p);
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    /// `discard` drops value `p` once, the last moving into its place, for
    /// values that need dropping (swapped to the end, then dropped) and
    /// values that do not (forgotten as `swap_remove` does).
    #[test]
    fn discard_drops_one_value_and_keeps_the_others_packed() {
        let rc = Arc::new(());
        let mut p = Packed::<(u8, Arc<()>)>::with_capacity(0);
        for i in 0..5 {
            p.push((i, rc.clone()));
        }
        // SAFETY: 1 < 5.
        unsafe { p.discard(1) };
        assert_eq!((p.len(), Arc::strong_count(&rc)), (4, 5));
        // SAFETY: 3 < 4 (the last).
        unsafe { p.discard(3) };
        assert_eq!((p.len(), Arc::strong_count(&rc)), (3, 4));
        let order: Vec<u8> = (0..p.len()).map(|i| p.get_mut(i).0).collect();
        assert_eq!(order, [0, 4, 2], "the last moved into the hole");
        drop(p);
        assert_eq!(Arc::strong_count(&rc), 1);

        let mut q = Packed::<u16>::with_capacity(2);
        for i in 0..4 {
            q.push(i);
        }
        // SAFETY: 0 < 4.
        unsafe { q.discard(0) };
        let order: Vec<u16> = (0..q.len()).map(|i| *q.get_mut(i)).collect();
        assert_eq!(order, [3, 1, 2]);
    }

    /// The untyped core's offsets for 24-byte values (no fixed copy in
    /// `copy_bytes`): `replace`, `get_mut` and `swap_remove` reach value `p`.
    #[test]
    fn replace_and_swap_remove_values_of_24_bytes() {
        let mut p = Packed::<[u64; 3]>::with_capacity(1);
        for i in 0..6 {
            p.push([i, i + 10, i + 20]);
        }
        assert_eq!(p.replace(4, [7, 7, 7]), [4, 14, 24]);
        p.get_mut(1)[2] = 99;
        // SAFETY: 1 < len.
        assert_eq!(unsafe { p.swap_remove(1) }, [1, 11, 99]);
        // SAFETY: `get` returned `Some`, and nothing else refers to the
        // values.
        let all: Vec<[u64; 3]> = (0..p.len()).map(|i| unsafe { *p.get(i).unwrap().as_ptr() }).collect();
        assert_eq!(all, [[0, 10, 20], [5, 15, 25], [2, 12, 22], [3, 13, 23], [7, 7, 7]]);
    }

    #[test]
    #[should_panic(expected = "below the length")]
    fn replace_past_the_end_panics() {
        let mut p = Packed::<u32>::with_capacity(4);
        p.push(1);
        p.replace(1, 2);
    }
}
