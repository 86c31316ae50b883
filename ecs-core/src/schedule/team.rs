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
use core::any::Any;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use parking_lot::Mutex;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

/// A panic's payload, carried to the thread that re-raises it.
pub(crate) type Payload = Box<dyn Any + Send>;

/// The caller of a step and its helpers.
pub(crate) struct Team {
    shared: Arc<Shared>,
    /// Where helpers come from: `helpers` workers, asked one at a time.
    pool: rayon::ThreadPool,
    helpers: usize,
}

/// What the caller and the helpers share; helpers hold it by `Arc`, so it
/// outlives a context dropped while a helper leaves.
pub(crate) struct Shared {
    /// The queue, where idle threads sleep; rung when work is queued, when
    /// something a thread waits for finishes, and when a step ends.
    bell: Doorbell<State>,
    /// Items in the queue, to look without locking.
    queued: AtomicUsize,
    /// Whether a step is running: helpers stay while it is.
    in_step: AtomicBool,
}

struct State {
    /// Work ready to run, taken last-in first-out (so that a thread waiting
    /// for the subtasks it just queued finds them first).
    queue: Vec<Work>,
    /// Helpers asked for and not yet gone.
    helpers_out: usize,
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
    /// A team of `threads` threads: the caller and `threads - 1` helpers.
    pub(crate) fn new(threads: usize, name: &'static str) -> Result<Self, rayon::ThreadPoolBuildError> {
        let helpers = threads.saturating_sub(1).max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(helpers)
            .thread_name(move |i| format!("{name}-worker-{i}"))
            .build()?;
        Ok(Self {
            shared: Arc::new(Shared {
                bell: Doorbell::new(State {
                    queue: Vec::new(),
                    helpers_out: 0,
                }),
                queued: AtomicUsize::new(0),
                in_step: AtomicBool::new(false),
            }),
            pool,
            helpers,
        })
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// Starts a step: helpers asked for from now on stay until
    /// [`end_step`](Self::end_step).
    pub(crate) fn begin_step(&self) {
        let _state = self.shared.bell.lock();
        self.shared.in_step.store(true, Ordering::SeqCst);
    }

    /// Ends a step: idle helpers leave.
    pub(crate) fn end_step(&self) {
        let state = self.shared.bell.lock();
        self.shared.in_step.store(false, Ordering::SeqCst);
        self.shared.bell.ring_locked(&state);
    }

    /// Queues `items`, waking a sleeping thread or asking for a helper.
    pub(crate) fn push(&self, items: impl IntoIterator<Item = Work>) {
        let shared = &*self.shared;
        let call_helper = {
            let mut state = shared.bell.lock();
            let before = state.queue.len();
            state.queue.extend(items);
            if state.queue.len() == before {
                return;
            }
            shared.queued.store(state.queue.len(), Ordering::Relaxed);
            shared.bell.ring_locked(&state);
            let call = state.helpers_out < self.helpers;
            state.helpers_out += usize::from(call);
            call
        };
        if call_helper {
            let shared = Arc::clone(&self.shared);
            self.pool.spawn(move || shared.help());
        }
    }

    /// Calls `f(i, &mut items[i])` for every index, in parallel: the caller
    /// runs the first and helps with the rest (or with other work) until
    /// all have returned. Re-raises a panic of any of them once all have.
    pub(crate) fn for_each_mut<T: Send>(&self, items: &mut [T], f: &(dyn Fn(usize, &mut T) + Sync)) {
        let n = items.len();
        if n == 0 {
            return;
        }
        let job = Job {
            items: items.as_mut_ptr(),
            f,
            remaining: AtomicUsize::new(n),
            panic: Mutex::new(None),
        };
        let data = (&job as *const Job<'_, T>).cast::<()>();
        // SAFETY: `job` lives until `remaining` reads 0 below, which each
        // item's call makes visible as its last use of the job (nothing in
        // between unwinds: calls catch the panics of `f`). The job is usable
        // from any thread: `f` is `Sync`, `remaining` and `panic` are
        // thread-safe, and each element, a `T: Send`, goes to the one call
        // with its index; each index `1..n` is queued once.
        self.push((1..n).map(|i| unsafe { Work::new(Job::<T>::call, data, i) }));
        // SAFETY: as above; index 0 is run here, once, and never queued.
        unsafe { Job::<T>::call(data, 0, &self.shared) };
        self.shared.work_until(|| job.remaining.load(Ordering::SeqCst) == 0);
        if let Some(payload) = job.panic.into_inner() {
            panic::resume_unwind(payload);
        }
    }
}

/// Subtasks over a slice, each index run once.
struct Job<'a, T> {
    items: *mut T,
    f: &'a (dyn Fn(usize, &mut T) + Sync),
    remaining: AtomicUsize,
    panic: Mutex<Option<Payload>>,
}

impl<T: Send> Job<'_, T> {
    /// Runs `f(index, &mut items[index])`, keeping a panic for the owner.
    ///
    /// # Safety
    /// `data` points to a live `Job<T>` (the invariant of [`Work`]) whose
    /// `items` hold more than `index` elements, and no other call gets the
    /// same `index`.
    unsafe fn call(data: *const (), index: usize, shared: &Shared) {
        // SAFETY: the caller guarantees `data` is a live `Job<T>`.
        let job = unsafe { &*data.cast::<Job<'_, T>>() };
        // SAFETY: `index` is in bounds and called once, so this `&mut` is the
        // only reference to the element; the owner does not touch `items`
        // until every call has finished.
        let item = unsafe { &mut *job.items.add(index) };
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| (job.f)(index, item))) {
            job.panic.lock().get_or_insert(payload);
        }
        // The job may be gone once this reads 0 on the owner's side: from
        // here on, only `shared`.
        if job.remaining.fetch_sub(1, Ordering::SeqCst) == 1 {
            shared.notify();
        }
    }
}

impl Shared {
    /// Wakes the sleeping threads after something they may wait for
    /// finished (a `SeqCst` change: `Doorbell::ring`).
    pub(crate) fn notify(&self) {
        self.bell.ring();
    }

    fn pop(&self) -> Option<Work> {
        if self.queued.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut state = self.bell.lock();
        let work = state.queue.pop();
        self.queued.store(state.queue.len(), Ordering::Relaxed);
        work
    }

    /// Runs queued work until `done()` holds: spinning a little when there
    /// is none, then sleeping until woken.
    pub(crate) fn work_until(&self, done: impl Fn() -> bool) {
        let mut idle = 0;
        loop {
            if done() {
                return;
            }
            if let Some(work) = self.pop() {
                work.run(self);
                idle = 0;
                continue;
            }
            if idle < SPINS {
                if idle < SPIN_HINTS {
                    core::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
                idle += 1;
                continue;
            }
            self.bell.sleep(|state| !state.queue.is_empty(), &done);
            idle = SPIN_HINTS;
        }
    }

    /// A helper's life: work while the step lasts, then leave.
    fn help(&self) {
        loop {
            self.work_until(|| !self.in_step.load(Ordering::SeqCst));
            // Leave only when no step has begun meanwhile (checked under the
            // lock, which `begin_step` takes): a step that queues work after
            // this sees the helper gone and asks for another. Work queued
            // outside a step is its owner's to finish: it runs what it waits
            // for.
            let mut state = self.bell.lock();
            if !self.in_step.load(Ordering::SeqCst) {
                state.helpers_out -= 1;
                return;
            }
        }
    }
}

/// Idle rounds before a thread sleeps: the first `SPIN_HINTS` with a spin
/// hint, the rest yielding the core (a yield takes ~0.2-1 µs, so a thread
/// stays awake some 100 µs: through the gaps between a step's systems, not
/// through a long sequential one).
const SPINS: u32 = 256;
const SPIN_HINTS: u32 = 64;

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// `f` inside a step of a team of `threads`.
    fn in_step(threads: usize, f: impl FnOnce(&Team)) {
        let team = Team::new(threads, "test").unwrap();
        team.begin_step();
        f(&team);
        team.end_step();
    }

    #[test]
    fn every_index_runs_once_with_its_own_item() {
        for threads in [2, 3, 8] {
            in_step(threads, |team| {
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
        in_step(2, |team| {
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
            in_step(threads, |team| {
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
    fn helpers_leave_when_the_step_ends() {
        let team = Team::new(3, "test").unwrap();
        for _ in 0..50 {
            team.begin_step();
            let mut items = vec![0u8; 4];
            team.for_each_mut(&mut items, &|_, x| *x = 1);
            team.end_step();
        }
        // Every helper asked for either left or is about to: none is stuck.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while team.shared.bell.lock().helpers_out > 0 {
            assert!(std::time::Instant::now() < deadline, "a helper stayed after its step");
            std::thread::yield_now();
        }
    }
}
