//! Dropping many values so that a panicking `drop` stops none of the others.

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

/// Drops the value a pointer points to, as the type it was made for
/// ([`Drops`]): how the storages' untyped cores drop values without being
/// compiled per component type.
pub(crate) type Dropper = unsafe fn(*mut u8);

/// Drops the `T` at `value`.
///
/// # Safety
/// As `core::ptr::drop_in_place(value.cast::<T>())`.
unsafe fn drop_as<T>(value: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { value.cast::<T>().drop_in_place() }
}

/// The function dropping a `T` through an untyped pointer, as
/// `Drops::<T>::FN`: `None` when `T` needs no drop.
pub(crate) struct Drops<T>(core::marker::PhantomData<T>);

impl<T> Drops<T> {
    /// `Some(drop_as::<T>)` when `T` needs dropping, `None` otherwise. A
    /// constant, not a `const fn`'s result: a debug build compiles neither a
    /// function returning it nor `drop_as` for the types that need no drop
    /// (a `const fn dropper<T>()` cost both, 700 instructions of a debug
    /// build's IR at 64 components / 32 systems).
    pub(crate) const FN: Option<Dropper> = if core::mem::needs_drop::<T>() {
        Some(drop_as::<T>)
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

    /// `Drops::<T>::FN` is a function exactly for the types that need
    /// dropping, and it drops the value it is given, once.
    #[test]
    fn the_drop_function_drops_exactly_the_types_that_need_it() {
        assert!(Drops::<u32>::FN.is_none());
        assert!(Drops::<(u8, [u64; 3])>::FN.is_none());
        let drop_arc = Drops::<Arc<()>>::FN.expect("an `Arc` needs dropping");
        let rc = Arc::new(());
        let mut value = core::mem::ManuallyDrop::new(rc.clone());
        assert_eq!(Arc::strong_count(&rc), 2);
        // SAFETY: `value` is a live `Arc<()>`, never used again (it is in a
        // `ManuallyDrop`, so it is not dropped a second time).
        unsafe { drop_arc((&mut *value as *mut Arc<()>).cast::<u8>()) };
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
