//! The atomic-counter scheduler (thesis, section 10.3), on a [`Team`].
//!
//! Each system to run holds a count of its unfinished dependencies. Systems
//! with none start at once; finishing a system decrements its dependents'
//! counts and starts those that reach zero. The caller of the step runs
//! systems itself, helpers join when work is queued, and a thread waiting
//! for a system's subtasks runs other work meanwhile, so no thread count
//! can deadlock — unlike ECST's blocking waits.

use super::counters::{Counters, Plan};
use super::roots::MAX as MAX_PUBLISHED;
use super::team::{discard, keep_first, Payload, Shared, Team, Work};
use crate::decl::{ContextDecl, SystemInfo};
use core::mem::ManuallyDrop;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use parking_lot::Mutex;
use std::panic::{self, AssertUnwindSafe};

/// Runs the systems for which `selected[i]` holds (every system when
/// `selected` is `None`), each after its selected dependencies, calling `run(i)` for each, with `team` when given and on
/// the caller's thread otherwise. Returns when all have finished; a panic in
/// any of them is re-raised here once the others have stopped (systems
/// that wait for a panicking one do not run).
#[inline(always)]
pub(crate) fn execute<Cx: ContextDecl>(team: Option<&Team>, selected: Option<&[bool]>, run: &(dyn Fn(usize) + Sync)) {
    match team {
        // Without a team, in topological order on this thread: inlined into
        // the caller, which then calls its own closure directly (a step of
        // a small system spends as much in the calls around it as in it).
        None => {
            for &i in Cx::TOPOLOGICAL {
                if selected.is_none_or(|s| s[i]) {
                    run(i);
                }
            }
        }
        Some(team) => execute_on_team::<Cx>(team, selected, run),
    }
}

/// [`execute`] on `team`: the systems `selected` (every one when `None`)
/// after their dependencies, calling `run(i)` for each. `run_all` calls it
/// with `None` and its dispatching closure.
#[inline(always)]
pub(crate) fn execute_on_team<Cx: ContextDecl>(team: &Team, selected: Option<&[bool]>, run: &(dyn Fn(usize) + Sync)) {
    execute_systems(Cx::SYSTEMS, &<Cx as PlanOf>::PLAN, team, selected, run);
}

/// A declaration's [`Plan`], evaluated once per context type when it is
/// compiled (a constant, promoted to a static by the reference `execute`
/// takes).
trait PlanOf {
    const PLAN: Plan;
}

impl<Cx: ContextDecl> PlanOf for Cx {
    const PLAN: Plan = Plan::of(Cx::SYSTEMS);
}

/// [`execute`] on `team` for the systems `systems`: not generic, so that
/// the scheduler (and the team's and thread pool's generic code it uses) is
/// compiled once, in this crate, rather than in
/// every crate that declares a context.
///
/// `plan` is `Plan::of(systems)`.
fn execute_systems(
    systems: &'static [SystemInfo],
    plan: &Plan,
    team: &Team,
    selected: Option<&[bool]>,
    run: &(dyn Fn(usize) + Sync),
) {
    let counters = Counters::new(systems, selected, plan);
    // How many run, the first root (run on this thread), and the other
    // roots, published to idle threads without the lock
    // (`Team::publish_roots`) but for those past what that can hold, which
    // are queued (`tests/many_roots.rs` has roots past what can be
    // published). From the plan when every system runs.
    let (count, starts) = counters.starts(plan);
    let Some(first) = starts.first else {
        return;
    };
    let (published, far) = (starts.published, starts.far);
    let graph = Graph {
        team,
        systems,
        counters: &counters,
        run,
        unfinished: AtomicUsize::new(count),
        panics: ManuallyDrop::new(Mutex::new(Panics::default())),
        panicked: AtomicBool::new(false),
    };
    let template = graph.work(0);
    // Nothing below may unwind while queued systems may still run: they
    // point to `graph`. (`push` and `publish_roots` only lock, store and
    // allocate, and failing to allocate aborts.)
    let _step = AbortUnfinished(&graph.unfinished);
    if published != 0 {
        // SAFETY: `template` is `graph.work(0)`, whose `Work` invariant
        // holds for every index of a root (`work`); each root is published
        // once and run once by its claimer. The roots published by the
        // team's last step have all run: that step returned only once its
        // graph finished (`unfinished` read 0 below), and steps of one
        // team do not overlap (the context's `&mut self` in
        // `run_selected`, this function's only way in).
        unsafe { team.publish_roots(&template, published) };
    }
    if far {
        team.push(
            counters
                .roots()
                .skip(1)
                .filter(|&i| i >= MAX_PUBLISHED)
                .map(|i| graph.work(i)),
        );
    }
    // SAFETY: `graph` lives on this frame, past every use `run_chain` makes.
    // No wake-up when this chain finishes the graph: the only thread that
    // waits for that is this one, which looks at `unfinished` next.
    unsafe { Graph::run_chain(&graph, first, team.shared(), false) };
    // A graph whose systems all ran in this chain (a chain of systems, or
    // roots the helpers had finished) is done here: no call to wait.
    if graph.unfinished.load(Ordering::SeqCst) != 0 {
        team.shared()
            .work_until(|| graph.unfinished.load(Ordering::SeqCst) == 0);
    }
    // The panics are locked only after one: the lock and unlock were two
    // of the step's read-modify-writes, and on the step's tail, after the
    // wait (`Relaxed`: `panicked` is stored before the panicking link's
    // decrement of `unfinished`, whose 0 the `SeqCst` load above read).
    if graph.panicked.load(Ordering::Relaxed) {
        // Taken whole, so that the payload and the doomed systems' flags
        // are dropped here (`panics` is never dropped: a step without
        // panics leaves it empty, with nothing to free).
        let panics = core::mem::take(&mut *graph.panics.lock());
        drop(panics.doomed);
        if let Some(payload) = panics.first {
            panic::resume_unwind(payload);
        }
    }
}

/// Aborts on drop if the graph has not finished (only a bug in this module
/// could make that happen: queued systems would outlive it).
struct AbortUnfinished<'a>(&'a AtomicUsize);

impl Drop for AbortUnfinished<'_> {
    fn drop(&mut self) {
        if self.0.load(Ordering::SeqCst) != 0 {
            eprintln!("ecs: the scheduler unwound before its systems finished");
            std::process::abort();
        }
    }
}

struct Graph<'a> {
    team: &'a Team,
    systems: &'static [SystemInfo],
    counters: &'a Counters<'a>,
    run: &'a (dyn Fn(usize) + Sync),
    /// Selected systems that have neither finished nor been doomed; the
    /// graph may go once this reads 0.
    unfinished: AtomicUsize,
    /// What panicked (untouched, and unallocated, in a step without panics).
    /// Not dropped: `execute_systems` takes its contents out after a panic,
    /// and it holds nothing otherwise (its drop cost 18 instructions of
    /// every two-thread step, callgrind `schedule_team`).
    panics: ManuallyDrop<Mutex<Panics>>,
    /// Whether `panics` holds something: set under its lock, before the
    /// panicking link's end is counted in `unfinished`.
    panicked: AtomicBool,
}

impl<'a> Graph<'a> {
    /// The queue item that runs system `i` and the chain it starts.
    fn work(&self, i: usize) -> Work {
        fn shareable<T: Sync>(_: &T) {}
        shareable(self);
        // SAFETY: `execute` keeps the graph until `unfinished` reads 0, which
        // `run_chain` makes visible as its last use of the graph (it holds no
        // reference to the graph past that point); a graph shares only
        // `Sync` data; each system is queued once, when its counter reaches
        // zero (or as a root), so `call` runs it once.
        unsafe { Work::new(Graph::call, (self as *const Graph<'a>).cast::<()>(), i) }
    }

    /// # Safety
    /// `data` points to a live `Graph` (the invariant of [`Work`]) and system
    /// `i` is ready and started nowhere else.
    unsafe fn call(data: *const (), i: usize, shared: &Shared) {
        // SAFETY: the caller guarantees `data` points to a live graph, with
        // system `i` ready and started nowhere else.
        unsafe { Graph::run_chain(data.cast::<Graph<'_>>(), i, shared, true) }
    }

    /// Runs system `i`, then the dependents it makes ready: the first on
    /// this thread, the others queued. Continuing a chain on the thread that
    /// ran its previous system keeps the chain's components in that core's
    /// cache and saves a trip through the queue per link.
    ///
    /// The graph comes as a pointer, not `&self`: the thread that owns it
    /// frees it as soon as `unfinished` reads 0, which may be while this
    /// function is still returning, and a reference argument would have to
    /// stay valid until the function returns. References to the graph live
    /// only inside [`run_link`](Self::run_link) and across the decrement of
    /// `unfinished` (an atomic, which may be freed under its own
    /// `fetch_sub` like an `Arc`'s count).
    ///
    /// `wake`: whether to wake sleeping threads when this chain finishes the
    /// graph (the step's caller may be waiting for it); not needed on the
    /// caller's own thread, which checks the count next (each wake-up
    /// writes the doorbell's cache line, which the helpers share: 0.1 µs
    /// of a two-thread step of `schedule`, `benches/peers/examples/schedule_threads`).
    ///
    /// # Safety
    /// `graph` points to a live graph, which stays until `unfinished` reads
    /// 0; system `i` is ready and started nowhere else.
    ///
    /// The chain's links are counted off `unfinished` once, when it ends:
    /// a decrement per link was a locked read-modify-write each (two of a
    /// three-link chain's three, callgrind `schedule_team`). Only the
    /// graph's owner waits for that count, and it waits for the whole graph
    /// anyway; the dependents a link makes ready are released by the
    /// dependency counters, not by this count.
    unsafe fn run_chain(graph: *const Self, mut i: usize, shared: &Shared, wake: bool) {
        let mut finished = 0;
        loop {
            // SAFETY: system `i` is unfinished, and so are the links of
            // this chain run before it (not yet counted off), so
            // `unfinished` is above 0 and the graph stays; the reference
            // ends with the call.
            let (link, next) = unsafe { &*graph }.run_link(i);
            finished += link;
            match next {
                Some(d) => i = d,
                None => break,
            }
        }
        // SAFETY: as above, until this decrement; the reference names the
        // atomic alone.
        let unfinished = unsafe { &(*graph).unfinished };
        let before = unfinished.fetch_sub(finished, Ordering::SeqCst);
        // The graph may be gone once this reads 0 elsewhere: from here on,
        // only `shared`.
        if wake && before == finished {
            shared.notify();
        }
    }

    /// Runs system `i` and queues the dependents it makes ready but the
    /// first, which it returns with how many systems `i`'s run finished
    /// (1, plus the descendants a panic dooms).
    ///
    /// Never unwinds, so that `run_chain` always reaches its decrement of
    /// `unfinished` (which a guard could not do for it: how many systems a
    /// link finished, and which dependents it made ready, is known only
    /// once the link has run): the system runs inside `catch_unwind`, a
    /// payload not kept is [`discard`]ed, and the rest is this module's
    /// code, which only allocates (failure aborts). Were it to unwind
    /// anyway, `AbortUnfinished` (on the caller's thread) or rayon (on a helper's)
    /// aborts the process before a queued system could outlive the graph.
    fn run_link(&self, i: usize) -> (usize, Option<usize>) {
        let mut finished = 1;
        let mut next = None;
        match panic::catch_unwind(AssertUnwindSafe(|| (self.run)(i))) {
            Ok(()) => {
                // Made only for a second ready dependent: an empty `Vec`
                // built, tested and dropped at every link cost 11
                // instructions a step of `schedule_team` (83 194 -> 83 183).
                let mut more: Option<Vec<Work>> = None;
                self.counters.finish(i, |d| match next {
                    None => next = Some(d),
                    Some(_) => more.get_or_insert_with(Vec::new).push(self.work(d)),
                });
                if let Some(ready) = more {
                    self.team.push(ready);
                }
            }
            Err(payload) => {
                let unkept = {
                    let mut panics = self.panics.lock();
                    self.panicked.store(true, Ordering::Relaxed);
                    finished += self.doom_descendants(i, &mut panics.doomed);
                    keep_first(&mut panics.first, payload)
                };
                // The step re-raises the first panic; a later one's payload
                // is dropped where its own panic cannot escape: unwinding
                // from here would skip `run_chain`'s decrement of
                // `unfinished`, which the caller waits for.
                if let Some(payload) = unkept {
                    discard(payload);
                }
            }
        }
        (finished, next)
    }

    /// Marks the selected systems that wait (directly or not) for the
    /// panicked system `i` as never running; returns how many it newly
    /// marked. They cannot have started: `i` never finishes, and a selected
    /// descendant waits for it through selected systems (`Counters`).
    fn doom_descendants(&self, i: usize, doomed: &mut Vec<bool>) -> usize {
        doomed.resize(self.systems.len(), false);
        (0..self.systems.len())
            .filter(|&d| {
                self.counters.is_selected(d)
                    && self.systems[d].ancestors.binary_search(&i).is_ok()
                    && !core::mem::replace(&mut doomed[d], true)
            })
            .count()
    }
}

/// The panics of one run of the graph.
#[derive(Default)]
struct Panics {
    /// The first panic's payload, re-raised once the graph has finished.
    first: Option<Payload>,
    /// Which systems will not run because an ancestor panicked (empty until
    /// the first panic).
    doomed: Vec<bool>,
}
