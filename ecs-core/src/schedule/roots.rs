//! A step's first systems, handed to idle threads without a lock: one word
//! of bits, one per system not yet claimed, beside a pointer to what every
//! claimer copies (the work item of the step's graph).
//!
//! Through the team's locked queue, the caller's lock and the helper's
//! (to take the item) each had to fetch the lock's cache line from the other
//! core, and the caller's unlock often found the line taken by the waiting
//! helper (`schedule` of the peer benchmarks,
//! `benches/peers/examples/schedule_threads`). Here the caller writes one
//! line, which the helper polls anyway, and the helper claims with one
//! compare-exchange.
//!
//! Built on loom's atomics under `--cfg loom`, where the test below checks
//! every interleaving of a caller publishing two steps and a helper
//! claiming beside it.

#[cfg(not(loom))]
use core::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
#[cfg(loom)]
use loom::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// Roots with an index below this are published here; others go through
/// the queue.
pub(crate) const MAX: usize = 64;

/// Published roots: which are unclaimed, and what each claimer copies.
pub(crate) struct Roots<T> {
    /// Bit `i`: root `i` is published and not yet claimed.
    unclaimed: AtomicU64,
    /// What every claimer of the current publication copies (stored before
    /// the bits, read after claiming one).
    template: AtomicPtr<T>,
}

impl<T: Copy> Roots<T> {
    pub(crate) fn new() -> Self {
        Self {
            unclaimed: AtomicU64::new(0),
            template: AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    /// Publishes the roots whose bits `mask` sets, each claimed with a copy
    /// of `*template`.
    ///
    /// # Safety
    /// - Every root of the previous publication has been claimed, and every
    ///   [`claim`](Self::claim) that claimed one has returned (it copies
    ///   the template after claiming): no claimer may read this template
    ///   with a bit of the previous one. Publications are made one at a
    ///   time.
    /// - `template` stays valid (readable from any thread that claims)
    ///   until every root of `mask` has been claimed and every claim of one
    ///   has returned.
    pub(crate) unsafe fn publish(&self, template: *const T, mask: u64) {
        debug_assert_eq!(self.unclaimed.load(Ordering::Relaxed), 0, "roots published twice");
        self.template.store(template.cast_mut(), Ordering::Relaxed);
        // Release: a claimer that sees a bit sees the template stored above
        // (the claims' read-modify-writes continue this store's release
        // sequence).
        self.unclaimed.store(mask, Ordering::Release);
    }

    /// Whether some root is published and unclaimed (a hint: it may be
    /// claimed by the time the caller claims).
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.unclaimed.load(Ordering::Relaxed) != 0
    }

    /// Claims one published root: its index and a copy of the template.
    pub(crate) fn claim(&self) -> Option<(usize, T)> {
        let mut unclaimed = self.unclaimed.load(Ordering::Relaxed);
        while unclaimed != 0 {
            let i = unclaimed.trailing_zeros() as usize;
            match self.unclaimed.compare_exchange_weak(
                unclaimed,
                unclaimed & !(1 << i),
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    // The acquire above synchronises with the publication
                    // that set bit `i` (the value it replaced is that store
                    // or a claim after it): its template is visible, and no
                    // later one can be stored until this claim returns
                    // (`publish`'s contract).
                    let template = self.template.load(Ordering::Relaxed);
                    // SAFETY: the template of the publication bit `i` came
                    // from, valid until this claim returns (`publish`'s
                    // contract); `T: Copy`, so copying it out leaves it as
                    // it was for the other claimers.
                    return Some((i, unsafe { *template }));
                }
                Err(now) => unclaimed = now,
            }
        }
        None
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn each_root_is_claimed_once_with_the_template() {
        let roots = Roots::new();
        assert!(roots.claim().is_none(), "nothing published");
        let template = 7u32;
        // SAFETY: nothing published before; `template` outlives the claims.
        unsafe { roots.publish(&template, 0b1010_0001) };
        assert!(roots.any());
        let claimed: Vec<_> = core::iter::from_fn(|| roots.claim()).collect();
        assert_eq!(claimed, [(0, 7), (5, 7), (7, 7)]);
        assert!(!roots.any());
        let next = 8u32;
        // SAFETY: every root above was claimed, each claim returned.
        unsafe { roots.publish(&next, 1 << 63) };
        assert_eq!(roots.claim(), Some((63, 8)));
        assert_eq!(roots.claim(), None);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicUsize;
    use loom::sync::Arc;

    /// Two publications of roots 0 and 1, claimed by the publisher and a
    /// helper: every root of each is claimed exactly once, with its own
    /// publication's template (not the other's: the helper may claim a bit
    /// of the second publication where it saw the first's bits), and the
    /// second is published only once the first's claims have returned.
    #[test]
    fn claims_see_their_own_publication() {
        loom::model(|| {
            static TEMPLATES: [usize; 2] = [1, 2];
            let roots = Arc::new(Roots::<usize>::new());
            // Claims of (publication, root), and claims that have returned.
            let claims = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
            let returned = Arc::new(AtomicUsize::new(0));
            let record = |claims: &[AtomicUsize; 2], (i, step): (usize, usize)| {
                let before = claims[step - 1].fetch_or(1 << i, Ordering::Relaxed);
                assert_eq!(before & (1 << i), 0, "root {i} of publication {step} claimed twice");
            };
            let helper = {
                let (roots, claims, returned) = (roots.clone(), claims.clone(), returned.clone());
                loom::thread::spawn(move || {
                    // Tries a bounded number of times: loom explores every
                    // point at which these claims can land.
                    for _ in 0..2 {
                        if let Some(claim) = roots.claim() {
                            record(&claims, claim);
                            returned.fetch_add(1, Ordering::Release);
                        }
                        loom::thread::yield_now();
                    }
                })
            };
            for step in 1..=2 {
                // SAFETY: the first publication; the second comes once
                // every claim of the first has returned (the wait below).
                unsafe { roots.publish(&TEMPLATES[step - 1], 0b11) };
                while let Some(claim) = roots.claim() {
                    record(&claims, claim);
                    returned.fetch_add(1, Ordering::Release);
                }
                while returned.load(Ordering::Acquire) < 2 * step {
                    loom::thread::yield_now();
                }
            }
            helper.join().unwrap();
            assert_eq!(claims[0].load(Ordering::Relaxed), 0b11);
            assert_eq!(claims[1].load(Ordering::Relaxed), 0b11);
        });
    }
}
