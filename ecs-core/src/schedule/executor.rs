//! The atomic-counter scheduler (thesis, section 10.3), on rayon.
//!
//! Each system to run holds a count of its unfinished dependencies. Systems
//! with none start at once; finishing a system decrements its dependents'
//! counts and starts those that reach zero. The systems run on the pool's
//! workers, and a worker that waits for a system's subtasks runs pending
//! work meanwhile, so no pool size can deadlock — unlike ECST's blocking
//! waits. The caller, which is not a worker, spins briefly and then waits
//! at the end of a rayon scope that holds the whole graph.

use super::counters::Counters;
use crate::decl::ContextDecl;
use core::sync::atomic::{AtomicUsize, Ordering};

/// Runs the systems for which `selected[i]` holds, each after its selected
/// dependencies, calling `run(i)` for each, on `pool` when given and on the
/// caller's thread otherwise. Returns when all have finished; a panic in any
/// of them is re-raised here once the others have stopped.
pub(crate) fn execute<Cx: ContextDecl>(
    pool: Option<&rayon::ThreadPool>,
    selected: &[bool],
    run: &(dyn Fn(usize) + Sync),
) {
    let Some(pool) = pool else {
        for &i in Cx::TOPOLOGICAL {
            if selected[i] {
                run(i);
            }
        }
        return;
    };
    let counters = Counters::new(Cx::SYSTEMS, selected);
    let graph = Graph {
        counters: &counters,
        run,
        unfinished: AtomicUsize::new(selected.iter().filter(|&&s| s).count()),
    };
    // The systems run on the pool's threads while this one waits. A scope
    // run in place (rather than `install`) lets it wait by spinning first:
    // blocking at once, as `install` does, costs two sleeps and wake-ups
    // per step (~10 µs here), which dwarfs a step of small systems.
    pool.in_place_scope(|scope| {
        for i in counters.roots() {
            let graph = &graph;
            scope.spawn(move |scope| graph.task(scope, i));
        }
        graph.spin_until_finished();
    });
}

struct Graph<'a> {
    counters: &'a Counters<'a>,
    run: &'a (dyn Fn(usize) + Sync),
    /// Selected systems not yet finished; only for the waiting thread's
    /// spin (the scope's end is what guarantees completion).
    unfinished: AtomicUsize,
}

impl<'a> Graph<'a> {
    /// Runs system `i`, then the dependents it makes ready: the first on
    /// this thread, the others as new tasks. Continuing a chain on the
    /// thread that ran its previous system keeps the chain's components in
    /// that core's cache (a spawned task is often stolen by an idle thread)
    /// and saves a task per link.
    fn task<'s>(&'s self, scope: &rayon::Scope<'s>, mut i: usize)
    where
        'a: 's,
    {
        loop {
            (self.run)(i);
            self.unfinished.fetch_sub(1, Ordering::Release);
            let mut next = None;
            self.counters.finish(i, |d| {
                if next.is_none() {
                    next = Some(d);
                } else {
                    scope.spawn(move |scope| self.task(scope, d));
                }
            });
            match next {
                Some(d) => i = d,
                None => return,
            }
        }
    }

    /// Waits a short while for every system to finish, yielding the core
    /// meanwhile, so that the scope's end usually finds its work done and
    /// does not put the thread to sleep. A long step (or a panicking system,
    /// whose dependents never run) outlasts the spin, and the scope's end
    /// then waits as usual.
    fn spin_until_finished(&self) {
        for round in 0..SPIN_ROUNDS {
            if self.unfinished.load(Ordering::Acquire) == 0 {
                return;
            }
            if round < 64 {
                core::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// How many times the waiting thread checks for the end of a step before
/// it lets the scope block: the first 64 with a spin hint, the rest yielding
/// the core to the workers (a yield takes ~0.2-1 µs, so this covers steps of
/// some 100 µs).
const SPIN_ROUNDS: u32 = 256;
