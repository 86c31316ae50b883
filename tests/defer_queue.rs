//! Deferred functions live in one inline queue per subtask (no box each):
//! they run in system, subtask and call order; a step that defers as many
//! as the last allocates nothing; a panicking function or a panicking
//! system drops what it leaves without running it, each capture once.

use ecs::{Data, Defer, System};
use std::alloc::{GlobalAlloc, Layout, System as Heap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Counts allocations made on a thread that asked to be counted.
struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
thread_local! { static COUNTED: core::cell::Cell<bool> = const { core::cell::Cell::new(false) }; }

// SAFETY: forwards to the system allocator, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTED.with(|c| c.get()) {
            ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        }
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { Heap.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { Heap.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

pub struct Val(pub u32);
pub struct Marked;

/// What deferred functions record: `(system, value)`.
type Log = Arc<Mutex<Vec<(u8, u32)>>>;

/// Defers one function per entity that records `(system, value)`.
#[derive(Default)]
pub struct First {
    pub log: Option<Log>,
    pub panic_at: Option<u32>,
}
#[derive(Default)]
pub struct Second {
    pub log: Option<Log>,
}
/// Defers a fixed number of functions that only count.
#[derive(Default)]
pub struct Counter;

/// Defers five functions holding a `Loud` each; function `panic_at` panics.
#[derive(Default)]
pub struct Panicky {
    pub plan: Option<(Arc<AtomicUsize>, Arc<AtomicUsize>, usize)>,
}

static COUNTED_RUNS: AtomicUsize = AtomicUsize::new(0);

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(64), inner_parallelism: allow }
        components { Val: contiguous; Marked: tag; }
        systems {
            first: First { read: [Val], parallelism: split_every(8) }
            second: Second { read: [Val], after: [first] }
            counter: Counter { read: [Marked] }
            panicky: Panicky { read: [Val] }
        }
    }
}

impl System<World> for First {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let Some(log) = self.log.clone() else { return };
        let panic_at = self.panic_at;
        data.for_entities::<&Val>(|view, v| {
            let (v, log) = (v.0, Arc::clone(&log));
            assert!(Some(v) != panic_at, "system panics at {v}");
            view.defer(move |_| log.lock().unwrap().push((1, v)));
        });
    }
}

impl System<World> for Second {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let Some(log) = self.log.clone() else { return };
        data.for_entities::<&Val>(|view, v| {
            let (v, log) = (v.0, Arc::clone(&log));
            view.defer(move |_| log.lock().unwrap().push((2, v)));
        });
    }
}

impl System<World> for Counter {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_entities::<&Marked>(|view, _| {
            let payload = [7u64; 3];
            view.defer(move |_: &mut Defer<'_, World>| {
                COUNTED_RUNS.fetch_add(payload[0] as usize / 7, Ordering::Relaxed);
            });
        });
    }
}

fn world(threads: usize, n: u32) -> World {
    let mut w = World::with_threads(WorldSystems::default(), Some(threads));
    w.step(|p| {
        p.spawn_batch((0..n).map(|i| (Val(i),))).unwrap();
    });
    w
}

#[test]
fn deferred_functions_run_in_system_subtask_and_call_order() {
    for threads in [1, 2] {
        let mut w = world(threads, 40);
        let log = Arc::new(Mutex::new(Vec::new()));
        w.step(|p| {
            p.system_mut::<First>().log = Some(Arc::clone(&log));
            p.system_mut::<Second>().log = Some(Arc::clone(&log));
        });
        w.step(|p| p.run_all(&()));
        let want: Vec<(u8, u32)> = (0..40).map(|i| (1, i)).chain((0..40).map(|i| (2, i))).collect();
        assert_eq!(*log.lock().unwrap(), want, "threads: {threads}");
    }
}

#[test]
fn a_panicking_system_leaves_no_deferred_function_behind() {
    for threads in [1, 2] {
        let mut w = world(threads, 40);
        let log = Arc::new(Mutex::new(Vec::new()));
        w.step(|p| {
            p.system_mut::<First>().log = Some(Arc::clone(&log));
            p.system_mut::<First>().panic_at = Some(20);
        });
        let r = catch_unwind(AssertUnwindSafe(|| w.step(|p| p.run_all(&()))));
        assert!(r.is_err());
        assert!(
            log.lock().unwrap().is_empty(),
            "threads {threads}: nothing of the panicking run is applied"
        );
        // Every capture of the dropped functions is gone: only ours holds the log.
        assert_eq!(
            Arc::strong_count(&log),
            2,
            "threads {threads}: the system state and this test"
        );
        // The next run applies only its own functions.
        w.step(|p| p.system_mut::<First>().panic_at = None);
        w.step(|p| p.run_all(&()));
        assert_eq!(log.lock().unwrap().len(), 40, "threads {threads}");
    }
}

/// Counts its drops.
struct Loud(Arc<AtomicUsize>);
impl Drop for Loud {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl System<World> for Panicky {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let Some((drops, ran, panic_at)) = &self.plan else {
            return;
        };
        for k in 0..5 {
            let (loud, ran) = (Loud(Arc::clone(drops)), Arc::clone(ran));
            let panics = k == *panic_at;
            data.defer(move |_| {
                let _loud = loud;
                assert!(!panics, "deferred function {k} panics");
                ran.fetch_add(1, Ordering::SeqCst);
            });
        }
    }
}

#[test]
fn a_panicking_deferred_function_drops_the_rest_once_and_the_context_goes_on() {
    for threads in [1, 2] {
        let mut w = world(threads, 4);
        let drops = Arc::new(AtomicUsize::new(0));
        let ran = Arc::new(AtomicUsize::new(0));
        w.step(|p| p.system_mut::<Panicky>().plan = Some((Arc::clone(&drops), Arc::clone(&ran), 2)));
        let r = catch_unwind(AssertUnwindSafe(|| w.step(|p| p.run_all(&()))));
        assert!(r.is_err(), "the deferred function's panic reaches the caller");
        assert_eq!(ran.load(Ordering::SeqCst), 2, "functions 0 and 1 ran, 3 and 4 did not");
        assert_eq!(drops.load(Ordering::SeqCst), 5, "every capture dropped once");
        // The context goes on, and nothing of the panicking queue is left.
        w.step(|p| p.system_mut::<Panicky>().plan = None);
        w.step(|p| p.run_all(&()));
        assert_eq!(ran.load(Ordering::SeqCst), 2);
        assert_eq!(w.len(), 4);
    }
}

#[test]
fn a_step_deferring_as_much_as_the_last_allocates_nothing() {
    let mut w = world(1, 0);
    w.step(|p| {
        p.spawn_batch((0..64).map(|_| (Marked,))).unwrap();
    });
    for _ in 0..3 {
        w.step(|p| p.run_all(&()));
    }
    COUNTED_RUNS.store(0, Ordering::SeqCst);
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTED.with(|c| c.set(true));
    w.step(|p| p.run_all(&()));
    COUNTED.with(|c| c.set(false));
    assert_eq!(COUNTED_RUNS.load(Ordering::SeqCst), 64, "64 functions ran");
    assert_eq!(ALLOCATIONS.load(Ordering::SeqCst), 0, "the queues kept their memory");
}

/// Marks the entities of `later_queues`.
pub struct Mark;
/// Defers one panicking function when armed.
#[derive(Default)]
pub struct Bomb {
    pub armed: bool,
}
/// Kills every entity it processes and defers one function counting its
/// runs.
#[derive(Default)]
pub struct Reaper {
    pub runs: Arc<AtomicUsize>,
}

ecs::declare_context! {
    pub context Queues {
        settings { threads: 1 }
        components { Mark: contiguous; }
        systems {
            bomb: Bomb { read: [Mark] }
            reaper: Reaper { read: [Mark], after: [bomb] }
        }
    }
}

impl System<Queues> for Bomb {
    fn process(&self, data: &mut Data<'_, Queues, Self>, _: &()) {
        if self.armed {
            data.defer(|_| panic!("the bomb's deferred function"));
        }
    }
}

impl System<Queues> for Reaper {
    fn process(&self, data: &mut Data<'_, Queues, Self>, _: &()) {
        let ids: Vec<_> = data.entities().to_vec();
        for id in ids {
            data.kill(id);
        }
        let runs = Arc::clone(&self.runs);
        data.defer(move |_| {
            runs.fetch_add(1, Ordering::SeqCst);
        });
    }
}

#[test]
fn what_a_panicking_deferred_function_left_queued_is_applied_by_the_next_refresh() {
    let mut w = Queues::new();
    w.step(|p| {
        for _ in 0..3 {
            p.spawn((Mark,)).unwrap();
        }
        p.system_mut::<Bomb>().armed = true;
    });
    let runs = Arc::clone(&w.system::<Reaper>().runs);
    let r = catch_unwind(AssertUnwindSafe(|| w.step(|p| p.run_all(&()))));
    assert!(r.is_err(), "the bomb's panic reaches the caller");
    // The bomb's queue ran first and panicked: the reaper's function and
    // kills are still queued.
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(w.len(), 3);
    // The next refresh, with no system run, applies them.
    w.step(|p| p.system_mut::<Bomb>().armed = false);
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the reaper's function ran once");
    assert_eq!(w.len(), 0, "the reaper's kills applied");
}
