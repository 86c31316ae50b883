//! A buffer of uninitialised slots of one layout, not generic: allocating,
//! growing and freeing it is compiled once, here, for every component type
//! (a `Vec<MaybeUninit<T>>` compiles its `reserve`, growth and drop for each
//! `T`). Its owners (`Cells` under [`Contiguous`](super::Contiguous),
//! `RawPacked` under `Packed`) know which slots hold a value; their typed
//! shells read and write them.

use core::ptr::NonNull;
use std::alloc::{alloc, dealloc, handle_alloc_error, realloc, Layout};

/// `len` slots of `item`'s layout, slot `i` at byte `i * item.size()` of
/// `ptr`; none initialised as far as the buffer knows.
///
/// Invariants: when `item.size() * len > 0`, `ptr` is an allocation of the
/// global allocator with layout `item.size() * len` bytes aligned to
/// `item.align()` (`item.size()` is a multiple of its alignment, as every
/// type's size is, so each slot is aligned); otherwise `ptr` is dangling,
/// aligned to `item.align()`, and nothing is allocated. `ptr` is used only
/// as a raw pointer, so writes through copies of it taken under a shared
/// borrow of the buffer are allowed (they touch the allocation, not the
/// buffer's fields).
pub(super) struct Slots {
    ptr: NonNull<u8>,
    len: usize,
    item: Layout,
}

impl Slots {
    /// `len` slots of `item`'s layout.
    #[inline(never)]
    pub(super) fn new(item: Layout, len: usize) -> Self {
        let mut slots = Self {
            // Aligned, never null (an alignment is at least 1), and never
            // dereferenced for zero bytes.
            ptr: NonNull::new(core::ptr::without_provenance_mut(item.align())).expect("an alignment is not zero"),
            len: 0,
            item,
        };
        slots.grow_to(len);
        slots
    }

    /// How many slots the buffer holds.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The size of one slot (of the values' layout).
    #[inline]
    pub(super) fn item_size(&self) -> usize {
        self.item.size()
    }

    /// The first slot: slot `i` is at `base() + i * item.size()`.
    #[inline]
    pub(super) fn base(&self) -> NonNull<u8> {
        self.ptr
    }

    /// The layout of `len` slots (which the buffer's allocation has when it
    /// is not empty).
    fn array(item: Layout, len: usize) -> Layout {
        item.size()
            .checked_mul(len)
            .and_then(|size| Layout::from_size_align(size, item.align()).ok())
            .expect("a component buffer's size overflows `isize`")
    }

    /// Lengthens the buffer to `len` slots (nothing when it holds as many),
    /// moving the slots' bytes with it; the new slots are uninitialised.
    #[inline(never)]
    pub(super) fn grow_to(&mut self, len: usize) {
        if len <= self.len {
            return;
        }
        let new = Self::array(self.item, len);
        if new.size() == 0 {
            // Zero-sized slots: nothing to allocate, the pointer stays.
            self.len = len;
            return;
        }
        let old = Self::array(self.item, self.len);
        let ptr = if old.size() == 0 {
            // SAFETY: `new` has a non-zero size.
            unsafe { alloc(new) }
        } else {
            // SAFETY: `ptr` was allocated with layout `old` (the invariant,
            // as `old.size() > 0`); `new.size()` is non-zero and fits
            // `isize` once rounded to the alignment (`Layout` checked it).
            unsafe { realloc(self.ptr.as_ptr(), old, new.size()) }
        };
        // On failure `realloc` left the old allocation as it was, which the
        // buffer still owns (nothing changed yet).
        self.ptr = NonNull::new(ptr).unwrap_or_else(|| handle_alloc_error(new));
        self.len = len;
    }
}

impl Drop for Slots {
    /// Frees the memory; the values in the slots are the owner's to drop
    /// first.
    fn drop(&mut self) {
        let layout = Self::array(self.item, self.len);
        if layout.size() > 0 {
            // SAFETY: allocated with this layout (the invariant).
            unsafe { dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_keeping_the_bytes() {
        let mut s = Slots::new(Layout::new::<u64>(), 2);
        assert_eq!(s.len(), 2);
        let base = s.base().as_ptr().cast::<u64>();
        // SAFETY: two slots of `u64`s, aligned.
        unsafe { base.write(7) };
        // SAFETY: as above.
        unsafe { base.add(1).write(9) };
        s.grow_to(1);
        assert_eq!(s.len(), 2, "never shrinks");
        s.grow_to(1000);
        assert_eq!(s.len(), 1000);
        let base = s.base().as_ptr().cast::<u64>();
        assert_eq!(base as usize % 8, 0);
        // SAFETY: slots 0 and 1 were written before the growth, which
        // moved their bytes; slot 999 is in the buffer.
        unsafe {
            assert_eq!((base.read(), base.add(1).read()), (7, 9));
            base.add(999).write(1);
        }
    }

    #[test]
    fn zero_sized_and_empty_allocate_nothing() {
        let mut z = Slots::new(Layout::new::<()>(), 5);
        z.grow_to(1 << 40);
        assert_eq!(z.len(), 1 << 40);
        let mut e = Slots::new(Layout::new::<[u64; 2]>(), 0);
        assert_eq!(e.base().as_ptr() as usize, core::mem::align_of::<[u64; 2]>());
        e.grow_to(3);
        assert_eq!(e.base().as_ptr() as usize % core::mem::align_of::<[u64; 2]>(), 0);
    }

    #[test]
    #[should_panic(expected = "overflows")]
    fn overflow_panics() {
        let mut s = Slots::new(Layout::new::<u64>(), 1);
        s.grow_to(usize::MAX / 4);
    }
}
