//! A buffer of uninitialised slots of one layout, not generic: allocating,
//! growing and freeing it is compiled once, here, for every component type
//! (a `Vec<MaybeUninit<T>>` compiles its `reserve`, growth and drop for each
//! `T`). Its owners (`Cells` under [`Contiguous`](super::Contiguous),
//! `RawPacked` under `Packed`) know which slots hold a value; their typed
//! shells read and write them.
//!
//! A large buffer starts on a cache line. The allocator maps a large
//! allocation from a page's start plus a 16-byte header, so a column of a
//! fixed context began 16 bytes past a line, and a split system's subtasks
//! ran slower there: `schedule`'s step (two threads, `ab` in quarters of
//! 10 000 `f32`) took 5.03-5.08 µs against 4.80-4.85 with every large
//! column on a line, alternated in one quiet phase (the quarter that
//! starts where another thread's quarter ends: 1.67 µs against 1.55).
//! The same hand-written loops ran slow with their buffers' starts 16 or
//! 48 bytes past a line and fast at 0 or 32, whatever their offset in the
//! page (`benches/peers/gaps.md`, schedule, stop 49; why, without the
//! CPU's counters here, is not established).

use core::ptr::NonNull;
use std::alloc::{alloc, dealloc, handle_alloc_error, realloc, Layout};

/// Allocations of at least this many bytes are aligned to a line: the
/// allocator maps large ones from a page's start plus its header (glibc
/// from 128 KiB); a smaller one's place among other allocations decides
/// its offset anyway.
const LINED_FROM: usize = 64 * 1024;
/// A cache line's bytes.
const LINE: usize = 64;

/// `len` slots of `item`'s layout, slot `i` at byte `i * item.size()` of
/// `ptr`; none initialised as far as the buffer knows.
///
/// Invariants: when `item.size() * len > 0`, `ptr` is an allocation of the
/// global allocator with layout [`Slots::array`]`(item, len)` (aligned to
/// at least `item.align()`, and `item.size()` is a multiple of that, as
/// every type's size is, so each slot is aligned); otherwise `ptr` is
/// dangling, aligned to `item.align()`, and nothing is allocated. `ptr` is
/// used only as a raw pointer, so writes through copies of it taken under
/// a shared borrow of the buffer are allowed (they touch the allocation,
/// not the buffer's fields).
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

    /// The layout of an allocation of `len` slots: aligned to a line at
    /// least when it is large, else as the slots are.
    fn array(item: Layout, len: usize) -> Layout {
        item.size()
            .checked_mul(len)
            .and_then(|size| {
                let align = if size >= LINED_FROM {
                    item.align().max(LINE)
                } else {
                    item.align()
                };
                Layout::from_size_align(size, align).ok()
            })
            .expect("a component buffer's size overflows `isize`")
    }

    /// The alignment of the buffer's allocation (of its slots' layout when
    /// it has none).
    #[cfg(test)]
    fn align(&self) -> usize {
        Self::array(self.item, self.len).align()
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
        } else if new.align() == old.align() {
            // SAFETY: `ptr` was allocated with layout `old` (the invariant,
            // as `old` has a non-zero size); `new` keeps its alignment (the
            // test above), and `new.size()` is non-zero and fits `isize`
            // once rounded to the alignment (`Layout` checked it).
            unsafe { realloc(self.ptr.as_ptr(), old, new.size()) }
        } else {
            // Grown large: the bytes move to an allocation on a line (the
            // allocator cannot change an allocation's alignment in place).
            // SAFETY: `new` has a non-zero size.
            let moved = unsafe { alloc(new) };
            if !moved.is_null() {
                // SAFETY: the old allocation holds `old.size()` bytes (the
                // invariant), the new one `new.size()`, more (`len` grew),
                // and a fresh allocation overlaps no other.
                unsafe { core::ptr::copy_nonoverlapping(self.ptr.as_ptr(), moved, old.size()) };
                // SAFETY: `ptr` was allocated with layout `old` (the
                // invariant); it is replaced below and never used again.
                unsafe { dealloc(self.ptr.as_ptr(), old) };
            }
            moved
        };
        // On failure the old allocation is as it was, still the buffer's
        // (nothing changed yet).
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
            // SAFETY: `ptr` was allocated with this layout (the invariant).
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
    fn large_buffers_start_on_a_line_and_small_ones_keep_their_alignment() {
        // 160 KB each, what the allocator maps from a page's start plus its
        // header, 16 bytes past a line.
        for _ in 0..8 {
            let large = Slots::new(Layout::new::<f32>(), 40_000);
            assert_eq!(large.base().as_ptr() as usize % LINE, 0);
            assert_eq!(large.align(), LINE);
        }
        let small = Slots::new(Layout::new::<f32>(), 1_000);
        assert_eq!(small.align(), 4, "small buffers are not padded out to a line");
        assert_eq!(small.base().as_ptr() as usize % 4, 0);
    }

    #[test]
    fn a_buffer_grown_large_moves_to_a_line_with_its_bytes() {
        let mut s = Slots::new(Layout::new::<u64>(), 100);
        let base = s.base().as_ptr().cast::<u64>();
        // SAFETY: slots 0 and 99 of `u64`s, aligned.
        unsafe { (base.write(7), base.add(99).write(9)) };
        s.grow_to(10_000);
        assert_eq!(s.align(), LINE);
        let base = s.base().as_ptr().cast::<u64>();
        assert_eq!(base as usize % LINE, 0);
        // SAFETY: both were written before the growth, which moved their
        // bytes; slot 9 999 is in the buffer.
        unsafe {
            assert_eq!((base.read(), base.add(99).read()), (7, 9));
            base.add(9_999).write(1);
        }
        s.grow_to(30_000);
        let base = s.base().as_ptr().cast::<u64>();
        assert_eq!(base as usize % LINE, 0, "a lined buffer stays lined as it grows");
        // SAFETY: as above, after a second growth.
        unsafe { assert_eq!((base.read(), base.add(99).read(), base.add(9_999).read()), (7, 9, 1)) };
    }

    #[test]
    fn wider_alignments_are_kept() {
        #[repr(align(256))]
        struct Wide(#[allow(dead_code)] [u8; 256]);
        #[repr(align(4096))]
        struct Paged(#[allow(dead_code)] [u8; 4096]);
        // Small, then grown large (past 64 KiB), then larger.
        let mut wide = Slots::new(Layout::new::<Wide>(), 1);
        let mut paged = Slots::new(Layout::new::<Paged>(), 1);
        for n in [1, 300, 600] {
            wide.grow_to(n);
            assert_eq!(wide.base().as_ptr() as usize % 256, 0);
            paged.grow_to(n / 10 + 1);
            assert_eq!(paged.base().as_ptr() as usize % 4096, 0);
        }
        assert_eq!((wide.align(), paged.align()), (256, 4096));
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
