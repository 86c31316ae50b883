//! The dependency counters of one run of the system graph (thesis, 10.3):
//! each selected system counts its unfinished selected dependencies; the
//! system that finishes last among a dependent's dependencies makes it ready.
//!
//! Built on loom's atomics under `--cfg loom`, where the tests below check
//! every interleaving of a diamond and of two independent chains.

#[cfg(not(loom))]
use core::sync::atomic::{AtomicUsize, Ordering};
#[cfg(loom)]
use loom::sync::atomic::{AtomicUsize, Ordering};

use crate::decl::SystemInfo;

/// Unfinished dependency counts of the selected systems.
pub(crate) struct Counters<'a> {
    systems: &'a [SystemInfo],
    selected: &'a [bool],
    pending: Vec<AtomicUsize>,
}

impl<'a> Counters<'a> {
    pub(crate) fn new(systems: &'a [SystemInfo], selected: &'a [bool]) -> Self {
        let pending = systems
            .iter()
            .map(|s| AtomicUsize::new(s.dependencies.iter().filter(|&&d| selected[d]).count()))
            .collect();
        Self {
            systems,
            selected,
            pending,
        }
    }

    /// The selected systems with no selected dependency: ready at once.
    ///
    /// Read from the declaration, not from the counters: the caller starts
    /// roots while it iterates, and a started root may already have brought
    /// a dependent's counter to zero, which must not make it a root too.
    pub(crate) fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.systems.len())
            .filter(|&i| self.selected[i] && !self.systems[i].dependencies.iter().any(|&d| self.selected[d]))
    }

    /// Records that system `i` finished; calls `ready` with each dependent
    /// for which `i` was the last unfinished dependency.
    pub(crate) fn finish(&self, i: usize, mut ready: impl FnMut(usize)) {
        for &d in self.systems[i].dependents {
            // AcqRel: the release publishes what `i` wrote; the acquire of
            // the last decrement sees every earlier dependency's release
            // (they form one release sequence on this counter), so the
            // dependent starts after all of them in happens-before order.
            if self.selected[d] && self.pending[d].fetch_sub(1, Ordering::AcqRel) == 1 {
                ready(d);
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    static CHAIN: [SystemInfo; 2] = [
        SystemInfo {
            name: "a",
            type_name: "A",
            dependencies: &[],
            dependents: &[1],
            ancestors: &[],
        },
        SystemInfo {
            name: "b",
            type_name: "B",
            dependencies: &[0],
            dependents: &[],
            ancestors: &[0],
        },
    ];

    #[test]
    fn a_dependent_made_ready_is_not_a_root() {
        let counters = Counters::new(&CHAIN, &[true, true]);
        let mut ready = Vec::new();
        counters.finish(0, |d| ready.push(d));
        assert_eq!(ready, [1]);
        // The executor iterates the roots while the first ones already run:
        // `b` must not be started a second time from there.
        assert_eq!(counters.roots().collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn a_system_whose_dependencies_are_not_selected_is_a_root() {
        let counters = Counters::new(&CHAIN, &[false, true]);
        assert_eq!(counters.roots().collect::<Vec<_>>(), [1]);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::cell::UnsafeCell;
    use loom::sync::atomic::AtomicUsize;
    use loom::sync::{Arc, Mutex};
    use std::collections::VecDeque;

    /// Runs the graph on two worker threads and the caller: each system
    /// writes its own cell after reading its dependencies' cells (loom flags
    /// a data race if a dependency's write is not visible), and runs once.
    fn check(systems: &'static [SystemInfo]) {
        loom::model(move || {
            let n = systems.len();
            let selected: &'static [bool] = Box::leak(vec![true; n].into_boxed_slice());
            let counters = Arc::new(Counters::new(systems, selected));
            let cells: Arc<Vec<UnsafeCell<usize>>> = Arc::new((0..n).map(|_| UnsafeCell::new(0)).collect());
            let queue = Arc::new(Mutex::new(counters.roots().collect::<VecDeque<_>>()));
            let done = Arc::new(AtomicUsize::new(0));
            let work = {
                let (counters, cells, queue, done) = (counters.clone(), cells.clone(), queue.clone(), done.clone());
                move || loop {
                    if done.load(Ordering::Acquire) == n {
                        return;
                    }
                    let next = queue.lock().unwrap().pop_front();
                    let Some(i) = next else {
                        loom::thread::yield_now();
                        continue;
                    };
                    let seen: usize = systems[i]
                        .dependencies
                        .iter()
                        .map(|&d| cells[d].with(|v| unsafe { *v }))
                        .sum();
                    cells[i].with_mut(|v| unsafe { *v = seen + 1 });
                    counters.finish(i, |d| queue.lock().unwrap().push_back(d));
                    done.fetch_add(1, Ordering::Release);
                }
            };
            let worker = loom::thread::spawn(work.clone());
            work();
            worker.join().unwrap();
            assert_eq!(done.load(Ordering::Acquire), n, "every system ran once");
        });
    }

    #[test]
    fn diamond() {
        static DIAMOND: [SystemInfo; 4] = [
            SystemInfo {
                name: "",
                type_name: "",
                dependencies: &[],
                dependents: &[1, 2],
                ancestors: &[],
            },
            SystemInfo {
                name: "",
                type_name: "",
                dependencies: &[0],
                dependents: &[3],
                ancestors: &[0],
            },
            SystemInfo {
                name: "",
                type_name: "",
                dependencies: &[0],
                dependents: &[3],
                ancestors: &[0],
            },
            SystemInfo {
                name: "",
                type_name: "",
                dependencies: &[1, 2],
                dependents: &[],
                ancestors: &[0, 1, 2],
            },
        ];
        check(&DIAMOND);
    }

    #[test]
    fn two_chains() {
        static CHAINS: [SystemInfo; 4] = [
            SystemInfo {
                name: "",
                type_name: "",
                dependencies: &[],
                dependents: &[1],
                ancestors: &[],
            },
            SystemInfo {
                name: "",
                type_name: "",
                dependencies: &[0],
                dependents: &[],
                ancestors: &[0],
            },
            SystemInfo {
                name: "",
                type_name: "",
                dependencies: &[],
                dependents: &[3],
                ancestors: &[],
            },
            SystemInfo {
                name: "",
                type_name: "",
                dependencies: &[2],
                dependents: &[],
                ancestors: &[2],
            },
        ];
        check(&CHAINS);
    }
}
