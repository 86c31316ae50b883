//! A queue of `FnOnce` callables of any size, stored inline in one growable
//! buffer: ECST's "deferred function queue without allocation" (thesis,
//! 13.2).
//!
//! A `Vec<Box<dyn FnOnce>>` allocates once per callable. Here each callable
//! is moved into the buffer behind a one-unit header pointing to a static
//! table of its type's `call` and `drop` functions (the work a vtable
//! does), so appending costs a copy and, once the buffer has grown to a
//! step's needs, no allocation; a queue whose entries were run keeps its
//! memory for the next step.
//!
//! ```text
//! buf: | hdr | F0 payload .. | hdr | F1 | hdr | F2 payload ....... | ...
//!        └─ &'static Entry { call::<A, F0>, drop::<F0>, units } per type
//! ```
//!
//! Layout invariants (of [`RawQueue::buf`]): the buffer is a sequence of
//! entries, each one header unit holding a `&'static Entry` followed by
//! `entry.units` units holding an initialised, not yet called or dropped
//! value of the type whose `call` and `drop` the entry holds. Units are 16
//! bytes aligned to 16, so a value of any type aligned to at most 16 sits at
//! its payload's first byte; types aligned more are boxed first. Entries
//! never point into the buffer, so moving the buffer (growing, appending to
//! another queue) moves the values, which every Rust value allows.
//!
//! The buffer and what does not depend on the callables' argument (running
//! the entries, appending, dropping) is [`RawQueue`], not generic, so
//! compiled once, here; [`FnQueue`] is its typed shell: it pushes
//! callables of its argument only, and runs them with that argument alone
//! (the entries' `call` take it as a pointer).

use core::marker::PhantomData;
use core::mem::{align_of, size_of, ManuallyDrop, MaybeUninit};

/// One unit of the buffer: what one header takes, and the granularity (and
/// alignment) of payloads.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Unit(MaybeUninit<[u8; 16]>);

/// The argument callables take, as a family of types over a lifetime, so
/// that a queue can hold callables that take `&mut T<'a>` for every `'a`
/// (what a deferred function taking a `Defer<'_, Cx>` is).
pub(crate) trait Arg: 'static {
    /// The argument for lifetime `'a`.
    type Of<'a>;
}

/// What the queue knows of one callable type, stored once per type.
struct Entry {
    /// Moves the value out of the payload and calls it with the argument
    /// the second pointer points to (an `A::Of<'_>` of the `A` the value
    /// was pushed for).
    call: unsafe fn(*mut Unit, *mut ()),
    /// Drops the value in the payload in place.
    drop: unsafe fn(*mut Unit),
    /// Units the payload takes.
    units: usize,
}

/// The entries of a queue, whatever their argument: see the module's layout
/// invariants. Which argument each entry's `call` expects is its owner's
/// to know ([`FnQueue`]).
pub(crate) struct RawQueue {
    /// Entries, as the module's layout invariants describe. Freed by
    /// `RawQueue`'s `drop`, compiled once here: left to the drop glue, the
    /// vector's glue was compiled into every crate declaring a context.
    buf: ManuallyDrop<Vec<Unit>>,
}

/// A queue of callables `for<'a> FnOnce(&mut A::Of<'a>)`, run in the order
/// pushed.
///
/// Invariant: every entry of `raw` was pushed by [`push`](Self::push) of
/// this `A`, so its `call` expects a `&mut A::Of<'_>`.
pub(crate) struct FnQueue<A: ?Sized> {
    raw: RawQueue,
    /// The queue owns `Send` callables of `A`'s arguments.
    _callables: PhantomData<fn(&A)>,
}

// SAFETY: every value in the buffer was pushed with `F: Send` (`push`'s
// bound), and moving the queue to another thread moves them; the queue
// has no shared state, and no `&self` method touches a value.
unsafe impl<A: Arg + ?Sized> Send for FnQueue<A> {}

impl<A: Arg + ?Sized> Default for FnQueue<A> {
    fn default() -> Self {
        Self::new()
    }
}

/// Moves the `F` out of `payload` and calls it with the `A::Of<'_>` that
/// `arg` points to.
///
/// # Safety
/// `payload` holds an initialised `F` that nothing else will call or drop;
/// `arg` points to a live `A::Of<'_>` that nothing else uses during the
/// call.
unsafe fn call<A: Arg + ?Sized, F: for<'a> FnOnce(&mut A::Of<'a>)>(payload: *mut Unit, arg: *mut ()) {
    // SAFETY: the caller hands over the initialised `F`; `payload` is aligned
    // for it (`F`'s alignment is at most a unit's, checked in `push`).
    let f = unsafe { payload.cast::<F>().read() };
    // SAFETY: the caller's promise; `F` takes the argument for any
    // lifetime, so the one the reference gets here does not matter.
    f(unsafe { &mut *arg.cast::<A::Of<'_>>() });
}

/// Moves the `Box<F>` out of `payload` and calls the `F` it holds.
///
/// # Safety
/// As for [`call`], for a `Box<F>`.
unsafe fn call_boxed<A: Arg + ?Sized, F: for<'a> FnOnce(&mut A::Of<'a>)>(payload: *mut Unit, arg: *mut ()) {
    // SAFETY: as for `call`, for a `Box<F>` (pointer-aligned).
    let f = unsafe { payload.cast::<Box<F>>().read() };
    // SAFETY: as for `call`.
    f(unsafe { &mut *arg.cast::<A::Of<'_>>() });
}

/// Payload units a value of type `T` takes.
const fn units<T>() -> usize {
    size_of::<T>().div_ceil(size_of::<Unit>())
}

/// Drops the `F` in `payload`.
///
/// # Safety
/// `payload` holds an initialised `F` that nothing else will call or drop.
unsafe fn drop_in_place<F>(payload: *mut Unit) {
    // SAFETY: as for `call`.
    unsafe { payload.cast::<F>().drop_in_place() };
}

impl<A: Arg + ?Sized> FnQueue<A> {
    /// An empty queue; it allocates at its first push.
    pub(crate) const fn new() -> Self {
        Self {
            raw: RawQueue {
                buf: ManuallyDrop::new(Vec::new()),
            },
            _callables: PhantomData,
        }
    }

    /// Whether no callable is queued.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.raw.buf.is_empty()
    }

    /// Units of memory the queue holds (for tests of reuse).
    #[cfg(test)]
    fn capacity(&self) -> usize {
        self.raw.buf.capacity()
    }

    /// Queues `f`, to run after every callable queued before it.
    #[inline]
    pub(crate) fn push<F: for<'a> FnOnce(&mut A::Of<'a>) + Send + 'static>(&mut self, f: F) {
        if align_of::<F>() > align_of::<Unit>() {
            // Rare over-aligned closures go behind a box, which is aligned
            // as a pointer.
            let entry = const {
                &Entry {
                    call: call_boxed::<A, F>,
                    drop: drop_in_place::<Box<F>>,
                    units: units::<Box<F>>(),
                }
            };
            // SAFETY: the entry is `Box<F>`'s, and a box is pointer-aligned;
            // its `call` takes an `A::Of<'_>`, as this queue's entries must.
            unsafe { self.raw.write(entry, Box::new(f)) };
        } else {
            let entry = const {
                &Entry {
                    call: call::<A, F>,
                    drop: drop_in_place::<F>,
                    units: units::<F>(),
                }
            };
            // SAFETY: the entry is `F`'s, which is aligned to at most a
            // unit; its `call` takes an `A::Of<'_>`.
            unsafe { self.raw.write(entry, f) };
        }
    }

    /// Moves every callable of `other` to the end of this queue, in order;
    /// `other` is left empty with its memory.
    #[inline]
    pub(crate) fn append(&mut self, other: &mut Self) {
        // Both queues' entries take an `A::Of<'_>`.
        self.raw.append(&mut other.raw);
    }

    /// Drops every callable without calling it, keeping the memory; a
    /// panicking drop stops no other.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.raw.clear();
    }

    /// Calls every callable with `arg`, in order, leaving the queue empty
    /// with its memory. When one panics, the rest are dropped without being
    /// called (each dropped even if another's drop panics), then the panic
    /// goes on.
    #[inline]
    pub(crate) fn run(&mut self, arg: &mut A::Of<'_>) {
        if self.raw.buf.is_empty() {
            return;
        }
        // SAFETY: every entry takes an `A::Of<'_>` (the invariant), which
        // `arg` is, borrowed for the whole run.
        unsafe { self.raw.run((arg as *mut A::Of<'_>).cast::<()>()) };
    }
}

impl RawQueue {
    /// Appends an entry holding `value`.
    ///
    /// # Safety
    /// `entry`'s functions and size are those of `T`, and `T` is aligned to
    /// at most a unit.
    #[inline]
    unsafe fn write<T>(&mut self, entry: &'static Entry, value: T) {
        let at = self.buf.len();
        self.buf.reserve(1 + entry.units);
        // SAFETY: `reserve` made room for the header and the payload after
        // `len`; `Unit` is 16-aligned and as large as a `&Entry`, and `T` is
        // aligned to at most 16 (the caller's promise), so both writes are
        // aligned and within the allocation. A zero-sized `T` writes nothing
        // at the (aligned, in-bounds or one-past) payload pointer.
        unsafe {
            let base = self.buf.as_mut_ptr().add(at);
            base.cast::<&'static Entry>().write(entry);
            base.add(1).cast::<T>().write(value);
            // The entry is whole: it belongs to the buffer from now on.
            self.buf.set_len(at + 1 + entry.units);
        }
    }

    /// Moves every entry of `other` to the end of this queue, in order;
    /// `other` is left empty with its memory.
    fn append(&mut self, other: &mut Self) {
        self.buf.extend_from_slice(&other.buf);
        // SAFETY: the values were copied bitwise into `self.buf`, which owns
        // them now (entries are position-independent); `other` forgets its
        // copies without dropping them (`Unit` has no drop glue either way).
        unsafe { other.buf.set_len(0) };
    }

    /// Drops every entry's value without calling it, keeping the memory; a
    /// panicking drop stops no other.
    fn clear(&mut self) {
        // SAFETY: the queue's own buffer.
        unsafe { drop_entries(&mut self.buf) };
    }

    /// Calls every entry with `arg`, in order, leaving the queue empty with
    /// its memory; as [`FnQueue::run`] says when one panics.
    ///
    /// # Safety
    /// Every entry's `call` takes the argument `arg` points to, which is
    /// live and used by nothing else until this returns.
    unsafe fn run(&mut self, arg: *mut ()) {
        let len = self.buf.len();
        // The entries now belong to `rest`: the buffer is empty in its own
        // eyes, so neither a panic below nor a later push can touch them.
        // SAFETY: shrinking the length only forgets units (`Unit: Copy`).
        unsafe { self.buf.set_len(0) };
        let mut rest = Rest {
            buf: self.buf.as_mut_ptr(),
            at: 0,
            end: len,
            _queue: PhantomData::<&mut Self>,
        };
        while let Some((entry, payload)) = rest.take() {
            // SAFETY: `take` handed over the entry's live value and moved
            // past it, so `rest` will never drop it; `call` consumes it, and
            // takes what `arg` points to (the caller's promise).
            unsafe { (entry.call)(payload, arg) };
        }
    }
}

/// Entries of a buffer not yet called or dropped: `at..end`, each whole, as
/// the module's layout invariants describe. Dropping it drops them all in
/// order, going on after a panicking drop (as dropping a slice does).
struct Rest<'q> {
    buf: *mut Unit,
    at: usize,
    end: usize,
    _queue: PhantomData<&'q mut RawQueue>,
}

impl Rest<'_> {
    /// The next entry's table and payload, now the caller's to call or drop.
    #[inline]
    fn take(&mut self) -> Option<(&'static Entry, *mut Unit)> {
        if self.at == self.end {
            return None;
        }
        // SAFETY: `at < end` is the start of a whole entry (invariant), so
        // its header unit is initialised with a `&'static Entry`.
        let (entry, payload) = unsafe {
            let header = self.buf.add(self.at);
            (header.cast::<&'static Entry>().read(), header.add(1))
        };
        self.at += 1 + entry.units;
        Some((entry, payload))
    }
}

impl Drop for Rest<'_> {
    fn drop(&mut self) {
        while let Some((entry, payload)) = self.take() {
            // If this drop panics, a new `Rest` over what follows drops the
            // rest while the panic unwinds.
            let after = Rest {
                buf: self.buf,
                at: self.at,
                end: self.end,
                _queue: PhantomData,
            };
            // SAFETY: `take` handed over the live value and moved past it.
            unsafe { (entry.drop)(payload) };
            let _ = ManuallyDrop::new(after);
        }
    }
}

impl Drop for RawQueue {
    fn drop(&mut self) {
        // The buffer out of its `ManuallyDrop`, a local: freed at the end,
        // or while a panicking value's drop unwinds (after `Rest` dropped
        // the others).
        // SAFETY: `drop` runs once; `self.buf` is not used after.
        let mut buf = unsafe { ManuallyDrop::take(&mut self.buf) };
        // SAFETY: the queue's own buffer.
        unsafe { drop_entries(&mut buf) };
    }
}

/// Drops every entry's value in `buf` without calling it, keeping the
/// memory; a panicking drop stops no other ([`Rest`]).
///
/// # Safety
/// `buf` is a [`RawQueue`]'s buffer: its entries as the module's layout
/// invariants describe.
unsafe fn drop_entries(buf: &mut Vec<Unit>) {
    let end = buf.len();
    // SAFETY: as in `run`: the entries move to `Rest`, which drops them.
    unsafe { buf.set_len(0) };
    drop(Rest {
        buf: buf.as_mut_ptr(),
        at: 0,
        end,
        _queue: PhantomData,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Callables taking `&mut T`.
    struct Plain<T>(PhantomData<T>);
    impl<T: 'static> Arg for Plain<T> {
        type Of<'a> = T;
    }

    /// Callables taking `&mut Borrowed<'a>` for every `'a`.
    struct BorrowedFamily;
    struct Borrowed<'a>(&'a mut Vec<u32>);
    impl Arg for BorrowedFamily {
        type Of<'a> = Borrowed<'a>;
    }

    /// Counts its drops in a shared counter; panics when dropped if asked.
    struct Tracked {
        drops: Arc<AtomicUsize>,
        panic_on_drop: bool,
    }

    impl Drop for Tracked {
        fn drop(&mut self) {
            self.drops.fetch_add(1, Ordering::SeqCst);
            if self.panic_on_drop {
                panic!("Tracked dropped");
            }
        }
    }

    fn tracked(drops: &Arc<AtomicUsize>, panic_on_drop: bool) -> Tracked {
        Tracked {
            drops: Arc::clone(drops),
            panic_on_drop,
        }
    }

    #[test]
    fn runs_in_order_callables_of_every_size_and_alignment() {
        #[repr(align(64))]
        struct Big([u8; 64]);
        let mut q = FnQueue::<Plain<Vec<String>>>::new();
        q.push(|log: &mut Vec<String>| log.push("zst".into()));
        let byte = 7u8;
        q.push(move |log: &mut Vec<String>| log.push(format!("u8 {byte}")));
        let array = [3u64; 9];
        q.push(move |log: &mut Vec<String>| log.push(format!("array {}", array.iter().sum::<u64>())));
        let big = Big([1; 64]);
        q.push(move |log: &mut Vec<String>| log.push(format!("big {}", big.0.len())));
        let s = String::from("owned");
        q.push(move |log: &mut Vec<String>| log.push(s));
        let mut log = Vec::new();
        q.run(&mut log);
        assert_eq!(log, ["zst", "u8 7", "array 27", "big 64", "owned"]);
        assert!(q.is_empty());
    }

    #[test]
    fn memory_is_reused_after_a_run() {
        let mut q = FnQueue::<Plain<u64>>::new();
        let mut total = 0;
        for round in 0..3 {
            for i in 0..100u64 {
                q.push(move |t: &mut u64| *t += i);
            }
            let capacity = q.capacity();
            q.run(&mut total);
            assert_eq!(q.capacity(), capacity, "round {round}: run keeps the buffer");
        }
        assert_eq!(total, 3 * 4950);
        let capacity = q.capacity();
        for i in 0..100u64 {
            q.push(move |t: &mut u64| *t += i);
        }
        assert_eq!(
            q.capacity(),
            capacity,
            "a second round of the same size allocates nothing"
        );
        q.run(&mut total);
    }

    #[test]
    fn append_moves_every_callable_in_order() {
        let mut a = FnQueue::<Plain<Vec<u32>>>::new();
        let mut b = FnQueue::<Plain<Vec<u32>>>::new();
        let s = String::from("heap");
        a.push(|v: &mut Vec<u32>| v.push(1));
        b.push(move |v: &mut Vec<u32>| v.push(s.len() as u32));
        b.push(|v: &mut Vec<u32>| v.push(3));
        a.append(&mut b);
        assert!(b.is_empty());
        let mut v = Vec::new();
        a.run(&mut v);
        assert_eq!(v, [1, 4, 3]);
    }

    #[test]
    fn unrun_callables_are_dropped_once_with_the_queue() {
        let drops = Arc::new(AtomicUsize::new(0));
        {
            let mut q = FnQueue::<Plain<()>>::new();
            for _ in 0..5 {
                let t = tracked(&drops, false);
                q.push(move |_: &mut ()| drop(t));
            }
        }
        assert_eq!(drops.load(Ordering::SeqCst), 5);
    }

    #[test]
    fn a_panicking_callable_drops_the_rest_uncalled() {
        let drops = Arc::new(AtomicUsize::new(0));
        let called = Arc::new(AtomicUsize::new(0));
        let mut q = FnQueue::<Plain<()>>::new();
        for i in 0..6 {
            let t = tracked(&drops, false);
            let called = Arc::clone(&called);
            q.push(move |_: &mut ()| {
                called.fetch_add(1, Ordering::SeqCst);
                let _t = t;
                assert!(i != 2, "callable 2 panics");
            });
        }
        let result = catch_unwind(AssertUnwindSafe(|| q.run(&mut ())));
        assert!(result.is_err());
        assert_eq!(called.load(Ordering::SeqCst), 3, "0, 1 and 2 were called");
        assert_eq!(drops.load(Ordering::SeqCst), 6, "every capture dropped once");
        assert!(q.is_empty());
        // The queue is usable after the panic.
        q.push(|_: &mut ()| {});
        q.run(&mut ());
    }

    #[test]
    fn a_panicking_drop_of_a_capture_stops_no_other_drop() {
        let drops = Arc::new(AtomicUsize::new(0));
        let result = catch_unwind(AssertUnwindSafe(|| {
            let mut q = FnQueue::<Plain<()>>::new();
            for i in 0..5 {
                let t = tracked(&drops, i == 1);
                q.push(move |_: &mut ()| drop(t));
            }
            drop(q);
        }));
        assert!(result.is_err(), "the drop's panic goes on");
        assert_eq!(drops.load(Ordering::SeqCst), 5, "all five dropped");
    }

    #[test]
    fn the_captures_of_a_panicking_callable_and_of_the_rest_drop_once() {
        // The callable panics; while its panic unwinds, the remaining
        // captures are dropped; none of them panics, so nothing aborts and
        // each is dropped once.
        let drops = Arc::new(AtomicUsize::new(0));
        let mut q = FnQueue::<Plain<()>>::new();
        let t0 = tracked(&drops, false);
        q.push(move |_: &mut ()| {
            let _t = t0;
            panic!("first");
        });
        for _ in 0..3 {
            let t = tracked(&drops, false);
            q.push(move |_: &mut ()| drop(t));
        }
        assert!(catch_unwind(AssertUnwindSafe(|| q.run(&mut ()))).is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn a_callable_can_be_moved_across_threads_with_its_queue() {
        let mut q = FnQueue::<Plain<Vec<usize>>>::new();
        let owned = vec![1usize, 2, 3];
        q.push(move |v: &mut Vec<usize>| v.extend(owned));
        let mut v = Vec::new();
        std::thread::scope(|s| {
            s.spawn(|| q.run(&mut v));
        });
        assert_eq!(v, [1, 2, 3]);
    }

    #[test]
    fn callables_take_an_argument_of_any_lifetime() {
        fn push_generic<F: for<'a> FnOnce(&mut Borrowed<'a>) + Send + 'static>(q: &mut FnQueue<BorrowedFamily>, f: F) {
            q.push(f);
        }
        let mut q = FnQueue::<BorrowedFamily>::new();
        push_generic(&mut q, |b: &mut Borrowed<'_>| b.0.push(1));
        push_generic(&mut q, |b: &mut Borrowed<'_>| b.0.push(2));
        let mut v = Vec::new();
        q.run(&mut Borrowed(&mut v));
        assert_eq!(v, [1, 2]);
    }
}
