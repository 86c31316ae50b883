//! The atomic-counter scheduler (thesis, section 10.3), on rayon.
//!
//! Each system to run holds a count of its unfinished dependencies. Systems
//! with none start at once; finishing a system decrements its dependents'
//! counts and starts those that reach zero. The caller waits for the whole
//! graph inside a rayon scope, and a thread that waits in a scope (or in a
//! system waiting for its own subtasks) runs pending work meanwhile, so no
//! pool size can deadlock — unlike ECST's blocking waits.

use super::counters::Counters;
use crate::decl::ContextDecl;

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
    };
    pool.install(|| {
        rayon::scope(|scope| {
            for i in counters.roots() {
                let graph = &graph;
                scope.spawn(move |scope| graph.task(scope, i));
            }
        })
    });
}

struct Graph<'a> {
    counters: &'a Counters<'a>,
    run: &'a (dyn Fn(usize) + Sync),
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
}
