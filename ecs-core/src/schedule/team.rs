//! The threads that run one context's steps: the caller of the step and
//! helpers from a pool of `threads - 1` workers, taking work from one queue.
//!
//! A rayon pool alone made the caller, which is not one of its workers,
//! wait while the workers ran the systems: waking them and putting the
//! caller back to sleep cost more than a step of small systems (`schedule`
//! of the peer benchmarks). Here the caller runs systems itself from the
//! first moment and helpers join when there is work for them: a step is
//! never much slower than running it on one thread, and a step with one
//! chain of unsplit systems wakes no one.
//!
//! Work items point to data on the stack of the thread that queued them (a
//! step's graph, a system's subtasks). They are not `'static`, so the queue
//! holds them type-erased; [`Work`] states the invariant that keeps them
//! valid, and each queuing function upholds it by waiting, before its data
//! goes, until every item it queued has run.

use super::doorbell::Doorbell;
use super::ends::Ends;
use super::roots::Roots;
use core::any::Any;
use core::mem::ManuallyDrop;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// A panic's payload, carried to the thread that re-raises it.
pub(crate) type Payload = Box<dyn Any + Send>;

/// [`Team::check_started`]'s panic.
#[cold]
#[inline(never)]
fn start_failed(context: &str, e: rayon::ThreadPoolBuildError) -> ! {
    panic!("cannot start the worker threads of `{context}`: {e}");
}

impl Drop for Team {
    #[inline(never)]
    fn drop(&mut self) {
        // Helpers still here (idling between steps) leave once they see
        // `quit` (a change made without the lock: `ring` wakes any thread
        // sleeping on the doorbell). No item is queued or running: every
        // queuing call waits for its items, and it borrowed the team.
        self.shared.polled.quit.store(true, Ordering::SeqCst);
        self.shared.bell.ring();
        // Taken out, leaving an empty cell (what `ManuallyDrop` then
        // forgets), and dropped here.
        drop(core::mem::take(&mut *self.pool));
        // SAFETY: `drop` runs once, and nothing reads `shared` after it.
        unsafe { ManuallyDrop::drop(&mut self.shared) };
    }
}

/// Keeps the first of several panics' payloads: `first` gets `payload` if
/// it holds none; returns the payload it does not keep, for the caller to
/// [`discard`] (once it holds no lock: a payload's `drop` is user code).
#[must_use = "a payload not kept goes to `discard`"]
pub(crate) fn keep_first(first: &mut Option<Payload>, payload: Payload) -> Option<Payload> {
    match first {
        None => {
            *first = Some(payload);
            None
        }
        Some(_) => Some(payload),
    }
}

/// Drops a panic's payload that will not be re-raised, where a panic of its
/// `drop` cannot escape: into code that trusts a count to be decremented
/// after it, say (a payload is any value a user passed to `panic_any`).
///
/// Such a panic is caught, and its own payload dropped the same way, until
/// one drops quietly: every payload is dropped exactly once and nothing
/// unwinds out of here. (std's `Packet::drop` aborts in that case and
/// `lang_start` leaks the second payload; a value's `drop` is user code
/// like any other, so a step reports it instead, by its first panic.)
pub(crate) fn discard(payload: Payload) {
    let mut next = payload;
    // Ends when a payload drops without panicking: each round drops one
    // payload a user's `drop` made.
    while let Err(thrown) = panic::catch_unwind(AssertUnwindSafe(move || drop(next))) {
        next = thrown;
    }
}

/// The caller of a step and its helpers.
pub(crate) struct Team {
    /// Dropped by `Team`'s own `drop`, as `pool`: left to the drop glue,
    /// every crate that declares a context would compile `Arc`'s release
    /// and the drop of what the threads share.
    shared: ManuallyDrop<Arc<Shared>>,
    /// Where helpers come from: `helpers` workers, asked one at a time.
    /// Built the first time a step queues work (a context that never has
    /// work for helpers starts no thread); holds the error if that failed.
    ///
    /// Dropped by `Team`'s own `drop`, compiled here: left to the drop glue,
    /// every crate that declares a context would compile the pool's and
    /// the error's (an `io::Error`) drop again.
    pool: ManuallyDrop<OnceLock<Result<rayon::ThreadPool, rayon::ThreadPoolBuildError>>>,
    helpers: usize,
    name: &'static str,
    /// Unit tests: building the pool fails, as when the system refuses
    /// threads.
    #[cfg(test)]
    refuse_threads: bool,
}

/// What the caller and the helpers share; helpers hold it by `Arc`, so it
/// outlives a context dropped while a helper leaves.
pub(crate) struct Shared {
    /// The queue, where idle threads sleep; rung when work is queued, when
    /// something a thread waits for finishes, and when a step ends.
    bell: Doorbell<State>,
    /// What idle threads poll, on a cache line of its own: `bell`'s lock
    /// and queue, beside them, made each write of the step's caller (two
    /// locks to begin a step and queue its first systems, one to end it)
    /// wait for the line to come back from the helper that had just read
    /// it.
    polled: CachePadded<Polled>,
    /// Helpers asked for and not gone back to the pool: while it reads the
    /// team's count, queuing work asks for none. (Changed when a helper is
    /// asked for or leaves, rarely: not on the polled line.)
    helpers_out: AtomicUsize,
}

/// The words idle threads poll ([`Shared::polled`]).
struct Polled {
    /// Items in the queue, to look without locking: a hint, stored after
    /// the queue changed. It may read more than the queue holds (a pop
    /// then finds less), and it reads 0 only while the queue is empty or
    /// a push has not stored its count yet: pops store it under the lock,
    /// pushes right after unlocking (so that a helper seeing the count
    /// does not find the lock still held by the pusher, which then waits
    /// for the lock's line to come back to unlock it).
    queued: AtomicUsize,
    /// The running step's first systems but the one its caller runs, if
    /// they could be published here ([`Team::publish_roots`]).
    roots: Roots<Work>,
    /// Set when the team drops: helpers leave.
    quit: AtomicBool,
}

struct State {
    /// Work ready to run, taken last-in first-out (so that a thread waiting
    /// for the subtasks it just queued finds them first).
    queue: Vec<Work>,
}

/// One item of work, type-erased: `call(data, index, shared)`.
///
/// Invariant: whoever queues an item keeps `data` valid, and everything it
/// points to usable from any thread, until the item's `call` has returned
/// or has made its completion visible (the last thing `call` does with
/// `data`); each item is called exactly once.
#[derive(Clone, Copy)]
pub(crate) struct Work {
    call: unsafe fn(*const (), usize, &Shared),
    data: *const (),
    index: usize,
}

// SAFETY: `data` is only dereferenced by `call`, and the queuing code
// guarantees (the invariant of `Work`) that what it points to is `Sync`
// data, usable from the thread that takes the item.
unsafe impl Send for Work {}

impl Work {
    /// An item that calls `call(data, index, shared)`.
    ///
    /// # Safety
    /// The caller upholds the invariant of [`Work`] for `data`, and `call`
    /// is sound to call once with these arguments on any thread.
    pub(crate) unsafe fn new(call: unsafe fn(*const (), usize, &Shared), data: *const (), index: usize) -> Self {
        Self { call, data, index }
    }

    fn run(self, shared: &Shared) {
        // SAFETY: taken from the queue once, so called once; `data` is still
        // valid by the invariant of `Work`.
        unsafe { (self.call)(self.data, self.index, shared) }
    }
}

impl Team {
    /// A team of `threads` threads: the caller and `threads - 1` helpers,
    /// named `{name}-worker-{i}`. Starts no thread: the helpers' pool starts
    /// the first time work is queued.
    pub(crate) fn new(threads: usize, name: &'static str) -> Self {
        Self {
            shared: ManuallyDrop::new(Arc::new(Shared {
                bell: Doorbell::new(State { queue: Vec::new() }),
                helpers_out: AtomicUsize::new(0),
                polled: CachePadded::new(Polled {
                    queued: AtomicUsize::new(0),
                    roots: Roots::new(),
                    quit: AtomicBool::new(false),
                }),
            })),
            pool: ManuallyDrop::new(OnceLock::new()),
            helpers: threads.saturating_sub(1).max(1),
            name,
            #[cfg(test)]
            refuse_threads: false,
        }
    }

    /// The helpers' pool, built on first use; `None` if it could not be.
    ///
    /// Helpers exist only once the pool does, so the first call comes from
    /// the caller of a step; the `OnceLock` keeps it sound from any thread.
    fn pool(&self) -> Option<&rayon::ThreadPool> {
        let name = self.name;
        self.pool
            .get_or_init(|| {
                let builder = rayon::ThreadPoolBuilder::new()
                    .num_threads(self.helpers)
                    .thread_name(move |i| format!("{name}-worker-{i}"));
                #[cfg(test)]
                if self.refuse_threads {
                    return builder
                        .spawn_handler(|_| Err(std::io::Error::other("no threads in this test")))
                        .build();
                }
                builder.build()
            })
            .as_ref()
            .ok()
    }

    /// The error that kept the helpers' pool from starting, if it failed
    /// since the last call: the pool is tried again the next time work is
    /// queued. (Meanwhile the caller ran every item itself.)
    pub(crate) fn take_start_error(&mut self) -> Option<rayon::ThreadPoolBuildError> {
        if matches!(self.pool.get(), Some(Err(_))) {
            return self.pool.take().and_then(Result::err);
        }
        None
    }

    /// Panics, naming the context `context`, if the helpers' pool failed to
    /// start since the last call (see [`take_start_error`](Self::take_start_error)).
    /// Not generic, and the panic out of line: a context's run calls it
    /// rather than compiling the error's handling (and its `drop`) itself.
    pub(crate) fn check_started(&mut self, context: &str) {
        if let Some(e) = self.take_start_error() {
            start_failed(context, e);
        }
    }

    /// Whether helpers can come: the pool started (it starts the first time
    /// work is queued).
    pub(crate) fn has_helpers(&self) -> bool {
        matches!(self.pool.get(), Some(Ok(_)))
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// Queues `items`, waking a sleeping thread or asking for a helper.
    pub(crate) fn push(&self, items: impl IntoIterator<Item = Work>) {
        let shared = &*self.shared;
        let queued = {
            let mut state = shared.bell.lock();
            let before = state.queue.len();
            state.queue.extend(items);
            if state.queue.len() == before {
                return;
            }
            shared.bell.ring_locked(&state);
            state.queue.len()
        };
        // After unlocking: see `Polled::queued`. (A sleeper woken above
        // sees the queue under the lock and polls until this lands.)
        shared.polled.queued.store(queued, Ordering::Relaxed);
        self.call_helper();
    }

    /// Publishes a step's first systems but the one its caller runs: root
    /// `i` (each bit `i` of `mask`, all below [`MAX`](super::roots::MAX)) is claimed,
    /// once, by an idle thread or a thread waiting for work, which runs
    /// `template` with index `i`. Wakes a sleeping thread or asks for a
    /// helper, as [`push`](Self::push) does.
    ///
    /// # Safety
    /// The invariant of [`Work`] holds for `template` with each index of
    /// `mask` (its `data` stays valid until each such item has run, each is
    /// run once), and every root published before has run: one step at a
    /// time publishes (the roots' own contract, `Roots::publish`).
    pub(crate) unsafe fn publish_roots(&self, template: &Work, mask: u64) {
        let shared = &*self.shared;
        // SAFETY: every root published before has run, so its claim has
        // returned; `template` (a copy of which each claimer runs) stays
        // valid until the last of these roots has run, by the caller's
        // contract.
        unsafe { shared.polled.roots.publish(template, mask) };
        // A sleeper missed here (counting itself this very moment) misses
        // this step's roots only: the step's caller runs the roots no one
        // claims, and the next step wakes it.
        shared.bell.ring_unless_racing();
        self.call_helper();
    }

    /// Asks the pool for a helper while fewer than `helpers` were asked
    /// for: after work was queued or published.
    #[inline]
    fn call_helper(&self) {
        let helpers_out = &self.shared.helpers_out;
        let out = helpers_out.load(Ordering::Relaxed);
        // Of two threads queuing at once, one may ask and the other not: a
        // helper fewer until the next work is queued.
        if out >= self.helpers
            || helpers_out
                .compare_exchange(out, out + 1, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        // Nothing here may unwind: queued items point to their owners'
        // frames. Without a pool, the owners run their items themselves
        // (each waits for its own), and the step reports the error.
        match self.pool() {
            Some(pool) => {
                let shared = Arc::clone(&self.shared);
                pool.spawn(move || shared.help());
            }
            None => {
                helpers_out.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }

    /// Calls `f(i, &mut items[i])` for every index, in parallel: the caller
    /// runs the last and helps with the rest (or with other work) until
    /// all have returned. Re-raises a panic of any of them once all have.
    ///
    /// A thin shell over [`for_each_index`](Self::for_each_index), which is
    /// not generic: the queueing, waiting and panic handling are compiled
    /// once, not once per item type in every crate declaring a context.
    #[inline]
    pub(crate) fn for_each_mut<T: Send>(&self, items: &mut [T], f: &(dyn Fn(usize, &mut T) + Sync)) {
        let n = items.len();
        let items = Items(items.as_mut_ptr());
        let items = &items;
        self.for_each_index(n, &|i| {
            // SAFETY: `for_each_index` calls this once for each `i < n`
            // (so `i` is in bounds and this `&mut` is the only reference to
            // the element) and returns only after every call has returned,
            // while `items` is still mutably borrowed here.
            let item = unsafe { &mut *items.0.add(i) };
            f(i, item)
        });
    }

    /// Calls `f(i, &mut a[i], &mut b[i])` for every index of the shorter
    /// slice, in parallel, as [`for_each_mut`](Self::for_each_mut) does:
    /// two slices side by side without a third of pairs (an allocation in
    /// every split run of a system, for its outputs and queues).
    #[inline]
    pub(crate) fn for_each_pair_mut<A: Send, B: Send>(
        &self,
        a: &mut [A],
        b: &mut [B],
        f: &(dyn Fn(usize, &mut A, &mut B) + Sync),
    ) {
        let n = a.len().min(b.len());
        let (a, b) = (Items(a.as_mut_ptr()), Items(b.as_mut_ptr()));
        let (a, b) = (&a, &b);
        self.for_each_index(n, &|i| {
            // SAFETY: as in `for_each_mut`, for each slice: `i < n` is in
            // bounds of both, and called once while both are borrowed here.
            let (x, y) = unsafe { (&mut *a.0.add(i), &mut *b.0.add(i)) };
            f(i, x, y)
        });
    }

    /// Calls `f(i)` once for every `i < n`, in parallel: the caller runs
    /// the last index and helps with the rest (or with other work) until
    /// all have returned. Re-raises a panic of any of them once all have.
    /// Callers rely on each index being called exactly once and on every
    /// call having returned when this returns.
    ///
    /// The caller takes indices from the back, helpers from the front
    /// ([`Ends`]): each of up to `threads - 1` queued items lets the thread
    /// that takes it claim indices from the front until the two ends meet.
    ///
    /// Why the caller takes the back: the subtask that starts where
    /// another thread's ends in memory ran about 10% slower (measured, its
    /// cause not established: see [`Ends`]). The follower is the caller's
    /// last subtask this way, and the caller, which started first, has the
    /// time a helper that joins late lacks.
    #[inline(never)]
    pub(crate) fn for_each_index(&self, n: usize, f: &(dyn Fn(usize) + Sync)) {
        if n == 0 {
            return;
        }
        let Ok(back) = u32::try_from(n) else {
            too_many(n);
        };
        let items = (n - 1).min(self.helpers);
        let job = Job {
            f,
            ends: Ends::new(0, back - 1),
            started: AtomicUsize::new(0),
            remaining: AtomicUsize::new(items),
            panic: Mutex::new(None),
        };
        let data = (&job as *const Job<'_>).cast::<()>();
        if items > 0 {
            // SAFETY: `job` lives until `remaining` reads 0 below: each item
            // that runs makes its end visible as its last use of the job,
            // even if it unwinds (a drop guard decrements the count), and
            // the items no thread took are taken out of the queue and
            // counted off before the wait. Nothing between here and the
            // wait unwinds: the calls catch the panics of `f`, and `push`,
            // `Ends` and `unqueue` never unwind. The job is usable from any
            // thread: `f` is `Sync`, the rest thread-safe.
            self.push((0..items).map(|_| unsafe { Work::new(Job::call, data, 0) }));
        }
        job.run(n - 1);
        while let Some(i) = job.ends.back() {
            job.run(i);
        }
        // Every index is claimed. Items still queued would claim nothing:
        // taken out rather than waited for.
        if job.started.load(Ordering::SeqCst) < items {
            let unqueued = self.shared.unqueue(data);
            job.remaining.fetch_sub(unqueued, Ordering::SeqCst);
        }
        self.shared.work_until(|| job.remaining.load(Ordering::SeqCst) == 0);
        if let Some(payload) = job.panic.into_inner() {
            panic::resume_unwind(payload);
        }
    }
}

/// [`Team::for_each_index`]'s panic when asked for more calls than [`Ends`]
/// counts (a system split in more than `u32::MAX` subtasks: more than one
/// per entity).
#[cold]
#[inline(never)]
fn too_many(n: usize) -> ! {
    panic!("cannot split work in {n} parts: at most {} (u32::MAX)", u32::MAX);
}

/// The elements of a slice of [`Team::for_each_mut`] or
/// [`Team::for_each_pair_mut`], shared with the calls of its job.
struct Items<T>(*mut T);

// SAFETY: the calls only take the element of their own index, each index
// once (`for_each_index`), so each element, a `T: Send`, is used by one
// thread at a time.
unsafe impl<T: Send> Sync for Items<T> {}

/// Calls of one function, each index run once, claimed from its two ends.
struct Job<'a> {
    f: &'a (dyn Fn(usize) + Sync),
    ends: Ends,
    /// Queued items a thread has taken.
    started: AtomicUsize,
    /// Queued items not yet run to their end nor taken out of the queue.
    remaining: AtomicUsize,
    panic: Mutex<Option<Payload>>,
}

impl Job<'_> {
    /// A queued item: claims indices from the front and runs them until
    /// none is left.
    ///
    /// # Safety
    /// `data` points to a live `Job` (the invariant of [`Work`]), counted in
    /// its `remaining`.
    unsafe fn call(data: *const (), _: usize, shared: &Shared) {
        // SAFETY: the caller guarantees `data` is a live `Job`.
        let job = unsafe { &*data.cast::<Job<'_>>() };
        job.started.fetch_add(1, Ordering::SeqCst);
        // Counts this item done however it ends, as its last use of the job.
        let _done = Done {
            remaining: &job.remaining,
            shared,
        };
        while let Some(i) = job.ends.front() {
            job.run(i);
        }
    }

    /// Runs `f(index)`, keeping a panic for the owner.
    fn run(&self, index: usize) {
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| (self.f)(index))) {
            // The owner re-raises the first panic; a later one's payload is
            // dropped where its own panic cannot escape (it would unwind
            // into whatever ran this call, past the claims still to run).
            let unkept = keep_first(&mut self.panic.lock(), payload);
            if let Some(payload) = unkept {
                discard(payload);
            }
        }
    }
}

/// Decrements a job's `remaining` when dropped, waking its owner at zero:
/// the last use of the job by one of its calls, however the call ends.
struct Done<'s> {
    /// A pointer, not a reference: the owner may free the job as soon as
    /// the decrement lands, while `drop` is still running (as an `Arc`'s
    /// count).
    remaining: *const AtomicUsize,
    shared: &'s Shared,
}

impl Drop for Done<'_> {
    fn drop(&mut self) {
        // SAFETY: the job is live until this decrement is visible (the
        // owner waits for `remaining` to read 0); from here on, only
        // `shared`.
        let before = unsafe { (*self.remaining).fetch_sub(1, Ordering::SeqCst) };
        if before == 1 {
            self.shared.notify();
        }
    }
}

impl Shared {
    /// Wakes the sleeping threads after something they may wait for
    /// finished (a `SeqCst` change: `Doorbell::ring`).
    pub(crate) fn notify(&self) {
        self.bell.ring();
    }

    /// Takes the items whose data is `data` out of the queue, unrun;
    /// returns how many. (`data` points to a live object, so only its
    /// owner's items have it: the queue holds no item of a freed one.)
    fn unqueue(&self, data: *const ()) -> usize {
        let mut state = self.bell.lock();
        let before = state.queue.len();
        state.queue.retain(|work| !core::ptr::eq(work.data, data));
        self.polled.queued.store(state.queue.len(), Ordering::Relaxed);
        before - state.queue.len()
    }

    /// Work to run: the queue's last item, else a published root.
    fn pop(&self) -> Option<Work> {
        if self.polled.queued.load(Ordering::Relaxed) != 0 {
            let mut state = self.bell.lock();
            let work = state.queue.pop();
            self.polled.queued.store(state.queue.len(), Ordering::Relaxed);
            if work.is_some() {
                return work;
            }
        }
        let (index, template) = self.polled.roots.claim()?;
        Some(Work { index, ..template })
    }

    /// Runs queued work until `done()` holds: spinning a little when there
    /// is none, then sleeping until woken.
    pub(crate) fn work_until(&self, done: impl Fn() -> bool) {
        self.work(done, true);
    }

    /// [`work_until`](Self::work_until); when not `sleep`, returns instead
    /// of sleeping (idle for [`STAY`] without `done()`): [`SPIN_HINTS`]
    /// rounds spinning, then yielding the core.
    fn work(&self, done: impl Fn() -> bool, sleep: bool) {
        let mut idle = 0u32;
        // When this thread began yielding, if it is.
        let mut yielding: Option<Instant> = None;
        loop {
            if done() {
                return;
            }
            if let Some(work) = self.pop() {
                work.run(self);
                (idle, yielding) = (0, None);
                continue;
            }
            if idle < SPIN_HINTS {
                core::hint::spin_loop();
                idle += 1;
                continue;
            }
            let since = *yielding.get_or_insert_with(Instant::now);
            if !idle.is_multiple_of(CLOCK_EVERY) || since.elapsed() < STAY {
                std::thread::yield_now();
                // Bounded: a thread yields for `STAY` at most, then sleeps
                // or leaves and starts again from 0 or `SPIN_HINTS`.
                idle += 1;
                continue;
            }
            if !sleep {
                return;
            }
            self.bell
                .sleep(|state| !state.queue.is_empty() || self.polled.roots.any(), &done);
            (idle, yielding) = (SPIN_HINTS, None);
        }
    }

    /// A helper's life: work, through the gaps between steps too, until
    /// idle as long as a waiting thread yields before sleeping ([`STAY`]);
    /// then back to the pool, which puts the thread to sleep, until a
    /// step asks for a helper again (or the team drops).
    ///
    /// Helpers no longer leave when a step ends: that made the step's start
    /// and end each write a flag every idle helper polls, two transfers of
    /// that cache line per step (`schedule`,
    /// `benches/peers/examples/schedule_threads`). They do leave when idle,
    /// rather than sleep here: the pool's threads are then free for what a
    /// system gave the pool with `rayon::spawn` from a helper thread, which
    /// would otherwise wait until the context drops.
    fn help(&self) {
        let quit = &self.polled.quit;
        self.work(|| quit.load(Ordering::SeqCst), false);
        // Work published or queued from now on asks for a helper again; if
        // it came a moment before this and saw this helper still counted,
        // its owner runs it (as every owner runs what no helper takes).
        self.helpers_out.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Idle rounds spent spinning before a thread starts yielding the core.
///
/// 128 spin hints last about 3 µs here. With 64 (about 1.5 µs), a helper
/// that had finished its part of a `schedule` step 1.6 µs before the next
/// step published its roots was yielding by then in half the steps, and
/// took 0.5-1 µs to start instead of under 0.25 µs
/// (`benches/peers/examples/schedule_threads`, latency histogram: 97-99%
/// of steps under 0.25 µs with 128 against 50%).
const SPIN_HINTS: u32 = 128;

/// How long an idle thread keeps yielding the core before it sleeps (a
/// helper: before it goes back to the pool): through the gaps between a
/// step's systems and through a sequential system or refresh of a few
/// milliseconds, not through the pause between two frames of a game.
///
/// Measured on the particle simulation with inner parallelism (50 000
/// particles, 625 steps of ~1.2 ms, each with a sequential part of a few
/// hundred µs: the contacts' solver and the refresh): with threads that
/// slept after 320 idle rounds (~100 µs), a helper left and was asked for
/// again 1.3 times a step (an instrumented count: 711-865 times a wave)
/// and a wave took 779-850 ms; staying 1 ms, 746-766 ms; 2 ms, 733-776 ms
/// (alternated runs, the hand-written version 784-812 ms). At 200 000
/// particles (steps of ~10 ms) 1 ms changed nothing and 4 ms gained 2-4%.
/// A clock is read every [`CLOCK_EVERY`] yields, not at each (a yield takes
/// ~0.2-1 µs here).
const STAY: Duration = Duration::from_millis(2);
const CLOCK_EVERY: u32 = 16;

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// `f` with a team of `threads`.
    fn with_team(threads: usize, f: impl FnOnce(&Team)) {
        f(&Team::new(threads, "test"));
    }

    #[test]
    fn every_index_runs_once_with_its_own_item() {
        for threads in [2, 3, 8] {
            with_team(threads, |team| {
                let mut items: Vec<(usize, u32)> = (0..100).map(|i| (i, 0)).collect();
                let runs = AtomicU32::new(0);
                team.for_each_mut(&mut items, &|i, item| {
                    assert_eq!(item.0, i, "index {i} got another's item");
                    item.1 += 1;
                    runs.fetch_add(1, Ordering::Relaxed);
                });
                assert!(items.iter().all(|&(_, n)| n == 1), "each item exactly once");
                assert_eq!(runs.into_inner(), 100);
            });
        }
    }

    #[test]
    fn a_panic_is_raised_once_every_index_has_run() {
        with_team(2, |team| {
            let mut items = vec![0u32; 16];
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                team.for_each_mut(&mut items, &|i, item| {
                    if i == 5 {
                        panic!("index 5");
                    }
                    *item = 1;
                })
            }));
            let payload = result.unwrap_err();
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"index 5"));
            assert_eq!(items.iter().sum::<u32>(), 15, "the other indices all ran");
        });
    }

    #[test]
    fn nested_jobs_finish_on_any_team_size() {
        // Threads waiting for their own subtasks run others' meanwhile: no
        // size of team may deadlock on jobs inside jobs.
        for threads in [2, 3] {
            with_team(threads, |team| {
                let mut outer = vec![0u64; 6];
                team.for_each_mut(&mut outer, &|i, sum| {
                    let mut inner: Vec<u64> = (0..8).map(|j| (i * 8 + j) as u64).collect();
                    team.for_each_mut(&mut inner, &|_, x| *x *= 2);
                    *sum = inner.iter().sum();
                });
                let total: u64 = outer.iter().sum();
                assert_eq!(total, 2 * (0..48).sum::<u64>());
            });
        }
    }

    #[test]
    fn the_caller_takes_indices_from_the_back_and_helpers_from_the_front() {
        // Whatever the timing, the caller's indices are a suffix and the
        // helpers' a prefix (`Ends`): a system's subtasks stay on the same
        // threads from step to step when its steps take the same time.
        for threads in [2, 3] {
            with_team(threads, |team| {
                let caller = std::thread::current().id();
                let mut helped = 0;
                // Until a helper took part in 5 rounds (under Miri, 3
                // rounds: the claims' order is the point, whoever comes).
                // Few rounds: under valgrind, which runs one thread at a
                // time, the helpers' spinning slowed the tests beside it.
                for round in 0..if cfg!(miri) { 3 } else { 200 } {
                    if helped == 5 {
                        break;
                    }
                    let mut by_caller = vec![false; 12];
                    team.for_each_mut(&mut by_caller, &|i, mine| {
                        *mine = std::thread::current().id() == caller;
                        // Time for a helper to come, and for the two to
                        // claim in turns if they claimed from one end.
                        let pause = if i == 11 { 100 } else { 20 };
                        std::thread::sleep(std::time::Duration::from_micros(pause));
                    });
                    let suffix = by_caller.iter().rev().take_while(|&&mine| mine).count();
                    assert!(suffix >= 1, "round {round}: the caller runs the last index");
                    assert!(
                        by_caller[..12 - suffix].iter().all(|&mine| !mine),
                        "round {round}: the caller ran {by_caller:?}, not a suffix"
                    );
                    helped += usize::from(suffix < 12);
                }
                assert!(helped > 0 || cfg!(miri), "no helper ever took part");
            });
        }
    }

    #[test]
    fn a_job_takes_back_only_its_own_queued_items() {
        // With no helper to take them, each owner claims every index itself
        // and takes its queued items back out (`unqueue`): the inner job's
        // owner must leave the outer job's items queued, or the outer owner
        // would wait for items that never run; and neither leaves one
        // behind, pointing to a frame gone by then.
        // On a thread of its own, watched: an owner waiting for items
        // taken out by another would wait forever.
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut team = Team::new(3, "test");
            team.refuse_threads = true;
            let queued = |team: &Team| team.shared.bell.lock().queue.len();
            let mut outer = vec![0u32; 4];
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                team.for_each_mut(&mut outer, &|i, x| {
                    if i == 0 {
                        // The outer job's two items (one per helper it
                        // could have).
                        assert_eq!(queued(&team), 2);
                        let mut inner = vec![0u32; 5];
                        team.for_each_mut(&mut inner, &|j, y| *y = j as u32 + 1);
                        assert_eq!(inner, [1, 2, 3, 4, 5]);
                        assert_eq!(queued(&team), 2, "the inner job took the outer job's items");
                    }
                    *x = i as u32 + 1;
                })
            }));
            let left = (queued(&team), team.shared.polled.queued.load(Ordering::Relaxed));
            let _ = team.take_start_error();
            let _ = done.send((
                result.map_err(|p| format!("{:?}", p.downcast_ref::<String>())),
                outer,
                left,
            ));
        });
        let (result, outer, left) = finished
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the outer job's owner never returned: its items were taken out by another");
        result.expect("an assertion inside the job");
        assert_eq!(outer, [1, 2, 3, 4]);
        assert_eq!(left, (0, 0), "an item was left queued");
    }

    #[test]
    fn the_pool_starts_when_work_is_first_queued() {
        let team = Team::new(2, "test");
        assert!(team.pool.get().is_none(), "a new team starts no thread");
        // One item runs on the caller: nothing queued, no pool.
        team.for_each_mut(&mut [0u8], &|_, x| *x = 1);
        assert!(team.pool.get().is_none());
        team.for_each_mut(&mut [0u8; 2], &|_, x| *x = 1);
        assert!(
            matches!(team.pool.get(), Some(Ok(_))),
            "two items: a helper is asked for"
        );
    }

    #[test]
    fn without_threads_the_caller_runs_every_item_and_the_error_is_kept() {
        let mut team = Team::new(3, "test");
        team.refuse_threads = true;
        for round in 0..2 {
            let mut items = vec![0u32; 8];
            team.for_each_mut(&mut items, &|i, x| *x = i as u32 + 1);
            assert_eq!(items, (1..=8).collect::<Vec<_>>());
            assert_eq!(
                team.shared.helpers_out.load(Ordering::Relaxed),
                0,
                "no helper counted out"
            );
            assert!(
                team.take_start_error().is_some(),
                "round {round}: the error is reported"
            );
            assert!(team.take_start_error().is_none(), "once");
        }
    }

    #[test]
    fn a_panicking_payload_drop_is_caught_and_every_item_runs() {
        // Every index panics with a payload whose `drop` panics with such a
        // payload in turn, twice: one reaches the owner, the others are
        // dropped inside the team, and no call escapes before it counts
        // itself done (the owner's frame would go while items still ran).
        struct Nested(u32, Arc<AtomicU32>);
        impl Drop for Nested {
            fn drop(&mut self) {
                self.1.fetch_add(1, Ordering::SeqCst);
                if self.0 > 0 {
                    panic::panic_any(Nested(self.0 - 1, self.1.clone()));
                }
            }
        }
        for threads in [2, 3] {
            with_team(threads, |team| {
                let drops = Arc::new(AtomicU32::new(0));
                let mut items = vec![0u32; 6];
                let payload = panic::catch_unwind(AssertUnwindSafe(|| {
                    team.for_each_mut(&mut items, &|_, x| {
                        *x = 1;
                        panic::panic_any(Nested(2, drops.clone()));
                    })
                }))
                .unwrap_err();
                assert_eq!(items, [1; 6]);
                // Five payloads dropped inside the team, three drops each.
                assert_eq!(drops.load(Ordering::SeqCst), 15);
                discard(payload);
                assert_eq!(drops.load(Ordering::SeqCst), 18);
            });
        }
    }

    #[test]
    fn helpers_leave_when_idle_and_come_back() {
        let team = Team::new(3, "test");
        let out = || team.shared.helpers_out.load(Ordering::Relaxed);
        for round in 0..3 {
            for _ in 0..50 {
                let mut items = vec![0u8; 4];
                team.for_each_mut(&mut items, &|_, x| *x = 1);
                assert_eq!(items, [1; 4]);
            }
            assert!(out() <= 2, "round {round}: at most the team's helpers");
            // Idle: every helper goes back to the pool.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while out() > 0 {
                assert!(std::time::Instant::now() < deadline, "a helper stayed while idle");
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        // Each helper holds the shared state: it is freed once both left.
        let shared = Arc::downgrade(&team.shared);
        drop(team);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while shared.upgrade().is_some() {
            assert!(std::time::Instant::now() < deadline, "a helper stayed after its team");
            std::thread::yield_now();
        }
    }

    #[test]
    // A test of timing: Miri's clock is virtual (time passes per basic block).
    #[cfg_attr(miri, ignore)]
    fn helpers_stay_through_a_gap_shorter_than_their_stay() {
        // A sequential part of a step (a gap of a fraction of `STAY`) must
        // not send the helper back to the pool: asking for it again took
        // 4% of a particle wave. Timed on a shared machine, so only rounds
        // in which the helper's idle time is known to be short count: from
        // the end of its last item (stamped by the helper itself: the
        // caller may return from the step much later), read after looking
        // whether it is still out.
        let team = Team::new(2, "test");
        let out = || team.shared.helpers_out.load(Ordering::Relaxed);
        let mut counted = 0;
        for _ in 0..200 {
            // Work until a helper took part: then it is out and idle.
            let helped_at = Mutex::new(None);
            let caller = std::thread::current().id();
            while helped_at.lock().is_none() {
                let mut items = vec![0u8; 2];
                team.for_each_mut(&mut items, &|i, x| {
                    *x = 1;
                    if std::thread::current().id() != caller {
                        *helped_at.lock() = Some(std::time::Instant::now());
                    } else if i == 1 {
                        // Time for the helper to claim index 0 (the caller
                        // claims it from its end right after index 1).
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                });
            }
            let idle_since = helped_at.lock().expect("helped");
            std::thread::sleep(STAY / 4);
            let still_out = out() == 1;
            if idle_since.elapsed() < STAY / 2 {
                counted += 1;
                assert!(still_out, "the helper left after a gap of {:?}", idle_since.elapsed());
                if counted == 5 {
                    return;
                }
            }
        }
        panic!("the machine never let this thread measure a short gap (counted {counted} rounds)");
    }

    #[test]
    fn a_job_spawned_on_the_pool_from_a_helper_runs_once_helpers_are_idle() {
        // A subtask on a helper gives the pool a job (`rayon::spawn` goes to
        // the pool of the thread calling it): once the helpers are idle and
        // back in the pool, it runs. (Helpers that stayed until the team
        // dropped kept every thread of the pool, and the job waiting.)
        let team = Team::new(2, "test");
        let ran = Arc::new(AtomicU32::new(0));
        let spawned = AtomicU32::new(0);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while spawned.load(Ordering::SeqCst) == 0 {
            assert!(std::time::Instant::now() < deadline, "no subtask ran on a helper");
            team.for_each_mut(&mut [0u8; 2], &|i, _| {
                if i == 1 {
                    // Time for the helper to take index 0 (the caller runs
                    // index 1 first).
                    std::thread::sleep(std::time::Duration::from_millis(1));
                } else if rayon::current_thread_index().is_some() {
                    spawned.fetch_add(1, Ordering::SeqCst);
                    let ran = ran.clone();
                    rayon::spawn(move || {
                        ran.fetch_add(1, Ordering::SeqCst);
                    });
                }
            });
        }
        while ran.load(Ordering::SeqCst) == 0 {
            assert!(std::time::Instant::now() < deadline, "the spawned job never ran");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
