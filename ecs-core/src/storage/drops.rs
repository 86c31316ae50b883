//! Dropping many values so that a panicking `drop` stops none of the others.

use super::presence::Presence;
use core::ops::Range;
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Calls `drop_one` with every item of `items`, in order, even when some of
/// the calls panic: a panic ends only its own call, the loop goes on with the
/// next item, and once every item is done the first panic is resumed, as a
/// `Vec` dropping its elements does (where a second panic would abort
/// instead, a later panic's payload is dropped here, or leaked if its own
/// `drop` panics).
///
/// Called while the thread is already unwinding (a context dropped during a
/// panic), the caught panic is not raised again, which would abort the
/// process: the panic under way reaches the caller.
///
/// `items` must be in a consistent state after each call of `next`, and
/// `drop_one` must leave the item it was given dropped (or forgotten) when
/// it panics, as `drop_in_place` does: the caller's invariants are those
/// after the item was taken. Catching costs nothing until a panic happens
/// (one `catch_unwind` per panic, not per item).
pub(crate) fn drop_each<I: Iterator>(mut items: I, mut drop_one: impl FnMut(I::Item)) {
    // The loop over the items is all that depends on their type (it is the
    // code the optimiser sees whole, as in a plain `for` loop); catching,
    // keeping and resuming panics is compiled once, in `until_done`.
    until_done(&mut || {
        // `next` each time (a `for` loop): no internal iteration whose
        // state a panic could leave behind.
        for item in items.by_ref() {
            drop_one(item);
        }
    });
}

/// Runs `rest` until it returns without panicking, then resumes the first
/// panic it raised, if any (see [`drop_each`]): `rest` must consume at least
/// one item before each panic, so that the loop ends.
///
/// Not generic and never inlined: every storage's drop loop shares it.
#[inline(never)]
fn until_done(rest: &mut dyn FnMut()) {
    let mut panics = Panics::default();
    // Each panic consumed an item, so this loop ends.
    while let Err(payload) = catch_unwind(AssertUnwindSafe(&mut *rest)) {
        panics.keep(payload);
    }
    panics.resume();
}

/// Drops the values of a buffer of slots whose bits are set in a
/// [`Presence`], among the ids of a range, clearing their bits, each even
/// after a panicking `drop` (as [`drop_each`] does): how `contiguous`'s
/// untyped core drops values without being compiled per component type
/// (`Drops::<T>::PRESENT`).
///
/// # Safety
/// The first argument points to a buffer of slots of the values' type,
/// slot `i` at `.add(i)` as that type, and every id whose bit is set holds
/// an initialised value owned by the caller, who forgets it (its bit is
/// cleared before it is dropped).
pub(crate) type DropPresent = unsafe fn(*mut u8, &mut Presence, Range<usize>);

/// Drops the first `n` values of a buffer of slots, each even after a
/// panicking `drop`: how the packed arrays' untyped core drops its values
/// (`Drops::<T>::RUN`).
///
/// # Safety
/// The first argument points to `n` initialised values of the type the
/// function was made for, owned by the caller, who forgets them.
pub(crate) type DropRun = unsafe fn(*mut u8, usize);

/// [`DropPresent`] for `T`.
///
/// # Safety
/// As [`DropPresent`], the slots holding `T`s.
unsafe fn drop_present<T>(base: *mut u8, present: &mut Presence, ids: Range<usize>) {
    let base = base.cast::<T>();
    if ids.len() == 1 {
        // One id (`Column::discard`, as the reclamation of entities calls
        // it, once per value): no other value to go on with after a
        // panicking `drop`, so no `drop_each`, whose catching cost about
        // 140 instructions per value reclaimed (callgrind).
        if present.remove(ids.start) {
            // SAFETY: the bit was set, so the slot holds an initialised `T`
            // (the caller's contract), dropped once: its bit is clear now.
            unsafe { base.add(ids.start).drop_in_place() };
        }
        return;
    }
    // Each id comes with its bit clear already, so the value is never read
    // again, even if its `drop` panics; `drop_each` goes on with the rest.
    drop_each(present.drain(ids), |i| {
        // SAFETY: the bit of `i` was set, so slot `i` holds an initialised
        // `T` (the caller's contract), dropped once: its bit is clear now.
        unsafe { base.add(i).drop_in_place() }
    });
}

/// [`DropRun`] for `T`.
///
/// # Safety
/// As [`DropRun`], the values `T`s.
unsafe fn drop_run<T>(base: *mut u8, n: usize) {
    let base = base.cast::<T>();
    if n == 1 {
        // One value (`Column::discard`): as in `drop_present`.
        // SAFETY: an initialised `T` the caller forgets, dropped once, here.
        unsafe { base.drop_in_place() };
        return;
    }
    drop_each(0..n, |k| {
        // SAFETY: `k < n`: an initialised `T` the caller forgets, dropped
        // once, here.
        unsafe { base.add(k).drop_in_place() }
    });
}

/// The functions dropping `T`s for the storages' untyped cores, `None` when
/// `T` needs no drop. Constants, not a `const fn`'s results: a debug build
/// compiles neither a function returning them nor the drop loops for the
/// types that need no drop (a `const fn` returning a per-value drop
/// function cost both, 700 instructions of a debug build's IR at 64
/// components / 32 systems). The loops are typed, one call per column or
/// array dropped or range cleared: a call per value through a pointer made
/// dropping 10 000 spawned entities with two `String` components 3.9%
/// slower (callgrind, `drop_heap`).
pub(crate) struct Drops<T>(core::marker::PhantomData<T>);

impl<T> Drops<T> {
    /// [`DropPresent`] for `T`.
    pub(crate) const PRESENT: Option<DropPresent> = if core::mem::needs_drop::<T>() {
        Some(drop_present::<T>)
    } else {
        None
    };

    /// [`DropRun`] for `T`.
    pub(crate) const RUN: Option<DropRun> = if core::mem::needs_drop::<T>() {
        Some(drop_run::<T>)
    } else {
        None
    };
}

/// The first of the panics caught while a loop goes on, to resume at its
/// end. Dropped without [`resume`](Self::resume) (the loop itself
/// unwinding), it drops the payload where that cannot unwind.
#[derive(Default)]
pub(crate) struct Panics {
    first: Option<Box<dyn Any + Send>>,
}

impl Panics {
    /// Runs `f`; a panic of `f` is caught and kept (the first one; a later
    /// one's payload is dropped).
    #[inline]
    pub(crate) fn run(&mut self, f: impl FnOnce()) {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(f)) {
            self.keep(payload);
        }
    }

    fn keep(&mut self, payload: Box<dyn Any + Send>) {
        if self.first.is_none() {
            self.first = Some(payload);
        } else {
            discard(payload);
        }
    }

    /// Resumes the first panic caught, if any; while the thread is unwinding
    /// already (where raising it would abort), drops it instead.
    pub(crate) fn resume(mut self) {
        if let Some(payload) = self.first.take() {
            if std::thread::panicking() {
                discard(payload);
            } else {
                resume_unwind(payload);
            }
        }
    }
}

impl Drop for Panics {
    fn drop(&mut self) {
        if let Some(payload) = self.first.take() {
            discard(payload);
        }
    }
}

/// Drops a panic's payload where its own `drop` cannot unwind into the
/// caller: a payload whose `drop` panics is leaked, with that panic's.
fn discard(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        core::mem::forget(again);
    }
}

#[cfg(test)]
mod tests {
    use super::super::presence::Presence;
    use super::super::{Column, Contiguous, GroupColumn, HashMapStorage, SparseSetStorage, Storage};
    use super::*;
    use crate::error::EntityLimit;
    use crate::handle::EntityId;
    use std::cell::Cell;
    use std::sync::{Arc, Mutex};

    /// Logs its number when dropped; panics then if armed.
    struct Boom {
        n: u32,
        armed: bool,
        log: Arc<Mutex<Vec<u32>>>,
    }

    impl Drop for Boom {
        fn drop(&mut self) {
            self.log.lock().unwrap().push(self.n);
            if self.armed {
                panic!("boom {}", self.n);
            }
        }
    }

    fn sorted(log: &Mutex<Vec<u32>>) -> Vec<u32> {
        let mut v = log.lock().unwrap().clone();
        v.sort_unstable();
        v
    }

    /// `remove_range` and the storage's `drop` drop every value once
    /// whatever panics, and leave no value in the range; `relocate` drops
    /// nothing.
    fn check<C: Storage<Item = Boom>>() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut c = C::new(EntityLimit::Dynamic { initial: 0 });
        for n in 0..20 {
            let armed = n % 7 == 3; // 3, 10 and 17
            let log = log.clone();
            assert!(c.insert(EntityId(n), Boom { n, armed, log }).is_none());
        }
        let r = catch_unwind(AssertUnwindSafe(|| c.remove_range(2..15)));
        let payload = r.expect_err("two drops panicked");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("boom 3"));
        assert_eq!(
            sorted(&log),
            (2..15).collect::<Vec<_>>(),
            "each value of the range once"
        );
        for n in 0..20 {
            assert_eq!(c.contains(EntityId(n)), !(2..15).contains(&n), "id {n}");
        }
        // Onto an id that holds a value: the two swap, nothing is dropped.
        c.relocate(EntityId(19), EntityId(0));
        assert_eq!((c.get(EntityId(0)).unwrap().n, c.get(EntityId(19)).unwrap().n), (19, 0));
        // Onto an empty id: a move.
        c.relocate(EntityId(18), EntityId(5));
        assert_eq!(c.get(EntityId(5)).unwrap().n, 18);
        assert!(!c.contains(EntityId(18)));
        assert_eq!(log.lock().unwrap().len(), 13, "relocation dropped nothing");
        // Dropping the storage: entity 17's value panics, the rest go too.
        let r = catch_unwind(AssertUnwindSafe(move || drop(c)));
        assert!(r.is_err());
        assert_eq!(sorted(&log), (0..20).collect::<Vec<_>>(), "every value once");
    }

    #[test]
    fn every_storage_drops_every_value_once_whatever_panics() {
        check::<Contiguous<Boom>>();
        check::<GroupColumn<(Boom, u8), 0>>();
        check::<GroupColumn<(u16, Boom, u8), 1>>();
        check::<SparseSetStorage<Boom>>();
        check::<HashMapStorage<Boom>>();
    }

    /// A sparse set's `remove_range` over every id clears its untyped
    /// array at once (`RawPacked::clear`, through the drop function): every
    /// value dropped once whatever panics, the first panic resumed, nothing
    /// left.
    #[test]
    fn clearing_a_whole_sparse_set_drops_every_value_once_whatever_panics() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut c = SparseSetStorage::<Boom>::new(EntityLimit::Dynamic { initial: 0 });
        for n in 0..10 {
            let (armed, log) = (n == 2 || n == 6, log.clone());
            assert!(c.insert(EntityId(n), Boom { n, armed, log }).is_none());
        }
        let r = catch_unwind(AssertUnwindSafe(|| c.remove_range(0..100)));
        let payload = r.expect_err("two drops panicked");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("boom 2"));
        assert_eq!(sorted(&log), (0..10).collect::<Vec<_>>(), "each value once");
        assert!((0..10).all(|n| !c.contains(EntityId(n))));
        drop(c);
        assert_eq!(log.lock().unwrap().len(), 10, "the storage's drop drops nothing more");
    }

    /// `Drops::<T>`'s functions exist exactly for the types that need
    /// dropping, and drop the values they are given, once: the run's first
    /// `n`, the range's ids whose bits are set (clearing them).
    #[test]
    fn the_drop_functions_drop_exactly_the_values_given() {
        assert!(Drops::<u32>::PRESENT.is_none() && Drops::<u32>::RUN.is_none());
        assert!(Drops::<(u8, [u64; 3])>::RUN.is_none());
        let rc = Arc::new(());
        let mut values: Vec<core::mem::ManuallyDrop<Arc<()>>> =
            (0..8).map(|_| core::mem::ManuallyDrop::new(rc.clone())).collect();
        assert_eq!(Arc::strong_count(&rc), 9);
        let base = values.as_mut_ptr().cast::<u8>();
        let drop_run = Drops::<Arc<()>>::RUN.expect("an `Arc` needs dropping");
        // SAFETY: the first 2 values are live `Arc`s, never used again (in
        // `ManuallyDrop`s).
        unsafe { drop_run(base, 2) };
        assert_eq!(Arc::strong_count(&rc), 7);
        let mut present = Presence::with_capacity(8);
        for i in [3, 5, 6] {
            present.insert(i);
        }
        let drop_present = Drops::<Arc<()>>::PRESENT.expect("an `Arc` needs dropping");
        // SAFETY: slots 3, 5 and 6 (the set bits in 3..6 being 3 and 5)
        // hold live `Arc`s, never used again.
        unsafe { drop_present(base, &mut present, 3..6) };
        assert_eq!(Arc::strong_count(&rc), 5, "3 and 5 dropped, 6 is past the range");
        assert!(!present.get(3) && !present.get(5) && present.get(6));
        // SAFETY: slot 6 holds a live `Arc`, never used again.
        unsafe { drop_present(base, &mut present, 0..usize::MAX) };
        assert_eq!(Arc::strong_count(&rc), 4);
        // Slots 2, 4 and 7 are still the vector's (in `ManuallyDrop`s).
        for i in [2, 4, 7] {
            // SAFETY: live, dropped once here.
            unsafe { core::mem::ManuallyDrop::drop(&mut values[i]) };
        }
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    #[test]
    fn every_item_is_dropped_and_the_first_panic_resumed() {
        let seen = Cell::new(0u32);
        let r = catch_unwind(AssertUnwindSafe(|| {
            drop_each(0..10, |i| {
                seen.set(seen.get() | 1 << i);
                if i == 0 || i == 4 || i == 9 {
                    panic!("item {i}");
                }
            })
        }));
        assert_eq!(seen.get(), (1 << 10) - 1, "every item is done");
        let payload = r.expect_err("the first panic reaches the caller");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("item 0"));
        seen.set(0);
        drop_each(0..3, |i| seen.set(seen.get() + i));
        assert_eq!(seen.get(), 3, "no panic: a plain loop");
    }
}
