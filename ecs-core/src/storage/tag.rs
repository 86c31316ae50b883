//! `tag`: components without data, that only mark entities.

use super::drops::drop_each;
use super::presence::Presence;
use super::{Column, Storage};
use crate::bounds::ComponentBounds;
use crate::error::EntityLimit;
use crate::handle::EntityId;
use core::marker::PhantomData;
use core::ops::Range;
use core::ptr::NonNull;

/// Presence bits for a zero-sized component type: no memory per value.
///
/// A value inserted is kept logically (zero-sized values occupy no memory):
/// `remove` gives it back and dropping the storage drops the values held.
///
/// # Panics
/// Using it with a type that is not zero-sized fails to compile (a constant
/// evaluation error names the rule).
///
/// ```
/// use ecs::storage::{Column, Storage, Tag};
/// use ecs::{EntityId, EntityLimit};
///
/// #[derive(Debug, PartialEq)]
/// pub struct Selected;
///
/// let mut column = Tag::<Selected>::new(EntityLimit::Dynamic { initial: 0 });
/// let id = EntityId::from_bits(3);
/// assert_eq!(column.insert(id, Selected), None);
/// assert!(column.contains(id));
/// assert_eq!(column.remove(id), Some(Selected));
/// assert!(!column.contains(id));
/// ```
// Transparent: a `Tag<T>` is its presence bits for every `T`
// (`relocate_tag`).
#[repr(transparent)]
pub struct Tag<T> {
    present: Presence,
    _values: PhantomData<T>,
}

// SAFETY: it holds no `T` (only `PhantomData<T>` and the presence bits); the
// bound only makes a `T` that is not thread-safe report `ComponentBounds`'s
// one error, as the other storages do.
unsafe impl<T: ComponentBounds> Send for Tag<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: ComponentBounds> Sync for Tag<T> {}

impl<T> Tag<T> {
    const ZERO_SIZED: () = assert!(
        core::mem::size_of::<T>() == 0,
        "a `tag` component must be a zero-sized type (a unit struct); use another storage for data"
    );

    /// A pointer to "the" value: any aligned non-null pointer is valid for a
    /// zero-sized type. A constant: `NonNull::dangling` called was one
    /// function per tag type in a debug build (and a function of `Tag`
    /// calling it another).
    const DANGLING: NonNull<T> = NonNull::dangling();

    /// Moves `value` in: it occupies no memory, so this only makes sure
    /// it is not dropped. A type without drop glue (a unit struct without
    /// a `Drop` impl, most tags) is not even forgotten: `mem::forget` was
    /// one function per tag type in a debug build, for nothing.
    #[inline(always)]
    fn keep(value: T) {
        if const { core::mem::needs_drop::<T>() } {
            core::mem::forget(value);
        }
    }
}

impl<T: ComponentBounds> Storage for Tag<T> {
    // Always inlined: see `Contiguous`'s.
    #[inline(always)]
    fn new(limit: EntityLimit) -> Self {
        let () = Self::ZERO_SIZED;
        Self {
            present: Presence::with_capacity(limit.initial_capacity()),
            _values: PhantomData,
        }
    }
}

// SAFETY: values are zero-sized, so they never overlap and any aligned
// non-null pointer is valid for them; presence bits change only under
// `&mut self`.
unsafe impl<T: ComponentBounds> Column for Tag<T> {
    type Item = T;

    fn insert(&mut self, id: EntityId, value: T) -> Option<T> {
        let () = Self::ZERO_SIZED;
        Self::keep(value);
        if self.present.insert(id.index()) {
            // SAFETY: a value of a zero-sized type was held for this id;
            // reading it from a dangling pointer moves it out (no bytes read).
            Some(unsafe { Self::DANGLING.as_ptr().read() })
        } else {
            None
        }
    }

    // `insert` without handing back a value, as `SparseSetStorage`'s: the
    // value moved in (occupying no memory), its bit set. A value already
    // held (an unclaimed one, left by a spawn that panicked) is leaked, as
    // the contract allows: for a zero-sized type, its `Drop` not run.
    // Not `#[inline]`: as `insert`, left to the optimiser (with the hint,
    // inlined into every spawn, rustc's instructions for an optimised build
    // of `scripts/compile-cost`'s 64/32 rose by 3%).
    fn insert_new(&mut self, id: EntityId, value: T) {
        let () = Self::ZERO_SIZED;
        Self::keep(value);
        self.present.insert(id.index());
    }

    fn remove(&mut self, id: EntityId) -> Option<T> {
        if self.present.remove(id.index()) {
            // SAFETY: as in `insert`: moves out the zero-sized value held.
            Some(unsafe { Self::DANGLING.as_ptr().read() })
        } else {
            None
        }
    }

    // Always inlined: see `Contiguous`'s. A tag that needs no drop (any
    // unit struct without a `Drop` impl) only clears its bit.
    #[inline(always)]
    fn discard(&mut self, id: EntityId) {
        if const { core::mem::needs_drop::<T>() } {
            let _ = self.remove(id);
        } else {
            self.present.remove(id.index());
        }
    }

    fn remove_range(&mut self, ids: Range<usize>) {
        if const { core::mem::needs_drop::<T>() } {
            // Each id's bit is clear when its value is dropped; the rest are
            // dropped after a panicking one.
            drop_each(self.present.drain(ids), |_| {
                // SAFETY: one zero-sized value was held for the id, whose
                // bit is clear now: it is dropped once, here.
                unsafe { core::ptr::drop_in_place(Self::DANGLING.as_ptr()) }
            });
        } else {
            self.present.remove_range(ids);
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
        move_bit(&mut self.present, from.index(), to.index());
    }

    #[inline]
    fn contains(&self, id: EntityId) -> bool {
        self.present.get(id.index())
    }

    #[inline]
    fn get(&self, id: EntityId) -> Option<&T> {
        // SAFETY: a zero-sized value is held; a dangling pointer is valid for it.
        self.contains(id).then(|| unsafe { Self::DANGLING.as_ref() })
    }

    #[inline]
    fn get_mut(&mut self, id: EntityId) -> Option<&mut T> {
        self.contains(id).then(|| {
            let mut value = Self::DANGLING;
            // SAFETY: as in `get`; zero-sized references never alias any
            // bytes.
            unsafe { value.as_mut() }
        })
    }

    #[inline]
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<T>> {
        // An `if`, not `bool::then`: one function fewer per tag type in a
        // debug build.
        if self.contains(id) {
            Some(Self::DANGLING)
        } else {
            None
        }
    }

    /// Nothing: every value is at the same dangling address.
    type Fetch = ();

    #[inline(always)]
    fn fetch_state(&self) {}

    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn fetch((): (), _: EntityId) -> NonNull<T> {
        Self::DANGLING
    }
}

impl<T> Drop for Tag<T> {
    fn drop(&mut self) {
        if const { core::mem::needs_drop::<T>() } {
            // Every value, even after a panicking `drop`.
            drop_each(self.present.ones(), |_| {
                // SAFETY: one zero-sized value is held per set bit; each is
                // dropped once here (the storage is not used after its
                // `drop`).
                unsafe { core::ptr::drop_in_place(Self::DANGLING.as_ptr()) }
            });
        }
    }
}

/// [`Column::relocate`] (and so [`Column::swap`]) of the `Tag` column at
/// byte `offset` of `storages`, whatever its tag type: the arm that the
/// declaration's `relocate_component` and `swap_component` share between
/// all its `tag` components (see
/// [`discard_contiguous`](super::discard_contiguous); `remove_component`
/// keeps an arm per tag, whose drop, if any, is its type's).
///
/// # Safety
/// `storages` is valid for reads and writes, and nothing else accesses
/// it during the call; the bytes at `offset` from it hold a live `Tag<T>`
/// (of any `T`).
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn relocate_tag(storages: *mut u8, offset: usize, from: EntityId, to: EntityId) {
    // SAFETY: a `Tag<T>` at `offset` of `storages` (the caller's contract),
    // exclusively accessible, is its presence bits (`repr(transparent)`, for
    // every `T`).
    let present = unsafe { &mut *(storages.add(offset) as *mut Presence) };
    move_bit(present, from.index(), to.index());
}

/// [`Column::discard`] of the `Tag` column at byte `offset` of `storages`,
/// whatever its tag type: the arm that the declaration's `remove_component`
/// shares between all its `tag` components (see [`relocate_tag`]). `drop`
/// drops the tag's (zero-sized) value: `None` when it needs no drop.
///
/// # Safety
/// As [`relocate_tag`]'s, and `drop`, if any, is [`tag_drop`]'s for the
/// tag's type.
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn discard_tag(storages: *mut u8, offset: usize, drop: Option<unsafe fn(*mut u8)>, id: EntityId) {
    // SAFETY: as in `relocate_tag`.
    let present = unsafe { &mut *(storages.add(offset) as *mut Presence) };
    // The bit first: a value was held only when it was set.
    if let (true, Some(drop)) = (present.remove(id.index()), drop) {
        // SAFETY: one zero-sized value was held for the id, whose bit is
        // clear now: `drop` (the tag type's) drops it once, here.
        unsafe { drop(NonNull::<u8>::dangling().as_ptr()) };
    }
}

/// Drops the zero-sized `T` held for a cleared bit, ignoring the pointer it
/// is given (a `T` is read at its own aligned dangling address).
///
/// # Safety
/// A `T` was held and is not used again.
unsafe fn drop_tag<T>(_: *mut u8) {
    // SAFETY: forwarded from the caller; a zero-sized `T` is at any aligned
    // non-null address.
    unsafe { core::ptr::drop_in_place(Tag::<T>::DANGLING.as_ptr()) }
}

/// What [`discard_tag`] is given to drop a tag of type `T`: `None` when
/// `T` needs no drop (no function compiled for it).
#[doc(hidden)]
pub const fn tag_drop<T>() -> Option<unsafe fn(*mut u8)> {
    if core::mem::needs_drop::<T>() {
        Some(drop_tag::<T>)
    } else {
        None
    }
}

/// [`Column::relocate`] of a tag: zero-sized values are all alike, so
/// moving one is moving its bit, and an unclaimed one at `to` trades places
/// with it (both bits stay). Not generic: compiled once, not per tag type
/// (inlined, the bit operations were 69 lines of unoptimised IR per tag).
#[inline(never)]
fn move_bit(present: &mut Presence, from: usize, to: usize) {
    if present.remove(from) && present.insert(to) {
        present.insert(from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Marked;
    impl Drop for Marked {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn presence_and_drops() {
        {
            let mut t = Tag::<Marked>::new(EntityLimit::Dynamic { initial: 0 });
            assert!(t.insert(EntityId(3), Marked).is_none());
            assert!(t.insert(EntityId(70), Marked).is_none());
            assert!(t.contains(EntityId(3)) && t.get(EntityId(70)).is_some());
            assert!(t.get(EntityId(4)).is_none());
            drop(t.insert(EntityId(3), Marked)); // replaces: the old one drops
            assert_eq!(DROPS.load(Ordering::SeqCst), 1);
            drop(t.remove(EntityId(3)));
            assert_eq!(DROPS.load(Ordering::SeqCst), 2);
            assert!(t.remove(EntityId(3)).is_none());
        }
        assert_eq!(DROPS.load(Ordering::SeqCst), 3, "the storage drops what it holds");
    }

    /// `insert_new` sets the bit of an id without one; onto an id that has
    /// one it leaks a value (as the contract allows): the tag is held once,
    /// and dropped once with the storage.
    #[test]
    fn insert_new_sets_the_bit_and_leaks_a_replaced_value() {
        static NEW_DROPS: AtomicUsize = AtomicUsize::new(0);
        struct Counted;
        impl Drop for Counted {
            fn drop(&mut self) {
                NEW_DROPS.fetch_add(1, Ordering::SeqCst);
            }
        }
        {
            let mut t = Tag::<Counted>::new(EntityLimit::Dynamic { initial: 0 });
            t.insert_new(EntityId(5), Counted);
            t.insert_new(EntityId(90), Counted);
            assert!(t.contains(EntityId(5)) && t.contains(EntityId(90)) && !t.contains(EntityId(6)));
            t.insert_new(EntityId(5), Counted);
            assert_eq!(NEW_DROPS.load(Ordering::SeqCst), 0);
        }
        assert_eq!(
            NEW_DROPS.load(Ordering::SeqCst),
            2,
            "one value per id held, dropped with the storage"
        );
    }
}
