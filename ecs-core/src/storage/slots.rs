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
//!
//! Since stop 51 a large buffer is aligned to a page and starts a
//! [`color`] past it, a different offset for each buffer made in a row, so
//! that a context's columns do not all start at the same offset in their
//! pages (see `color` for what that cost a block walk). Stop 47 had
//! colours for `schedule`'s swaps, whose gain stop 48 did not reproduce;
//! stop 49 removed them with the slow 16 bytes past a line they left
//! (`benches/peers/gaps.md`). These are on a line.

use core::ptr::NonNull;
use std::alloc::{alloc, dealloc, handle_alloc_error, realloc, Layout};

/// Allocations of at least this many bytes are large: aligned to a page,
/// their slots starting on a line at a [`color`] past it. The allocator
/// maps large ones from a page's start plus its header (glibc from 128
/// KiB); a smaller one's place among other allocations decides its offset
/// anyway.
const LINED_FROM: usize = 64 * 1024;
/// A cache line's bytes.
const LINE: usize = 64;
/// The page a large allocation is aligned to: what the offsets that
/// [`color`] staggers are counted in (a store and a later load whose
/// addresses agree in their low 12 bits).
const PAGE: usize = 4096;
/// The largest color, and the bytes a large allocation adds for it.
const MAX_COLOR: usize = PAGE - LINE;

/// Where the slots of the next large buffer start past its allocation's
/// page: a multiple of `align` (itself a multiple of a line, below a
/// page), 25 lines (1 600 bytes) on from the last buffer's, modulo a page,
/// so that the columns of a context, allocated one after the other, start
/// at different offsets in their pages.
///
/// Without it every large column started at the same offset (the
/// allocator's header, rounded up to a line), and a walk that wrote one
/// column while reading another ran slower once the compiler interleaved
/// its stores with its loads (`block_walk`): over 10 000 `[f32; 2]`,
/// 1.70 µs with the two arrays at the same offset against 1.56-1.58 at
/// offsets 64 to 3 072 bytes apart (`benches/peers/examples/walk_shape.rs`,
/// `opaque_one`, `PAGE_AT`).
fn color(align: usize) -> usize {
    use core::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    // A hint shared by every thread: relaxed, any count will do.
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    // 25 is odd, so 64 buffers in a row get the 64 lines of a page.
    let offset = n.wrapping_mul(25) % (PAGE / LINE) * LINE;
    offset / align * align
}

/// `len` slots of `item`'s layout, slot `i` at byte `i * item.size()` of
/// `ptr`; none initialised as far as the buffer knows.
///
/// Invariants: when `item.size() * len > 0`, `ptr` is in an allocation of
/// the global allocator with layout [`Slots::array`]`(item, len)`: at its
/// start when the buffer is small, and when it is large ([`Slots::large`])
/// a [`color`] past it, below a page, which leaves `item.size() * len`
/// bytes after `ptr` (the layout adds [`MAX_COLOR`]). Either way `ptr` is
/// aligned to at least `item.align()`, and `item.size()` is a multiple of
/// that, as every type's size is, so each slot is aligned. Otherwise `ptr`
/// is dangling, aligned to `item.align()`, and nothing is allocated. `ptr`
/// is used only as a raw pointer, so writes through copies of it taken
/// under a shared borrow of the buffer are allowed (they touch the
/// allocation, not the buffer's fields).
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

    /// Whether `len` slots of `item` make a large buffer, aligned to a page
    /// and colored.
    fn large(item: Layout, len: usize) -> bool {
        item.size().saturating_mul(len) >= LINED_FROM
    }

    /// The layout of an allocation of `len` slots: aligned to a page, with
    /// room for a color, when it is large; else as the slots are.
    fn array(item: Layout, len: usize) -> Layout {
        item.size()
            .checked_mul(len)
            .and_then(|size| {
                if Self::large(item, len) {
                    Layout::from_size_align(size.checked_add(MAX_COLOR)?, item.align().max(PAGE)).ok()
                } else {
                    Layout::from_size_align(size, item.align()).ok()
                }
            })
            .expect("a component buffer's size overflows `isize`")
    }

    /// The alignment of the buffer's allocation (of its slots' layout when
    /// it has none).
    #[cfg(test)]
    fn align(&self) -> usize {
        Self::array(self.item, self.len).align()
    }

    /// The color of a new large buffer of `item`: a multiple of a line and
    /// of the slots' alignment, 0 when that is a page or more.
    fn new_color(item: Layout) -> usize {
        color(item.align().max(LINE))
    }

    /// How far past its allocation's start the buffer's slots begin: its
    /// color when it is large, 0 when small (or when nothing is allocated).
    fn offset(&self) -> usize {
        if Self::large(self.item, self.len) {
            // The allocation is aligned to a page, and the color is below
            // one (the invariant).
            self.ptr.as_ptr().addr() % PAGE
        } else {
            0
        }
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
        let large = Self::large(self.item, len);
        // The allocation's start and where the slots begin past it (the
        // color, when large).
        let (start, offset) = if old.size() == 0 {
            // SAFETY: `new` has a non-zero size.
            let start = unsafe { alloc(new) };
            (start, if large { Self::new_color(self.item) } else { 0 })
        } else if large == Self::large(self.item, self.len) {
            // Both small, aligned as the slots, or both large, aligned to a
            // page: the same alignment, and a large buffer keeps its color
            // (`realloc` moves the allocation's bytes from its start).
            let offset = self.offset();
            // SAFETY: the allocation starts `offset` bytes before `ptr` and
            // has layout `old` (the invariant, as `old` has a non-zero
            // size); `new` keeps its alignment (both small or both large),
            // and `new.size()` is non-zero and fits `isize` once rounded
            // to the alignment (`Layout` checked it).
            let start = unsafe { realloc(self.ptr.as_ptr().wrapping_sub(offset), old, new.size()) };
            (start, offset)
        } else {
            // Grown large: the bytes move to an allocation on a page, at a
            // color past it (the allocator cannot change an allocation's
            // alignment in place). A small buffer's slots are at its
            // allocation's start.
            // SAFETY: `new` has a non-zero size.
            let moved = unsafe { alloc(new) };
            let offset = Self::new_color(self.item);
            if !moved.is_null() {
                // SAFETY: the old allocation holds `old.size()` bytes from
                // `ptr` (the invariant); the new one holds `new.size()`, at
                // least `offset` plus the slots' bytes (`MAX_COLOR` is
                // added), more than `old.size()` (`len` grew); a fresh
                // allocation overlaps no other.
                unsafe { core::ptr::copy_nonoverlapping(self.ptr.as_ptr(), moved.add(offset), old.size()) };
                // SAFETY: `ptr` is a small buffer's allocation, with layout
                // `old` (the invariant); it is replaced below and never used
                // again.
                unsafe { dealloc(self.ptr.as_ptr(), old) };
            }
            (moved, offset)
        };
        // On failure the old allocation is as it was, still the buffer's
        // (nothing changed yet).
        let start = NonNull::new(start).unwrap_or_else(|| handle_alloc_error(new));
        // SAFETY: `offset` is 0, or a color, at most `MAX_COLOR`, which the
        // large layout adds to the slots' bytes: within the allocation.
        self.ptr = unsafe { start.add(offset) };
        self.len = len;
    }
}

impl Drop for Slots {
    /// Frees the memory; the values in the slots are the owner's to drop
    /// first.
    fn drop(&mut self) {
        let layout = Self::array(self.item, self.len);
        if layout.size() > 0 {
            // SAFETY: the allocation, `offset()` bytes before `ptr`, has this
            // layout (the invariant).
            unsafe { dealloc(self.ptr.as_ptr().wrapping_sub(self.offset()), layout) };
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
            assert_eq!(large.align(), PAGE);
        }
        let small = Slots::new(Layout::new::<f32>(), 1_000);
        assert_eq!(small.align(), 4, "small buffers are not padded out to a line");
        assert_eq!(small.base().as_ptr() as usize % 4, 0);
    }

    #[test]
    fn large_buffers_made_together_start_at_different_offsets_in_their_pages() {
        // Other tests make buffers at the same time (the colors are drawn
        // from one counter): of eight made in a row, most differ.
        let columns: Vec<Slots> = (0..8).map(|_| Slots::new(Layout::new::<[f32; 2]>(), 20_000)).collect();
        let mut offsets: Vec<usize> = columns.iter().map(|c| c.base().as_ptr() as usize % PAGE).collect();
        for &o in &offsets {
            assert_eq!(o % LINE, 0, "on a line");
            assert!(o <= MAX_COLOR);
        }
        offsets.sort_unstable();
        offsets.dedup();
        assert!(offsets.len() >= 4, "offsets {offsets:?}");
        // Each slot is writable up to the last, past its color.
        for c in &columns {
            let base = c.base().as_ptr().cast::<[f32; 2]>();
            // SAFETY: slots 0 and 19 999 of `[f32; 2]`, aligned.
            unsafe { (base.write([1.0, 2.0]), base.add(19_999).write([3.0, 4.0])) };
            // SAFETY: both written above.
            unsafe { assert_eq!((base.read(), base.add(19_999).read()), ([1.0, 2.0], [3.0, 4.0])) };
        }
    }

    #[test]
    fn colors_step_through_every_line_of_a_page_and_keep_the_alignment() {
        let mut lines: Vec<usize> = (0..64).map(|_| color(LINE) / LINE).collect();
        lines.sort_unstable();
        lines.dedup();
        // Concurrent tests draw from the same counter: still spread.
        assert!(lines.len() >= 32, "{lines:?}");
        for align in [LINE, 256, 1024] {
            for _ in 0..16 {
                let c = color(align);
                assert!(c.is_multiple_of(align) && c <= MAX_COLOR, "{c} for alignment {align}");
            }
        }
        assert_eq!(color(PAGE), 0);
        assert_eq!(color(2 * PAGE), 0);
    }

    #[test]
    fn a_buffer_grown_large_moves_to_a_line_with_its_bytes() {
        let mut s = Slots::new(Layout::new::<u64>(), 100);
        let base = s.base().as_ptr().cast::<u64>();
        // SAFETY: slots 0 and 99 of `u64`s, aligned.
        unsafe { (base.write(7), base.add(99).write(9)) };
        s.grow_to(10_000);
        assert_eq!(s.align(), PAGE);
        let base = s.base().as_ptr().cast::<u64>();
        assert_eq!(base as usize % LINE, 0);
        let offset = base as usize % PAGE;
        // SAFETY: both were written before the growth, which moved their
        // bytes; slot 9 999 is in the buffer.
        unsafe {
            assert_eq!((base.read(), base.add(99).read()), (7, 9));
            base.add(9_999).write(1);
        }
        s.grow_to(30_000);
        let base = s.base().as_ptr().cast::<u64>();
        assert_eq!(base as usize % LINE, 0, "a lined buffer stays lined as it grows");
        assert_eq!(base as usize % PAGE, offset, "and keeps its color");
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
        assert_eq!((wide.align(), paged.align()), (PAGE, PAGE));
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
