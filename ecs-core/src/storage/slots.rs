//! A buffer of uninitialised slots of one layout, not generic: allocating,
//! growing and freeing it is compiled once, here, for every component type
//! (a `Vec<MaybeUninit<T>>` compiles its `reserve`, growth and drop for each
//! `T`). Its owners (`Cells` under [`Contiguous`](super::Contiguous),
//! `RawPacked` under `Packed`) know which slots hold a value; their typed
//! shells read and write them.
//!
//! A large buffer's first slot lies a few cache lines into its allocation,
//! a different number for each large buffer (its colour), as jemalloc
//! offsets large allocations: the allocator maps each large allocation
//! from the start of a page, plus its header, so that every column of a
//! fixed context began at the same offset in its page. A loop that stores
//! to one such column and loads from another then ran at the slowest
//! distance between them: swapping two arrays of 10 000 `f32` took 1 694 ns
//! when they started at the same offset in their pages, 1 454-1 497 ns at
//! half of the other distances (a store seems to hold back loads whose
//! address matches it in the low 12 bits; `benches/peers/gaps.md`,
//! schedule, stop 47).

use core::ptr::NonNull;
use core::sync::atomic::{AtomicUsize, Ordering};
use std::alloc::{alloc, dealloc, handle_alloc_error, realloc, Layout};

/// Buffers whose first allocation is at least this large get a colour: the
/// allocator maps them page by page (glibc from 128 KiB; less, and the
/// offsets the allocator leaves vary anyway).
const COLOURED_FROM: usize = 64 * 1024;
/// Colours: the first slot is `colour * LINE` bytes into the allocation
/// (rounded up to the slots' alignment), `colour < COLOURS`: every line of
/// a 4 KiB page.
const COLOURS: usize = 64;
const LINE: usize = 64;
/// The colour of the next large buffer, times [`STRIDE`]: consecutive
/// buffers (the columns of one context, created one after another) lie
/// 23 lines apart, and the 64 colours come round once every 64 buffers.
static NEXT_COLOUR: AtomicUsize = AtomicUsize::new(0);
const STRIDE: usize = 23;

/// `len` slots of `item`'s layout, slot `i` at byte `i * item.size()` of
/// `ptr`, which is `pad` bytes into the allocation; none initialised as far
/// as the buffer knows.
///
/// Invariants: when `item.size() * len > 0`, `ptr - pad` is an allocation
/// of the global allocator with layout [`Slots::array`]`(item, len, pad)`:
/// `pad + item.size() * len` bytes aligned to `item.align()`, `pad` a
/// multiple of `item.align()` (and `item.size()` is a multiple of it, as
/// every type's size is, so each slot is aligned); otherwise `pad` is 0,
/// `ptr` is dangling, aligned to `item.align()`, and nothing is allocated.
/// `ptr` is used only as a raw pointer, so writes through copies of it
/// taken under a shared borrow of the buffer are allowed (they touch the
/// allocation, not the buffer's fields).
pub(super) struct Slots {
    ptr: NonNull<u8>,
    len: usize,
    item: Layout,
    pad: usize,
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
            pad: 0,
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

    /// The layout of `len` slots after `pad` bytes (which the buffer's
    /// allocation has when it is not empty).
    fn array(item: Layout, len: usize, pad: usize) -> Layout {
        item.size()
            .checked_mul(len)
            .and_then(|size| size.checked_add(pad))
            .and_then(|size| Layout::from_size_align(size, item.align()).ok())
            .expect("a component buffer's size overflows `isize`")
    }

    /// The bytes before the first slot of a new allocation of `size` bytes
    /// for slots aligned to `align`: the next colour's lines for a large
    /// one (rounded up to `align`; none when `align` is a page or more),
    /// none for a small one.
    fn colour(size: usize, align: usize) -> usize {
        if size < COLOURED_FROM || align >= COLOURS * LINE {
            return 0;
        }
        let colour = NEXT_COLOUR.fetch_add(1, Ordering::Relaxed).wrapping_mul(STRIDE) % COLOURS;
        // A multiple of `align` (a power of two below a page): a multiple of
        // `LINE` when `align <= LINE`, else of `align`, which divides a page.
        (colour * LINE).next_multiple_of(align) % (COLOURS * LINE)
    }

    /// Lengthens the buffer to `len` slots (nothing when it holds as many),
    /// moving the slots' bytes with it; the new slots are uninitialised.
    /// A buffer keeps the colour of its first allocation.
    #[inline(never)]
    pub(super) fn grow_to(&mut self, len: usize) {
        if len <= self.len {
            return;
        }
        let slots = Self::array(self.item, len, 0);
        if slots.size() == 0 {
            // Zero-sized slots: nothing to allocate, the pointer stays.
            self.len = len;
            return;
        }
        let (ptr, pad) = if self.len == 0 {
            let pad = Self::colour(slots.size(), self.item.align());
            let new = Self::array(self.item, len, pad);
            // SAFETY: `new` has a non-zero size (at least `slots`').
            let ptr = unsafe { alloc(new) };
            (NonNull::new(ptr).unwrap_or_else(|| handle_alloc_error(new)), pad)
        } else {
            let old = Self::array(self.item, self.len, self.pad);
            let new = Self::array(self.item, len, self.pad);
            // SAFETY: `ptr - pad` was allocated with layout `old` (the
            // invariant, as `old`'s slots take `self.len > 0` times a
            // non-zero size); `new.size()` is non-zero and fits `isize` once
            // rounded to the alignment (`Layout` checked it).
            let ptr = unsafe { realloc(self.ptr.as_ptr().sub(self.pad), old, new.size()) };
            // On failure `realloc` left the old allocation as it was, which
            // the buffer still owns (nothing changed yet).
            (NonNull::new(ptr).unwrap_or_else(|| handle_alloc_error(new)), self.pad)
        };
        // SAFETY: `pad` bytes are inside the allocation of `pad` plus a
        // non-zero size.
        self.ptr = unsafe { ptr.add(pad) };
        self.pad = pad;
        self.len = len;
    }
}

impl Drop for Slots {
    /// Frees the memory; the values in the slots are the owner's to drop
    /// first.
    fn drop(&mut self) {
        let layout = Self::array(self.item, self.len, self.pad);
        if layout.size() > 0 {
            // SAFETY: `ptr - pad` was allocated with this layout (the
            // invariant).
            unsafe { dealloc(self.ptr.as_ptr().sub(self.pad), layout) };
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
    fn large_buffers_start_different_numbers_of_lines_into_their_allocations() {
        // 160 KB each, what the allocator maps from a page's start (plus its
        // header): without colours, all would begin at the same offset in
        // their pages. (Where they land depends on the allocator's state,
        // so the colours themselves are checked.)
        let buffers: Vec<Slots> = (0..8).map(|_| Slots::new(Layout::new::<f32>(), 40_000)).collect();
        let mut pads: Vec<usize> = buffers.iter().map(|b| b.pad).collect();
        assert!(
            pads.iter().all(|&pad| pad % LINE == 0 && pad < COLOURS * LINE),
            "pads {pads:?}"
        );
        pads.sort_unstable();
        pads.dedup();
        // Other tests take colours meanwhile; eight buffers still get several.
        assert!(pads.len() >= 4, "pads {pads:?}");
        let small = Slots::new(Layout::new::<f32>(), 1_000);
        assert_eq!(small.pad, 0, "small buffers are not coloured");
    }

    #[test]
    fn coloured_buffers_keep_their_alignment_and_bytes_as_they_grow() {
        #[repr(align(256))]
        struct Wide(#[allow(dead_code)] [u8; 256]);
        #[repr(align(4096))]
        struct Paged(#[allow(dead_code)] [u8; 4096]);
        for _ in 0..4 {
            let wide = Slots::new(Layout::new::<Wide>(), 1_000);
            assert_eq!(wide.base().as_ptr() as usize % 256, 0);
            let paged = Slots::new(Layout::new::<Paged>(), 20);
            assert_eq!(paged.base().as_ptr() as usize % 4096, 0);
        }
        let mut s = Slots::new(Layout::new::<u64>(), 10_000);
        let base = s.base().as_ptr().cast::<u64>();
        // SAFETY: slots 0 and 9 999 of `u64`s, aligned.
        unsafe { (base.write(7), base.add(9_999).write(9)) };
        s.grow_to(30_000);
        let base = s.base().as_ptr().cast::<u64>();
        assert_eq!(base as usize % 8, 0);
        // SAFETY: both were written before the growth, which moved their
        // bytes; slot 29 999 is in the buffer.
        unsafe {
            assert_eq!((base.read(), base.add(9_999).read()), (7, 9));
            base.add(29_999).write(1);
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
