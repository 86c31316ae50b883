//! Sleeping until a condition holds without missing the wake-up of the
//! thread that makes it hold: the team's idle threads sleep here.
//!
//! Built on loom's primitives under `--cfg loom`, where the tests below
//! check every interleaving of a sleeper and a waker.

#[cfg(not(loom))]
use core::sync::atomic::{AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;
#[cfg(loom)]
use loom::sync::atomic::{AtomicUsize, Ordering};
#[cfg(loom)]
use loom::sync::{Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
use parking_lot::{Condvar, Mutex, MutexGuard};

/// A state under a lock, and a bell for the threads waiting on it.
///
/// A condition may live under the lock (changed with the lock held, then
/// [`ring_locked`](Self::ring_locked)) or in `SeqCst` atomics (changed
/// without it, then [`ring`](Self::ring)); [`sleep`](Self::sleep) checks
/// both kinds after counting itself a sleeper, under the lock.
pub(crate) struct Doorbell<S> {
    state: Mutex<S>,
    bell: Condvar,
    /// Threads inside `sleep` (changed under the lock). On a cache line of
    /// its own: `ring` reads it with a read-modify-write, which beside the
    /// lock had to fetch the line from whichever thread last locked the
    /// state (a step's end on two threads: 0.03 µs,
    /// `benches/peers/examples/schedule_threads`).
    sleepers: CachePadded<AtomicUsize>,
}

impl<S> Doorbell<S> {
    pub(crate) fn new(state: S) -> Self {
        Self {
            state: Mutex::new(state),
            bell: Condvar::new(),
            sleepers: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// Locks the state.
    #[inline]
    pub(crate) fn lock(&self) -> MutexGuard<'_, S> {
        #[cfg(not(loom))]
        return self.state.lock();
        #[cfg(loom)]
        return self.state.lock().unwrap();
    }

    /// Sleeps until rung, unless `awake(state)` or `done()` holds already.
    /// Wake-ups may be spurious: callers check their condition again.
    pub(crate) fn sleep(&self, awake: impl FnOnce(&S) -> bool, done: impl FnOnce() -> bool) {
        let state = self.lock();
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let state = if awake(&state) || done() {
            state
        } else {
            self.wait(state)
        };
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        drop(state);
    }

    #[cfg(not(loom))]
    fn wait<'a>(&self, mut state: MutexGuard<'a, S>) -> MutexGuard<'a, S> {
        self.bell.wait(&mut state);
        state
    }

    #[cfg(loom)]
    fn wait<'a>(&self, state: MutexGuard<'a, S>) -> MutexGuard<'a, S> {
        self.bell.wait(state).unwrap()
    }

    /// Wakes the sleepers after a change made under the lock, which
    /// `state` still holds: a sleeper either checked before the change
    /// (and now waits, so it is woken) or checks after it.
    #[inline]
    pub(crate) fn ring_locked(&self, state: &MutexGuard<'_, S>) {
        let _held = state;
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            self.bell.notify_all();
        }
    }

    /// Wakes the sleepers after a change made without the lock.
    ///
    /// A sleeper counts itself (a read-modify-write), then checks its
    /// condition; this thread changed the condition, then reads the count
    /// with a read-modify-write too. The two are ordered on the count: if
    /// this one comes first, its release makes the change visible to the
    /// sleeper's check, which then does not sleep; if it comes second, it
    /// sees the sleeper, which then waits under the lock taken here before
    /// being woken. (A plain load here would need `SeqCst`'s single total
    /// order, which loom does not model, to rule out a lost wake-up.)
    #[inline]
    pub(crate) fn ring(&self) {
        if self.sleepers.fetch_add(0, Ordering::AcqRel) > 0 {
            self.wake_all();
        }
    }

    /// Wakes the sleepers it sees after a change made without the lock,
    /// without the read-modify-write [`ring`](Self::ring) orders itself
    /// with: a thread counting itself a sleeper at this moment may check
    /// its condition before the change is visible to it and sleep through
    /// it. Only for changes nobody has to be woken for: the thread that
    /// made it will act on it itself if no one else does (a step's roots,
    /// which its caller runs when no helper claims them). A sleeper missed
    /// here is seen by the next call: its count is visible by then.
    ///
    /// The read-modify-write, a locked instruction on x86, waited for every
    /// store before it to leave the store buffer: at a step's start, those
    /// of the graph the step had just written over the last step's, whose
    /// lines the helper had read (a step of `schedule`,
    /// `benches/peers/examples/schedule_threads`).
    #[inline]
    pub(crate) fn ring_unless_racing(&self) {
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            self.wake_all();
        }
    }
}

impl<S> Doorbell<S> {
    /// Wakes every sleeper, under the lock: a sleeper between counting
    /// itself and waiting holds the lock, so it waits before this notifies.
    #[cold]
    fn wake_all(&self) {
        let state = self.lock();
        self.bell.notify_all();
        drop(state);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicBool;
    use loom::sync::Arc;

    /// A sleeper waits for a flag that another thread sets without the
    /// lock, then rings: in no interleaving may the sleeper sleep forever
    /// (loom reports a deadlock if it does).
    #[test]
    fn a_change_made_without_the_lock_wakes_the_sleeper() {
        loom::model(|| {
            let bell = Arc::new(Doorbell::new(()));
            let flag = Arc::new(AtomicBool::new(false));
            let setter = {
                let (bell, flag) = (bell.clone(), flag.clone());
                loom::thread::spawn(move || {
                    flag.store(true, Ordering::SeqCst);
                    bell.ring();
                })
            };
            while !flag.load(Ordering::SeqCst) {
                bell.sleep(|_| false, || flag.load(Ordering::SeqCst));
            }
            setter.join().unwrap();
        });
    }

    /// The same for work queued under the lock.
    #[test]
    fn work_queued_under_the_lock_wakes_the_sleeper() {
        loom::model(|| {
            let bell = Arc::new(Doorbell::new(0usize));
            let pusher = {
                let bell = bell.clone();
                loom::thread::spawn(move || {
                    let mut queued = bell.lock();
                    *queued += 1;
                    bell.ring_locked(&queued);
                })
            };
            while *bell.lock() == 0 {
                bell.sleep(|queued| *queued > 0, || false);
            }
            pusher.join().unwrap();
        });
    }
}
