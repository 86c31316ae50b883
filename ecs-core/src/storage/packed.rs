//! Values packed at the front of a [`Slots`] buffer, removed by
//! swap-remove: the value arrays of `sparse_set` and `hash_map`, whose
//! growth and freeing are compiled once (a `Vec<T>` compiles its `push`'s
//! growth, `reserve` and drop for each component type).

use super::drops::drop_each;
use super::slots::Slots;
use core::alloc::Layout;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ptr::NonNull;

/// `len` values of `T`, in slots `0..len` of `slots`.
///
/// Invariants: `slots` holds slots of `T`'s layout; `len <= slots.len()`;
/// slots `0..len` hold initialised values owned by this array, the others
/// none.
pub(super) struct Packed<T> {
    slots: Slots,
    len: usize,
    /// The array owns `T`s, and is invariant in `T` as the `UnsafeCell`s
    /// it stands for (values written through a shared borrow) would make
    /// it.
    _values: PhantomData<UnsafeCell<T>>,
}

/// Grows `slots` for one more value after the first `len` (doubling, as a
/// `Vec` does). Not generic, and out of line: the inlined `push` is one
/// comparison and the store.
#[cold]
#[inline(never)]
fn grow_for_one(slots: &mut Slots, len: usize) {
    slots.grow_to(len.saturating_mul(2).max(len + 1).max(4));
}

impl<T> Packed<T> {
    /// An empty array with room for `cap` values.
    #[inline]
    pub(super) fn with_capacity(cap: usize) -> Self {
        Self {
            slots: Slots::new(Layout::new::<T>(), cap),
            len: 0,
            _values: PhantomData,
        }
    }

    /// How many values the array holds.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The first value: value `p < len` is at `base().add(p)`. A raw
    /// pointer to the buffer, not derived from a borrow of the array:
    /// writing through it under `&self` is allowed.
    #[inline]
    pub(super) fn base(&self) -> NonNull<T> {
        self.slots.base().cast::<T>()
    }

    /// Value `p`, or `None` past the end.
    #[inline]
    pub(super) fn get(&self, p: usize) -> Option<NonNull<T>> {
        // SAFETY: `p < len <= slots.len()`: an in-bounds offset.
        (p < self.len).then(|| unsafe { self.base().add(p) })
    }

    /// Value `p`.
    ///
    /// # Panics
    /// When `p` is past the end.
    #[inline]
    pub(super) fn get_mut(&mut self, p: usize) -> &mut T {
        let value = self.get(p).expect("a packed index is below the length");
        // SAFETY: `p < len`, so initialised; `&mut self` excludes other
        // access.
        unsafe { &mut *value.as_ptr() }
    }

    /// Makes room for one more value, so that the next `push` cannot fail.
    #[inline]
    pub(super) fn reserve_one(&mut self) {
        if self.len == self.slots.len() {
            grow_for_one(&mut self.slots, self.len);
        }
    }

    /// Appends `value`, at index `len()`.
    #[inline]
    pub(super) fn push(&mut self, value: T) {
        self.reserve_one();
        // SAFETY: `len < slots.len()` (made room above): slot `len` is in
        // the buffer, and holds no value to overwrite.
        unsafe { self.base().add(self.len).write(value) };
        self.len += 1;
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
        debug_assert!(p < self.len, "a packed index is below the length");
        let last = self.len - 1;
        let base = self.base();
        // SAFETY: `p < len` (the caller's contract), so initialised; the
        // array forgets it (its
        // length drops below `last + 1`, and slot `last` moves to `p`).
        let value = unsafe { base.add(p).read() };
        if p != last {
            // SAFETY: `p < last < len`: distinct initialised slots in the
            // buffer; the value at `last` moves to the slot just emptied,
            // and `last` is past the new end.
            unsafe { base.add(last).copy_to_nonoverlapping(base.add(p), 1) };
        }
        self.len = last;
        value
    }

    /// Drops every value, keeping the memory, each even after a panicking
    /// `drop` (as [`drop_each`] does).
    pub(super) fn clear(&mut self) {
        let len = core::mem::replace(&mut self.len, 0);
        if const { core::mem::needs_drop::<T>() } {
            let base = self.base();
            // The array holds none of them now: a panic below drops none
            // twice.
            drop_each(0..len, |i| {
                // SAFETY: `i < len` (the old length): initialised, and
                // dropped once, here (the array no longer owns it).
                unsafe { base.add(i).drop_in_place() }
            });
        }
    }
}

impl<T> Drop for Packed<T> {
    /// Drops the values (the buffer frees its memory after, even if one
    /// panics).
    fn drop(&mut self) {
        self.clear();
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
}
