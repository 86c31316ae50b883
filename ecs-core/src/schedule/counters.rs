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
///
/// A selected system waits for its selected direct dependencies when the
/// selection is *closed*: no unselected system lies on a dependency path
/// between two selected ones (every selection of `run_all` and `run_from`).
/// Otherwise (adapters that give code to `a` and `c` of a chain `a -> b ->
/// c` but not to `b`) it waits for every selected *ancestor*: the
/// declaration orders conflicting systems by a path, and a skipped system
/// on that path must not let its two ends overlap.
pub(crate) struct Counters<'a> {
    systems: &'a [SystemInfo],
    selected: &'a [bool],
    transitive: bool,
    pending: Pending,
}

/// Systems whose counters live in the step's frame rather than on the
/// heap: a step allocated and freed them each time (0.05 µs of a
/// two-thread step of `schedule`, a third of what ecs then spent around
/// the systems; `benches/peers/examples/schedule_threads`).
const INLINE: usize = 16;

/// The counters, inline for graphs of up to [`INLINE`] systems.
enum Pending {
    Inline([AtomicUsize; INLINE]),
    Heap(Vec<AtomicUsize>),
}

impl Pending {
    fn get(&self, i: usize) -> &AtomicUsize {
        match self {
            Pending::Inline(a) => &a[i],
            Pending::Heap(v) => &v[i],
        }
    }
}

impl<'a> Counters<'a> {
    pub(crate) fn new(systems: &'a [SystemInfo], selected: &'a [bool]) -> Self {
        // Every system selected (`run_all`, the common step): closed, and
        // each waits for all its dependencies, counted without looking
        // whether each is selected.
        let all = selected.iter().all(|&s| s);
        let transitive = !all && !closed(systems, selected);
        let count = |i: usize| {
            AtomicUsize::new(if all {
                systems[i].dependencies.len()
            } else {
                waits_on(systems, transitive, i).filter(|&d| selected[d]).count()
            })
        };
        let pending = if systems.len() <= INLINE {
            Pending::Inline(core::array::from_fn(|i| {
                if i < systems.len() {
                    count(i)
                } else {
                    AtomicUsize::new(0)
                }
            }))
        } else {
            Pending::Heap((0..systems.len()).map(count).collect())
        };
        Self {
            systems,
            selected,
            transitive,
            pending,
        }
    }

    /// The systems `i` waits for if they run (see [`waits_on`]).
    fn waits_on(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        waits_on(self.systems, self.transitive, i)
    }

    /// The selected systems that wait for nothing selected: ready at once.
    ///
    /// Read from the declaration, not from the counters: the caller starts
    /// roots while it iterates, and a started root may already have brought
    /// a dependent's counter to zero, which must not make it a root too.
    pub(crate) fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.systems.len()).filter(|&i| self.selected[i] && self.is_root(i))
    }

    /// Whether the selected system `i` waits for nothing selected (see
    /// [`roots`](Self::roots)).
    #[inline]
    pub(crate) fn is_root(&self, i: usize) -> bool {
        !self.waits_on(i).any(|d| self.selected[d])
    }

    /// Records that system `i` finished; calls `ready` with each waiting
    /// system for which `i` was the last unfinished one it waited for.
    pub(crate) fn finish(&self, i: usize, mut ready: impl FnMut(usize)) {
        if self.transitive {
            for (d, info) in self.systems.iter().enumerate() {
                if info.ancestors.binary_search(&i).is_ok() {
                    self.decrement(d, &mut ready);
                }
            }
        } else {
            for &d in self.systems[i].dependents {
                self.decrement(d, &mut ready);
            }
        }
    }

    fn decrement(&self, d: usize, ready: &mut impl FnMut(usize)) {
        // AcqRel: the release publishes what the finished system wrote; the
        // acquire of the last decrement sees every earlier one's release
        // (they form one release sequence on this counter), so `d` starts
        // after all the systems it waits for in happens-before order.
        if self.selected[d] && self.pending.get(d).fetch_sub(1, Ordering::AcqRel) == 1 {
            ready(d);
        }
    }
}

/// The systems `i` waits for if they run: its direct dependencies, or
/// every ancestor when the selection is not closed (`transitive`).
fn waits_on(systems: &[SystemInfo], transitive: bool, i: usize) -> impl Iterator<Item = usize> + '_ {
    let info = &systems[i];
    let list = if transitive { info.ancestors } else { info.dependencies };
    list.iter().copied()
}

/// Whether no unselected system lies on a dependency path between two
/// selected ones: then waiting for direct dependencies orders every pair
/// the declaration orders.
fn closed(systems: &[SystemInfo], selected: &[bool]) -> bool {
    systems.iter().enumerate().all(|(i, info)| {
        !selected[i]
            || info
                .dependencies
                .iter()
                .all(|&m| selected[m] || !systems[m].ancestors.iter().any(|&a| selected[a]))
    })
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// `a -> b -> c`.
    static CHAIN3: [SystemInfo; 3] = [
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
            dependents: &[2],
            ancestors: &[0],
        },
        SystemInfo {
            name: "c",
            type_name: "C",
            dependencies: &[1],
            dependents: &[],
            ancestors: &[0, 1],
        },
    ];

    #[test]
    fn a_dependent_made_ready_is_not_a_root() {
        let counters = Counters::new(&CHAIN3, &[true, true, true]);
        let mut ready = Vec::new();
        counters.finish(0, |d| ready.push(d));
        assert_eq!(ready, [1]);
        // The executor iterates the roots while the first ones already run:
        // `b` must not be started a second time from there.
        assert_eq!(counters.roots().collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn a_system_whose_dependencies_are_not_selected_is_a_root() {
        let counters = Counters::new(&CHAIN3, &[false, true, true]);
        assert_eq!(counters.roots().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn a_skipped_system_still_orders_its_neighbours() {
        // `a` and `c` run, `b` between them does not: `c` waits for `a`.
        let counters = Counters::new(&CHAIN3, &[true, false, true]);
        assert_eq!(counters.roots().collect::<Vec<_>>(), [0]);
        let mut ready = Vec::new();
        counters.finish(0, |d| ready.push(d));
        assert_eq!(ready, [2]);
    }

    /// A chain of `n` systems, `0 -> 1 -> ... -> n - 1`.
    fn chain(n: usize) -> &'static [SystemInfo] {
        let leak = |v: Vec<usize>| -> &'static [usize] { Box::leak(v.into_boxed_slice()) };
        let systems = (0..n)
            .map(|i| SystemInfo {
                name: "s",
                type_name: "S",
                dependencies: leak((0..i).rev().take(1).collect()),
                dependents: leak((i + 1..n).take(1).collect()),
                ancestors: leak((0..i).collect()),
            })
            .collect::<Vec<_>>();
        Box::leak(systems.into_boxed_slice())
    }

    /// The chains the test below uses, kept reachable (valgrind's leak check
    /// runs these tests).
    static CHAINS: std::sync::LazyLock<Vec<&'static [SystemInfo]>> = std::sync::LazyLock::new(|| {
        [1, INLINE - 1, INLINE, INLINE + 1, 3 * INLINE]
            .into_iter()
            .map(chain)
            .collect()
    });

    /// Graphs of up to `INLINE` systems keep their counters in the step's
    /// frame, larger ones on the heap: both count the same way.
    #[test]
    fn counters_inline_and_on_the_heap_make_each_link_ready_in_turn() {
        for &systems in CHAINS.iter() {
            let n = systems.len();
            let selected = vec![true; n];
            let counters = Counters::new(systems, &selected);
            assert_eq!(
                matches!(counters.pending, Pending::Inline(_)),
                n <= INLINE,
                "{n} systems"
            );
            assert_eq!(counters.roots().collect::<Vec<_>>(), [0]);
            for i in 0..n {
                let mut ready = Vec::new();
                counters.finish(i, |d| ready.push(d));
                let next: Vec<usize> = (i + 1..n).take(1).collect();
                assert_eq!(ready, next, "link {i} of {n}");
            }
        }
    }

    #[test]
    fn closed_selections_wait_for_direct_dependencies_only() {
        assert!(closed(&CHAIN3, &[true, true, true]));
        assert!(closed(&CHAIN3, &[false, true, true]), "run_from(b)");
        assert!(closed(&CHAIN3, &[false, false, true]));
        assert!(!closed(&CHAIN3, &[true, false, true]));
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
                    // SAFETY: what the test checks: a system runs after its
                    // dependencies finished (the counters' ordering), so their
                    // cells are no longer written, and it runs once, so its own
                    // cell has no other writer or reader; loom reports any
                    // access the counters fail to order.
                    let seen: usize = systems[i]
                        .dependencies
                        .iter()
                        .map(|&d| cells[d].with(|v| unsafe { *v }))
                        .sum();
                    // SAFETY: as above.
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
