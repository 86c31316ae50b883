//! The parallel scheduler: dependencies respected, independent chains
//! overlapping, identical results whatever the thread count and inner
//! parallelism, strategies splitting as declared, panics propagating.

use ecs::{Data, EntityId, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct A(pub u64);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct B(pub u64);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct C(pub u64);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D(pub u64);

/// A global event clock: every system records when it started and finished.
#[derive(Default)]
pub struct Clock {
    pub tick: AtomicUsize,
    /// (system index, start tick, end tick) of each run.
    pub log: std::sync::Mutex<Vec<(usize, usize, usize)>>,
    pub jitter: AtomicUsize,
    /// One more than the index of a system whose every subtask panics.
    pub boom: AtomicUsize,
}

impl Clock {
    fn record(&self, system: usize, work: impl FnOnce()) {
        if self.boom.load(Ordering::Relaxed) == system + 1 {
            panic!("boom in system {system}");
        }
        let start = self.tick.fetch_add(1, Ordering::SeqCst);
        // Jittered busy work so that orders vary between steps.
        let n = self.jitter.fetch_add(7919, Ordering::Relaxed) % 2000;
        let mut x = 0u64;
        for i in 0..n {
            x = x.wrapping_mul(31).wrapping_add(i as u64);
        }
        std::hint::black_box(x);
        work();
        let end = self.tick.fetch_add(1, Ordering::SeqCst);
        self.log.lock().unwrap().push((system, start, end));
    }
}

macro_rules! graph_systems {
    ($($name:ident),*) => { $( #[derive(Default)] pub struct $name; )* };
}
graph_systems!(S0, S1, S2, S3, S4, S5, S6, S7);

ecs::declare_context! {
    /// A diamond (s0 -> s1, s2 -> s3), an independent chain (s4 -> s5), and
    /// two independent roots feeding s7 (s6, s5 -> s7).
    pub context Graph {
        settings { entities: dynamic, inner_parallelism: allow, threads: 2 }
        components { A, B, C, D: contiguous; }
        systems {
            s0: S0 { write: [A], parallelism: split_every(7) }
            s1: S1 { read: [A], after: [s0], parallelism: split_evenly_per_core }
            s2: S2 { read: [A], write: [B], after: [s0] }
            s3: S3 { read: [B], write: [A], after: [s1, s2], parallelism: split_every(3) }
            s4: S4 { write: [C] }
            s5: S5 { read: [C], after: [s4] }
            s6: S6 { write: [D] }
            s7: S7 { read: [C], write: [D], after: [s5, s6] }
        }
    }
}

macro_rules! impl_graph {
    ($($sys:ident: $i:literal => $body:expr;)*) => {$(
        impl System<Graph, Clock> for $sys {
            fn process(&self, data: &mut Data<'_, Graph, Self>, clock: &Clock) {
                clock.record($i, || $body(data));
            }
        }
    )*};
}

impl_graph! {
    S0: 0 => |d: &mut Data<'_, Graph, S0>| d.for_each::<&mut A>(|a| a.0 += 1);
    S1: 1 => |d: &mut Data<'_, Graph, S1>| d.for_each::<&A>(|a| { std::hint::black_box(a); });
    S2: 2 => |d: &mut Data<'_, Graph, S2>| d.for_each::<(&A, &mut B)>(|(a, b)| b.0 = a.0.wrapping_mul(2));
    S3: 3 => |d: &mut Data<'_, Graph, S3>| d.for_each::<(&B, &mut A)>(|(b, a)| a.0 = b.0.wrapping_add(1));
    S4: 4 => |d: &mut Data<'_, Graph, S4>| d.for_each::<&mut C>(|c| c.0 += 3);
    S5: 5 => |d: &mut Data<'_, Graph, S5>| d.for_each::<&C>(|c| { std::hint::black_box(c); });
    S6: 6 => |d: &mut Data<'_, Graph, S6>| d.for_each::<&mut D>(|x| x.0 += 1);
    S7: 7 => |d: &mut Data<'_, Graph, S7>| d.for_each::<(&C, &mut D)>(|(c, x)| x.0 = x.0.wrapping_add(c.0));
}

#[test]
fn dependencies_are_respected_over_many_steps() {
    let mut g = Graph::new();
    let handles: Vec<_> = g.step(|p| (0..50u64).map(|i| p.spawn((A(i), B(0), C(i), D(0))).unwrap()).collect());
    let clock = Clock::default();
    for _ in 0..1000 {
        clock.log.lock().unwrap().clear();
        g.step(|p| p.run_all(&clock));
        let log = clock.log.lock().unwrap();
        // A subtask records one entry; a system starts at its first subtask's
        // start and ends at its last subtask's end.
        let span = |s: usize| {
            let runs: Vec<_> = log.iter().filter(|r| r.0 == s).collect();
            assert!(!runs.is_empty(), "system {s} ran");
            (
                runs.iter().map(|r| r.1).min().unwrap(),
                runs.iter().map(|r| r.2).max().unwrap(),
            )
        };
        for (i, info) in <Graph as ecs::traits::ContextDecl>::SYSTEMS.iter().enumerate() {
            for &d in info.dependencies {
                assert!(
                    span(d).1 < span(i).0,
                    "{} started before its dependency {} ended",
                    info.name,
                    d
                );
            }
        }
    }
    // And the results are those of running the systems one by one in order.
    g.step(|p| {
        for (i, &h) in handles.iter().enumerate() {
            let (mut a, mut b, mut c, mut d) = (i as u64, 0u64, i as u64, 0u64);
            for _ in 0..1000 {
                a = a.wrapping_add(1); // s0, once per step whatever the split
                b = a.wrapping_mul(2); // s2
                a = b.wrapping_add(1); // s3
                c += 3; // s4
                d += 1; // s6
                d = d.wrapping_add(c); // s7
            }
            assert_eq!(p.get::<A>(h), Some(&A(a)));
            assert_eq!(p.get::<B>(h), Some(&B(b)));
            assert_eq!(p.get::<C>(h), Some(&C(c)));
            assert_eq!(p.get::<D>(h), Some(&D(d)));
        }
    });
}

/// Aborts the test process, saying `what`, unless stopped within 120 s: a
/// hang becomes a failure.
struct Watchdog {
    stopped: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Watchdog {
    fn start(what: &'static str) -> Self {
        let stopped = Arc::new(AtomicBool::new(false));
        let flag = stopped.clone();
        let thread = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(120);
            while !flag.load(Ordering::SeqCst) {
                if Instant::now() > deadline {
                    eprintln!("{what}");
                    std::process::abort();
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Self { stopped, thread }
    }

    fn stop(self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.thread.join().unwrap();
    }
}

#[test]
fn panicking_systems_on_any_thread_count_neither_hang_nor_run_their_dependents() {
    // A lost wake-up or a miscounted graph would hang a step: abort then.
    let watchdog = Watchdog::start("a step hung");
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let expected = info
            .payload()
            .downcast_ref::<String>()
            .is_some_and(|m| m.starts_with("boom in system"));
        if !expected {
            default_hook(info);
        }
    }));
    let systems = <Graph as ecs::traits::ContextDecl>::SYSTEMS;
    for threads in [2, 3, 8] {
        let mut g = Graph::with_threads(Default::default(), Some(threads));
        g.step(|p| {
            for i in 0..50u64 {
                p.spawn((A(i), B(0), C(i), D(0))).unwrap();
            }
        });
        let clock = Clock::default();
        for step in 0..400 {
            // Every third step, one system panics, each in turn.
            let boom = if step % 3 == 0 { step / 3 % systems.len() + 1 } else { 0 };
            clock.boom.store(boom, Ordering::Relaxed);
            clock.log.lock().unwrap().clear();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| g.step(|p| p.run_all(&clock))));
            assert_eq!(result.is_err(), boom != 0, "step {step} on {threads} threads");
            let ran: Vec<usize> = clock.log.lock().unwrap().iter().map(|r| r.0).collect();
            for (i, info) in systems.iter().enumerate() {
                let doomed = boom != 0 && (i == boom - 1 || info.ancestors.contains(&(boom - 1)));
                assert_eq!(
                    ran.contains(&i),
                    !doomed,
                    "step {step}, {threads} threads: {} ran: {}",
                    info.name,
                    ran.contains(&i)
                );
            }
        }
    }
    let _ = std::panic::take_hook();
    watchdog.stop();
}

/// Two systems that each wait (bounded) to see the other running.
pub struct Meet {
    pub me: usize,
    pub flags: Arc<[AtomicBool; 2]>,
    pub met: Arc<AtomicUsize>,
}

pub struct Left(pub Meet);
pub struct Right(pub Meet);

ecs::declare_context! {
    pub context Pair {
        settings { threads: 2 }
        components { A: contiguous; }
        systems {
            left: Left {}
            right: Right {}
        }
    }
}

impl Meet {
    fn run(&self) {
        self.flags[self.me].store(true, Ordering::SeqCst);
        // Long enough for the other thread to start under valgrind, which
        // runs one thread at a time (10 s was not, once); the systems leave
        // as soon as they meet.
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if self.flags[1 - self.me].load(Ordering::SeqCst) {
                self.met.fetch_add(1, Ordering::SeqCst);
                break;
            }
            std::thread::yield_now();
        }
    }
}

impl System<Pair> for Left {
    fn process(&self, _: &mut Data<'_, Pair, Self>, _: &()) {
        self.0.run()
    }
}

impl System<Pair> for Right {
    fn process(&self, _: &mut Data<'_, Pair, Self>, _: &()) {
        self.0.run()
    }
}

#[test]
fn independent_systems_overlap_on_two_threads() {
    let flags = Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
    let met = Arc::new(AtomicUsize::new(0));
    let meet = |me| Meet {
        me,
        flags: flags.clone(),
        met: met.clone(),
    };
    let mut pair = Pair::with_systems(PairSystems {
        left: Left(meet(0)),
        right: Right(meet(1)),
    });
    pair.step(|p| p.run_all(&()));
    assert_eq!(met.load(Ordering::SeqCst), 2, "each system saw the other one running");
}

// The same systems under several settings: results must not depend on them.
macro_rules! numeric_context {
    ($name:ident, $($settings:tt)*) => {
        ecs::declare_context! {
            pub context $name {
                settings { $($settings)* }
                components { A, B: contiguous; C: sparse_set; }
                systems {
                    grow: Grow { write: [A], parallelism: split_evenly_per_core }
                    mix: Mix { read: [A], write: [B], after: [grow], parallelism: split_every(37), output: u64 }
                    tally: Tally { read: [B], write: [C], after: [mix], parallelism: none_below(100, split_every(10)) }
                }
            }
        }
        impl System<$name> for Grow {
            fn process(&self, data: &mut Data<'_, $name, Self>, _: &()) {
                data.for_each::<&mut A>(|a| a.0 = a.0.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        impl System<$name> for Mix {
            fn process(&self, data: &mut Data<'_, $name, Self>, _: &()) {
                let mut sum = 0u64;
                data.for_each::<(&A, &mut B)>(|(a, b)| {
                    b.0 ^= a.0 >> 7;
                    sum = sum.wrapping_add(b.0);
                });
                *data.output() = sum;
            }
        }
        impl System<$name> for Tally {
            fn process(&self, data: &mut Data<'_, $name, Self>, _: &()) {
                let total: u64 = data.outputs::<Mix>().iter().fold(0, |s, x| s.wrapping_add(*x));
                data.for_entities::<(EntityId, &B, &mut C)>(|view, (id, b, c)| {
                    c.0 = c.0.wrapping_add(b.0 ^ total);
                    if c.0 % 97 == 0 {
                        view.kill(id);
                    }
                });
            }
        }
    };
}

#[derive(Default)]
pub struct Grow;
#[derive(Default)]
pub struct Mix;
#[derive(Default)]
pub struct Tally;

mod one_thread {
    use super::*;
    numeric_context!(Ctx, threads: 1, inner_parallelism: allow);
}
mod two_threads {
    use super::*;
    numeric_context!(Ctx, threads: 2, inner_parallelism: allow);
}
mod eight_threads {
    use super::*;
    numeric_context!(Ctx, threads: 8, inner_parallelism: allow);
}
mod two_threads_no_inner {
    use super::*;
    numeric_context!(Ctx, threads: 2, inner_parallelism: deny, entities: fixed(5000));
}

macro_rules! final_state {
    ($ctx:ty) => {{
        let mut ctx = <$ctx>::new();
        let handles: Vec<_> = ctx.step(|p| (0..3000u64).map(|i| p.spawn((A(i), B(i * 3), C(i))).unwrap()).collect());
        for _ in 0..30 {
            ctx.step(|p| p.run_all(&()));
        }
        ctx.step(|p| {
            handles
                .iter()
                .map(|&h| (p.get::<A>(h).copied(), p.get::<B>(h).copied(), p.get::<C>(h).copied()))
                .collect::<Vec<_>>()
        })
    }};
}

#[test]
fn results_do_not_depend_on_threads_or_inner_parallelism() {
    let reference = final_state!(one_thread::Ctx);
    assert!(reference.iter().any(|x| x.0.is_none()), "some entities were killed");
    assert!(reference.iter().any(|x| x.0.is_some()), "some survived");
    assert_eq!(final_state!(two_threads::Ctx), reference);
    assert_eq!(final_state!(eight_threads::Ctx), reference);
    assert_eq!(final_state!(two_threads_no_inner::Ctx), reference);
}

#[test]
fn the_thread_count_can_be_chosen_at_run_time() {
    let reference = final_state!(one_thread::Ctx);
    for threads in [Some(1), Some(3), None] {
        let mut ctx = one_thread::Ctx::with_threads(Default::default(), threads);
        assert_eq!(
            ctx.threads(),
            threads.unwrap_or_else(|| std::thread::available_parallelism().unwrap().get())
        );
        let handles: Vec<_> = ctx.step(|p| (0..3000u64).map(|i| p.spawn((A(i), B(i * 3), C(i))).unwrap()).collect());
        for _ in 0..30 {
            ctx.step(|p| p.run_all(&()));
        }
        let state = ctx.step(|p| {
            handles
                .iter()
                .map(|&h| (p.get::<A>(h).copied(), p.get::<B>(h).copied(), p.get::<C>(h).copied()))
                .collect::<Vec<_>>()
        });
        assert_eq!(state, reference);
    }
}

#[test]
fn strategies_split_as_declared() {
    let mut ctx = eight_threads::Ctx::new();
    assert_eq!(ctx.threads(), 8);
    ctx.step(|p| {
        for i in 0..50u64 {
            p.spawn((A(i), B(i), C(i))).unwrap();
        }
        p.run_all(&());
        assert_eq!(p.outputs::<Mix>().len(), 2, "split_every(37) over 50 entities");
    });
    let mut ctx = two_threads_no_inner::Ctx::new();
    ctx.step(|p| {
        for i in 0..500u64 {
            p.spawn((A(i), B(i), C(i))).unwrap();
        }
        p.run_all(&());
        assert_eq!(p.outputs::<Mix>().len(), 1, "inner parallelism denied: one subtask");
    });
    let mut ctx = two_threads::Ctx::new();
    ctx.step(|p| {
        for i in 0..500u64 {
            p.spawn((A(i), B(i), C(i))).unwrap();
        }
        p.run_all(&());
        assert_eq!(p.outputs::<Mix>().len(), 14, "split_every(37) over 500 entities");
    });
}

#[test]
fn a_split_run_then_one_subtask_leaves_one_fresh_output() {
    // `run_with` runs one subtask itself, with the output and queue the last
    // run left: after a split run (14 outputs) it must keep one, reset.
    let mut ctx = two_threads::Ctx::new();
    let handles: Vec<_> = ctx.step(|p| (0..500u64).map(|i| p.spawn((A(i), B(i * 3), C(i))).unwrap()).collect());
    ctx.step(|p| {
        p.run_all(&());
        assert_eq!(p.outputs::<Mix>().len(), 14, "split_every(37) over 500 entities");
    });
    ctx.step(|p| {
        for &h in &handles[20..] {
            p.kill(h);
        }
    });
    ctx.step(|p| {
        // Grow then Mix, as their bodies compute, for the entities left.
        let expected = handles[..20]
            .iter()
            .filter_map(|&h| Some((p.get::<A>(h)?.0, p.get::<B>(h)?.0)))
            .fold(0u64, |sum, (a, b)| {
                let a = a.wrapping_mul(6364136223846793005).wrapping_add(1);
                sum.wrapping_add(b ^ (a >> 7))
            });
        assert!(p.len() <= 20 && !p.is_empty());
        p.run_all(&());
        assert_eq!(p.outputs::<Mix>(), [expected], "one subtask over at most 20 entities");
    });
}

pub struct Boom {
    pub at_subtask: Option<usize>,
}
#[derive(Default)]
pub struct After;

ecs::declare_context! {
    pub context Fragile {
        settings { threads: 2 }
        components { A, B, B2: contiguous; }
        systems {
            boom: Boom { write: [A], parallelism: split_every(10) }
            after: After { read: [A], write: [B], after: [boom] }
            other: Grow2 { write: [B2] }
        }
    }
}
#[derive(Clone, Copy)]
pub struct B2(pub u64);
impl System<Fragile> for Boom {
    fn process(&self, data: &mut Data<'_, Fragile, Self>, _: &()) {
        if Some(data.subtask_index()) == self.at_subtask {
            panic!("boom in subtask {}", data.subtask_index());
        }
        data.for_each::<&mut A>(|a| a.0 += 1);
    }
}
impl System<Fragile> for After {
    fn process(&self, data: &mut Data<'_, Fragile, Self>, _: &()) {
        data.for_each::<(&A, &mut B)>(|(a, b)| b.0 = a.0);
    }
}
#[derive(Default)]
pub struct Grow2;
impl System<Fragile> for Grow2 {
    fn process(&self, data: &mut Data<'_, Fragile, Self>, _: &()) {
        data.for_each::<&mut B2>(|b| b.0 += 1);
    }
}

#[test]
fn a_panicking_subtask_reaches_the_caller_and_the_context_stays_usable() {
    let mut ctx = Fragile::with_systems(FragileSystems {
        boom: Boom { at_subtask: Some(2) },
        after: After,
        other: Grow2,
    });
    let e = ctx.step(|p| {
        let e = p.spawn((A(0), B(0), B2(0))).unwrap();
        for i in 0..49 {
            p.spawn((A(i), B(0), B2(0))).unwrap();
        }
        e
    });
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ctx.step(|p| p.run_all(&()))));
    let msg = result.unwrap_err();
    assert_eq!(
        msg.downcast_ref::<String>().map(String::as_str),
        Some("boom in subtask 2")
    );
    // `after` never ran: its dependency panicked. The context still works.
    ctx.system_mut::<Boom>().at_subtask = None;
    ctx.step(|p| p.run_all(&()));
    ctx.step(|p| {
        assert_eq!(p.get::<B>(e).copied(), p.get::<A>(e).map(|a| B(a.0)));
        assert!(p.get::<A>(e).unwrap().0 >= 1);
    });
}

#[test]
fn a_panicking_deferred_function_reaches_the_caller() {
    #[derive(Default)]
    pub struct Deferrer;
    ecs::declare_context! {
        pub context Def {
            settings { threads: 1 }
            components { A: contiguous; }
            systems { d: Deferrer { read: [A] } }
        }
    }
    impl System<Def> for Deferrer {
        fn process(&self, data: &mut Data<'_, Def, Self>, _: &()) {
            data.defer(|_| panic!("deferred boom"));
        }
    }
    let mut ctx = Def::new();
    ctx.step(|p| {
        p.spawn((A(1),)).unwrap();
    });
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ctx.step(|p| p.run_all(&()))));
    assert!(r.is_err());
    let n = ctx.step(|p| {
        let e = p.spawn((A(2),)).unwrap();
        assert!(p.is_alive(e));
        p.len()
    });
    assert_eq!(n, 2);
}

/// Kills every entity it processes and defers one count per entity, one
/// entity per subtask, recording which threads ran subtasks.
#[derive(Default)]
pub struct Cull {
    pub threads: std::sync::Mutex<Vec<std::thread::ThreadId>>,
    pub deferred: Arc<AtomicUsize>,
}

ecs::declare_context! {
    pub context Culled {
        settings { threads: 2 }
        components { A: contiguous; }
        systems { cull: Cull { read: [A], parallelism: split_every(1) } }
    }
}

impl System<Culled> for Cull {
    fn process(&self, data: &mut Data<'_, Culled, Self>, _: &()) {
        self.threads.lock().unwrap().push(std::thread::current().id());
        // Time for a helper to come and claim subtasks.
        std::thread::sleep(Duration::from_micros(200));
        data.for_entities::<EntityId>(|view, id| view.kill(id));
        let deferred = self.deferred.clone();
        data.defer(move |_| {
            deferred.fetch_add(1, Ordering::SeqCst);
        });
    }
}

#[test]
fn kills_and_deferred_functions_of_subtasks_on_helpers_are_applied() {
    // Each subtask records its kills and deferred functions in a queue of
    // its own, which the run hands to the refresh once every subtask is
    // done: those recorded on a helper must reach it like the caller's.
    let deferred = Arc::new(AtomicUsize::new(0));
    let mut ctx = Culled::with_threads(
        CulledSystems {
            cull: Cull {
                threads: Default::default(),
                deferred: deferred.clone(),
            },
        },
        Some(2),
    );
    let me = std::thread::current().id();
    for round in 0..200 {
        let before = deferred.load(Ordering::SeqCst);
        let n = ctx.step(|p| {
            for i in 0..8 {
                p.spawn((A(i),)).unwrap();
            }
            p.len()
        });
        assert_eq!(n, 8, "round {round}: the last round's entities were all killed");
        ctx.step(|p| p.run_all(&()));
        assert_eq!(ctx.step(|p| p.len()), 0, "round {round}: a subtask's kill was lost");
        assert_eq!(
            deferred.load(Ordering::SeqCst) - before,
            8,
            "round {round}: a deferred function was lost"
        );
        let helped = std::mem::take(&mut *ctx.system::<Cull>().threads.lock().unwrap())
            .iter()
            .any(|&t| t != me);
        if helped {
            return;
        }
    }
    panic!("no helper ever ran a subtask");
}

/// Where each run of a system (and each subtask) took place.
pub type Places = std::sync::Mutex<Vec<(&'static str, usize, std::thread::ThreadId)>>;

fn place(places: &Places, system: &'static str, subtask: usize) {
    places
        .lock()
        .unwrap()
        .push((system, subtask, std::thread::current().id()));
}

#[derive(Default)]
pub struct First;
#[derive(Default)]
pub struct Second;
#[derive(Default)]
pub struct Third;

ecs::declare_context! {
    /// One chain, its last link split per core.
    pub context Placed {
        settings { threads: 2 }
        components { A, B, C: contiguous; }
        systems {
            first: First { write: [A] }
            second: Second { read: [A], write: [B], after: [first] }
            third: Third { read: [B], write: [C], after: [second], parallelism: split_evenly_per_core }
        }
    }
}

impl System<Placed, Places> for First {
    fn process(&self, data: &mut Data<'_, Placed, Self>, places: &Places) {
        place(places, "first", data.subtask_index());
        data.for_each::<&mut A>(|a| a.0 += 1);
    }
}
impl System<Placed, Places> for Second {
    fn process(&self, data: &mut Data<'_, Placed, Self>, places: &Places) {
        place(places, "second", data.subtask_index());
        data.for_each::<(&A, &mut B)>(|(a, b)| b.0 = a.0);
    }
}
impl System<Placed, Places> for Third {
    fn process(&self, data: &mut Data<'_, Placed, Self>, places: &Places) {
        place(places, "third", data.subtask_index());
        data.for_each::<(&B, &mut C)>(|(b, c)| c.0 += b.0);
    }
}

#[test]
fn the_caller_runs_a_chain_and_the_last_subtask_itself() {
    // A step's caller works: a chain of unsplit systems needs no other
    // thread, and the thread that runs a split system runs its last
    // subtask (a pool that left the caller waiting ran none of them there;
    // helpers take subtasks from the first, `ecs-core/src/schedule/ends.rs`).
    let mut ctx = Placed::new();
    ctx.step(|p| {
        for i in 0..1000 {
            p.spawn((A(i), B(0), C(0))).unwrap();
        }
    });
    let me = std::thread::current().id();
    for _ in 0..20 {
        let places = Places::default();
        ctx.step(|p| p.run_all(&places));
        let places = places.into_inner().unwrap();
        let mut runs: Vec<_> = places.iter().map(|&(s, i, _)| (s, i)).collect();
        runs.sort();
        assert_eq!(runs, [("first", 0), ("second", 0), ("third", 0), ("third", 1)]);
        for &(system, subtask, thread) in &places {
            if (system, subtask) != ("third", 0) {
                assert_eq!(thread, me, "{system} subtask {subtask} ran on another thread");
            }
        }
    }
}

// The particle simulation's graph (shared/particles.md), with inner
// parallelism on: every system splits, subtasks wait on their workers, and
// no pool size may deadlock (ECST does below 4 threads).
pub mod particle_graph {
    use super::*;

    #[derive(Clone, Copy)]
    pub struct Pos(pub f32);
    #[derive(Clone, Copy)]
    pub struct Vel(pub f32);
    #[derive(Clone, Copy)]
    pub struct Acc(pub f32);
    #[derive(Clone, Copy)]
    pub struct Col(pub u8);
    #[derive(Clone, Copy)]
    pub struct Circle(pub f32);
    #[derive(Clone, Copy)]
    pub struct Life(pub f32);

    macro_rules! systems {
        ($($ty:ident),*) => { $( #[derive(Default)] pub struct $ty; )* };
    }
    systems!(
        Acceleration,
        Velocity,
        KeepInBounds,
        SpatialPartition,
        Collision,
        SolveContacts,
        Render,
        LifeSys,
        Fade
    );

    macro_rules! graph {
        ($module:ident, $threads:literal) => {
            pub mod $module {
                use super::*;

                ecs::declare_context! {
                    pub context Particles {
                        settings { entities: fixed(4096), inner_parallelism: allow, threads: $threads }
                        components { Pos, Vel, Acc, Col, Circle, Life: contiguous; }
                        systems {
                            acceleration: Acceleration { read: [Acc], write: [Vel], parallelism: split_evenly_per_core }
                            velocity: Velocity { read: [Vel], write: [Pos], after: [acceleration], parallelism: split_evenly_per_core }
                            keep_in_bounds: KeepInBounds { read: [Circle], write: [Pos, Vel], after: [velocity], parallelism: split_evenly_per_core }
                            spatial_partition: SpatialPartition { read: [Pos, Circle], after: [keep_in_bounds], output: usize, parallelism: split_evenly_per_core }
                            collision: Collision { read: [Pos, Circle], after: [spatial_partition], output: usize, parallelism: split_evenly_per_core }
                            solve_contacts: SolveContacts { read: [Circle], write: [Pos, Vel], after: [collision] }
                            life: LifeSys { write: [Life], parallelism: split_evenly_per_core }
                            fade: Fade { read: [Life], write: [Col], after: [life], parallelism: split_evenly_per_core }
                            render: Render { read: [Pos, Circle, Col], after: [solve_contacts, fade], output: usize, parallelism: split_evenly_per_core }
                        }
                    }
                }

                macro_rules! count_system {
                    ($ty:ident, $q:ty) => {
                        impl System<Particles, f32> for $ty {
                            fn process(&self, data: &mut Data<'_, Particles, Self>, _: &f32) {
                                let mut n = 0usize;
                                data.for_each::<$q>(|_| n += 1);
                                std::hint::black_box(n);
                            }
                        }
                    };
                }
                impl System<Particles, f32> for Acceleration {
                    fn process(&self, data: &mut Data<'_, Particles, Self>, dt: &f32) {
                        data.for_each::<(&mut Vel, &Acc)>(|(v, a)| v.0 += a.0 * dt);
                    }
                }
                impl System<Particles, f32> for Velocity {
                    fn process(&self, data: &mut Data<'_, Particles, Self>, dt: &f32) {
                        data.for_each::<(&mut Pos, &Vel)>(|(p, v)| p.0 += v.0 * dt);
                    }
                }
                count_system!(KeepInBounds, (&mut Pos, &mut Vel, &Circle));
                count_system!(SpatialPartition, (&Pos, &Circle));
                count_system!(Collision, (&Pos, &Circle));
                count_system!(SolveContacts, &mut Pos);
                count_system!(Render, (&Pos, &Circle, &Col));
                count_system!(Fade, (&Life, &mut Col));
                impl System<Particles, f32> for LifeSys {
                    fn process(&self, data: &mut Data<'_, Particles, Self>, dt: &f32) {
                        data.for_entities::<(EntityId, &mut Life)>(|view, (id, l)| {
                            l.0 -= dt;
                            if l.0 <= 0.0 {
                                view.kill(id);
                            }
                        });
                    }
                }

                pub fn run() -> usize {
                    let mut ctx = Particles::new();
                    ctx.step(|p| {
                        for i in 0..2000 {
                            p.spawn((Pos(0.0), Vel(1.0), Acc(1.0), Col(255), Circle(1.0), Life((i % 50) as f32 * 0.04)))
                                .unwrap();
                        }
                    });
                    for _ in 0..60 {
                        ctx.step(|p| p.run_all(&0.04));
                    }
                    ctx.len()
                }
            }
        };
    }

    graph!(one_thread, 1);
    graph!(two_threads, 2);
}

#[test]
fn particle_graph_with_inner_parallelism_does_not_deadlock_on_one_or_two_threads() {
    // A deadlock would hang: a watchdog turns it into a failure.
    let watchdog = Watchdog::start("the particle graph deadlocked");
    let one = particle_graph::one_thread::run();
    let two = particle_graph::two_threads::run();
    watchdog.stop();
    assert_eq!(one, two);
    assert!(one < 2000, "some particles died");
}
