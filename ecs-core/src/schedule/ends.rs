//! The indices of a split system's subtasks, claimed from both ends: the
//! thread that split the system takes them from the back (n - 1, n - 2,
//! ...), the threads helping it from the front (0, 1, 2, ...), until the
//! two meet.
//!
//! From one end only, which thread ran which subtask changed from step to
//! step with the threads' timing, and a subtask's columns then had to come
//! from the other core's cache. From two ends, a step that takes the same
//! time as the last gives each thread the same subtasks: `schedule` of the
//! peer benchmarks, its long system split in four beside two short ones,
//! keeps three quarters of it on the caller and one on the helper that ran
//! the short ones (`benches/peers/examples/schedule_threads`).
//!
//! Which end is whose matters too: where two threads' subtasks meet in
//! memory, the one whose entities start where the other's end runs slower
//! (in `schedule`, medians of 100 000 steps: 1.67 µs for that quarter
//! against 1.43-1.48 for the others at stop 48, and 1.52-1.55 against
//! 1.38-1.40 at stop 49 with the columns on a cache line; the hand-written
//! version with its columns laid out as ecs's showed the same, also with
//! the two quarters run one after the other rather than at once, and a
//! 4 KiB gap between the quarters removed it where a 64-byte gap did not).
//! With the splitting thread taking the back, that slower subtask is its
//! last one, and it is the thread with time to spare: it started the
//! system, where a helper joins late. The step's median went from
//! 5.16-5.26 µs to 4.95-5.05 (blocks of 500 steps of each order,
//! alternated in one process); with the columns on a line, the step's
//! 10th percentile from 4.88-4.93 to 4.77-4.85 (six alternated processes
//! of each order).
//!
//! Built on loom's atomics under `--cfg loom`, where the test below checks
//! every interleaving of a front and a back claimer.

#[cfg(not(loom))]
use core::sync::atomic::{AtomicU64, Ordering};
#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, Ordering};

/// The unclaimed indices `front..back`, in one word (`front` in the low 32
/// bits, `back` in the high), so that a claim from either end is one
/// compare-exchange that sees the other end.
pub(crate) struct Ends(AtomicU64);

impl Ends {
    /// The indices `front..back` unclaimed (none if `back <= front`).
    pub(crate) fn new(front: u32, back: u32) -> Self {
        Self(AtomicU64::new(pack(front, back)))
    }

    /// Claims the lowest unclaimed index.
    pub(crate) fn front(&self) -> Option<usize> {
        self.claim(|front, back| (front, pack(front + 1, back)))
    }

    /// Claims the highest unclaimed index.
    pub(crate) fn back(&self) -> Option<usize> {
        self.claim(|front, back| (back - 1, pack(front, back - 1)))
    }

    /// Claims the index `take(front, back)` names, storing the word it
    /// returns, while `front < back`.
    #[inline]
    fn claim(&self, take: impl Fn(u32, u32) -> (u32, u64)) -> Option<usize> {
        let mut word = self.0.load(Ordering::Relaxed);
        loop {
            let (front, back) = (word as u32, (word >> 32) as u32);
            if front >= back {
                return None;
            }
            let (index, next) = take(front, back);
            // Relaxed: the read-modify-writes of one word are totally
            // ordered, so each index is claimed once whatever the ordering;
            // what a subtask reads was published to its thread by whatever
            // handed it the claim (the team's queue, under its lock).
            match self
                .0
                .compare_exchange_weak(word, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(index as usize),
                Err(now) => word = now,
            }
        }
    }
}

fn pack(front: u32, back: u32) -> u64 {
    u64::from(front) | (u64::from(back) << 32)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_ends_meet_once_every_index_is_claimed() {
        let ends = Ends::new(1, 6);
        assert_eq!(ends.front(), Some(1));
        assert_eq!(ends.back(), Some(5));
        assert_eq!(ends.back(), Some(4));
        assert_eq!(ends.front(), Some(2));
        assert_eq!(ends.front(), Some(3));
        assert_eq!(ends.front(), None);
        assert_eq!(ends.back(), None);
    }

    #[test]
    fn no_index_when_empty_or_reversed() {
        for (front, back) in [(0, 0), (3, 3), (5, 2)] {
            let ends = Ends::new(front, back);
            assert_eq!((ends.front(), ends.back()), (None, None));
        }
        let top = Ends::new(u32::MAX - 1, u32::MAX);
        assert_eq!(top.back(), Some(u32::MAX as usize - 1));
        assert_eq!(top.front(), None);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicUsize;
    use loom::sync::Arc;

    /// Three indices, claimed from the front by one thread and from the
    /// back by another, both until none is left: each index exactly once.
    #[test]
    fn each_index_is_claimed_once_from_either_end() {
        loom::model(|| {
            let ends = Arc::new(Ends::new(0, 3));
            let claimed = Arc::new(AtomicUsize::new(0));
            let record = |claimed: &AtomicUsize, i: usize| {
                let before = claimed.fetch_or(1 << i, Ordering::Relaxed);
                assert_eq!(before & (1 << i), 0, "index {i} claimed twice");
            };
            let back = {
                let (ends, claimed) = (ends.clone(), claimed.clone());
                loom::thread::spawn(move || {
                    while let Some(i) = ends.back() {
                        record(&claimed, i);
                    }
                })
            };
            while let Some(i) = ends.front() {
                record(&claimed, i);
            }
            back.join().unwrap();
            assert_eq!(claimed.load(Ordering::Relaxed), 0b111);
        });
    }
}
