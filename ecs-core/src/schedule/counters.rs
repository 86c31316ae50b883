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

use super::roots::MAX as MAX_PUBLISHED;
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
    /// Which systems run: `None` when all do (then `all`).
    selected: Option<&'a [bool]>,
    /// Every system selected.
    all: bool,
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

/// How a step's selected systems start: the first root (run by the step's
/// caller), the other roots below [`MAX_PUBLISHED`] (published to idle
/// threads as bits) and whether there are roots past those (queued).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Starts {
    pub(crate) first: Option<usize>,
    pub(crate) published: u64,
    pub(crate) far: bool,
}

impl Starts {
    const NONE: Self = Self {
        first: None,
        published: 0,
        far: false,
    };

    /// Adds root `i`; roots come in ascending order.
    #[inline]
    const fn add(&mut self, i: usize) {
        if self.first.is_none() {
            self.first = Some(i);
        } else if i < MAX_PUBLISHED {
            self.published |= 1 << i;
        } else {
            self.far = true;
        }
    }
}

/// What a step with every system selected (`run_all`, the common step)
/// starts from, fixed by the declaration: computed once per context type at
/// compile time (`Plan::of` in a constant) instead of at each step. Each
/// step of `run_all` on a team counted its selected systems, looked for
/// its roots in their dependency lists and built its counters from them
/// (BENCHMARKS.md, "schedule on two threads, the step's fixed part").
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// Each system's dependency count, for graphs of up to [`INLINE`]
    /// systems (0 past the last system; unused for larger graphs).
    counts: [usize; INLINE],
    /// The roots: the systems with no dependencies.
    pub(crate) starts: Starts,
}

impl Plan {
    /// The plan of every system of `systems`.
    pub(crate) const fn of(systems: &[SystemInfo]) -> Self {
        let mut plan = Plan {
            counts: [0; INLINE],
            starts: Starts::NONE,
        };
        let mut i = 0;
        while i < systems.len() {
            let n = systems[i].dependencies.len();
            if i < INLINE {
                plan.counts[i] = n;
            }
            if n == 0 {
                plan.starts.add(i);
            }
            i += 1;
        }
        plan
    }
}

impl<'a> Counters<'a> {
    /// The counters of a step running the systems `selected` (every system
    /// when `None`); `plan` is `Plan::of(systems)`, which gives them when
    /// every system is selected.
    #[inline]
    pub(crate) fn new(systems: &'a [SystemInfo], selected: Option<&'a [bool]>, plan: &Plan) -> Self {
        // Every system selected (`run_all`, the common step): closed, and
        // each waits for all its dependencies, counted without looking
        // whether each is selected. `run_all` says so by `None`, rather than
        // by a slice of `true`s to scan here and to index at each decrement
        // (benches/peers/gaps.md, round `cc24a`); a selection that happens to
        // hold every system is told apart by that scan.
        let selected = selected.filter(|s| !s.iter().all(|&s| s));
        let all = selected.is_none();
        if all && systems.len() <= INLINE {
            return Self {
                systems,
                selected,
                all,
                transitive: false,
                pending: Pending::Inline(plan.counts.map(AtomicUsize::new)),
            };
        }
        let transitive = selected.is_some_and(|s| !closed(systems, s));
        let count = |i: usize| {
            AtomicUsize::new(match selected {
                None => systems[i].dependencies.len(),
                Some(s) => waits_on(systems, transitive, i).filter(|&d| s[d]).count(),
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
            all,
            transitive,
            pending,
        }
    }

    /// Whether system `i` runs in this step.
    #[inline]
    pub(crate) fn is_selected(&self, i: usize) -> bool {
        match self.selected {
            None => true,
            Some(s) => s[i],
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
        (0..self.systems.len()).filter(|&i| self.is_selected(i) && self.is_root(i))
    }

    /// Whether the selected system `i` waits for nothing selected (see
    /// [`roots`](Self::roots)).
    #[inline]
    pub(crate) fn is_root(&self, i: usize) -> bool {
        !self.waits_on(i).any(|d| self.is_selected(d))
    }

    /// How many systems are selected, and how they start (the roots, as
    /// [`roots`](Self::roots) lists them), in one pass over the systems.
    /// (A count of the selected systems, then the roots through `roots`'
    /// iterator: 85 instructions more per step, 83 516 against 83 431 for
    /// the chained two-thread `schedule` of
    /// `benches/peers/examples/callgrind.rs schedule_team`.)
    ///
    /// `plan` is `Plan::of(systems)`: with every system selected, it is the
    /// answer.
    pub(crate) fn starts(&self, plan: &Plan) -> (usize, Starts) {
        if self.all {
            return (self.systems.len(), plan.starts);
        }
        self.counted_starts()
    }

    /// [`starts`](Self::starts) counted from the selection.
    fn counted_starts(&self) -> (usize, Starts) {
        let mut starts = Starts::NONE;
        let mut count = 0;
        for i in (0..self.systems.len()).filter(|&i| self.is_selected(i)) {
            count += 1;
            if self.is_root(i) {
                starts.add(i);
            }
        }
        (count, starts)
    }

    /// Records that system `i` finished; calls `ready` with each waiting
    /// system for which `i` was the last unfinished one it waited for.
    #[inline]
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

    #[inline]
    fn decrement(&self, d: usize, ready: &mut impl FnMut(usize)) {
        if !self.is_selected(d) {
            return;
        }
        let pending = self.pending.get(d);
        // Each system `d` waits for decrements its counter once: reading 1
        // before this one's decrement, every other has decremented, and
        // this one is the last. Then `d` is ready and nothing reads the
        // counter again, so the locked decrement is skipped: a system
        // waiting for one system alone (each link of a chain) costs a load.
        // (Acquire: it reads the last other decrement, whose release
        // sequence holds every earlier one's release.)
        if pending.load(Ordering::Acquire) == 1 {
            ready(d);
            return;
        }
        // AcqRel: the release publishes what the finished system wrote; the
        // acquire of the last decrement sees every earlier one's release
        // (they form one release sequence on this counter), so `d` starts
        // after all the systems it waits for in happens-before order.
        if pending.fetch_sub(1, Ordering::AcqRel) == 1 {
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
        let counters = Counters::new(&CHAIN3, None, &Plan::of(&CHAIN3));
        let mut ready = Vec::new();
        counters.finish(0, |d| ready.push(d));
        assert_eq!(ready, [1]);
        // The executor iterates the roots while the first ones already run:
        // `b` must not be started a second time from there.
        assert_eq!(counters.roots().collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn a_system_whose_dependencies_are_not_selected_is_a_root() {
        let counters = Counters::new(&CHAIN3, Some(&[false, true, true]), &Plan::of(&CHAIN3));
        assert_eq!(counters.roots().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn a_skipped_system_still_orders_its_neighbours() {
        // `a` and `c` run, `b` between them does not: `c` waits for `a`.
        let counters = Counters::new(&CHAIN3, Some(&[true, false, true]), &Plan::of(&CHAIN3));
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
    /// frame, larger ones on the heap: both count the same way, with every
    /// system selected by `None` (`run_all`) or by a slice of `true`s.
    #[test]
    fn counters_inline_and_on_the_heap_make_each_link_ready_in_turn() {
        for &systems in CHAINS.iter() {
            let n = systems.len();
            let every = vec![true; n];
            for selected in [None, Some(&every[..])] {
                let counters = Counters::new(systems, selected, &Plan::of(systems));
                assert!(counters.all && (0..n).all(|i| counters.is_selected(i)), "{n} systems");
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
    }

    /// `n` systems, none ordered: every one a root.
    fn independent(n: usize) -> &'static [SystemInfo] {
        let info = SystemInfo {
            name: "s",
            type_name: "S",
            dependencies: &[],
            dependents: &[],
            ancestors: &[],
        };
        Box::leak(vec![info; n].into_boxed_slice())
    }

    static INDEPENDENT: std::sync::LazyLock<Vec<&'static [SystemInfo]>> = std::sync::LazyLock::new(|| {
        [2, MAX_PUBLISHED, MAX_PUBLISHED + 3]
            .into_iter()
            .map(independent)
            .collect()
    });

    /// The plan a declaration's constant gives `run_all` is what the step
    /// counted from the selection before: the same roots, and every counter
    /// at the system's dependency count.
    #[test]
    fn the_plan_starts_every_system_as_counting_would() {
        let graphs = [&CHAIN3[..]]
            .into_iter()
            .chain(CHAINS.iter().copied())
            .chain(INDEPENDENT.iter().copied());
        for systems in graphs {
            let n = systems.len();
            let plan = Plan::of(systems);
            let counters = Counters::new(systems, None, &plan);
            assert_eq!(counters.starts(&plan), counters.counted_starts(), "{n} systems");
            for (i, info) in systems.iter().enumerate() {
                assert_eq!(counters.pending.get(i).load(Ordering::Relaxed), info.dependencies.len());
            }
        }
        let many = Plan::of(INDEPENDENT[2]).starts;
        assert_eq!(many.first, Some(0));
        assert_eq!(many.published, !1, "roots 1 to 63 published");
        assert!(many.far, "roots past 63 queued");
        let few = Plan::of(&CHAIN3).starts;
        assert_eq!((few.first, few.published, few.far), (Some(0), 0, false));
    }

    /// A selection that is not every system counts its own roots.
    #[test]
    fn a_partial_selection_starts_from_its_own_roots() {
        let plan = Plan::of(&CHAIN3);
        let counters = Counters::new(&CHAIN3, Some(&[false, true, true]), &plan);
        let (count, starts) = counters.starts(&plan);
        assert_eq!(
            (count, starts.first, starts.published, starts.far),
            (2, Some(1), 0, false)
        );
        assert_eq!(counters.pending.get(1).load(Ordering::Relaxed), 0);
        assert_eq!(counters.pending.get(2).load(Ordering::Relaxed), 1);
        assert!(!counters.all && !counters.is_selected(0) && counters.is_selected(2));
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
            let counters = Arc::new(Counters::new(systems, Some(selected), &Plan::of(systems)));
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
