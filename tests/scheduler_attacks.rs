//! Attacks on the scheduler's hand-over (audit16): helpers that stay
//! between steps and sleep on the doorbell, a step's roots published
//! without the lock (bits claimed by compare-exchange, roots past 64
//! queued), the queue's count stored after unlocking, panics locked only
//! once a flag is set.
//!
//! Each case checks, step by step, that every selected system ran exactly
//! once and after its dependencies (a root claimed twice, or a dependent
//! started early, shows as a count off by one or an order violation), that
//! a panicking system's descendants did not run and the others did, that
//! the step re-raised one of the panics and dropped every other payload
//! (payloads whose `drop` panics included), that helpers come back to
//! work after a pause (two roots that meet only if two threads run them at
//! once), and that a dropped context's helpers leave (Linux: threads
//! counted by name).
//!
//! The waits (a rendezvous, helpers leaving or falling asleep) end after
//! 30 s: bounds on a hang, not timings; 30 rather than 10 so that a test
//! process stopped for a while (the machine's benchmarks pause nice-19
//! processes) does not fail them.
//!
//! `two_threads::*` run under Miri too (`.ci/miri`, Tree Borrows, with
//! fewer steps), where the rendezvous is off (see
//! `helpers_come_back_after_a_pause`); they also run under plain
//! `cargo test`.

use ecs::{Adapters, Data, System};
use std::any::Any;
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Systems a log follows (the 70 of `Wide`).
const MAX: usize = 70;

/// What the systems of one context type saw. One per context type (a
/// static); the tests of a type take its `lock` in turn.
pub struct Log {
    lock: Mutex<()>,
    /// Starts of each system, counted before it panics.
    runs: [AtomicU32; MAX],
    /// Systems that finished in the running step (cleared before each).
    done: [AtomicBool; MAX],
    /// Systems that started before one of their dependencies had finished
    /// in the same step.
    out_of_order: AtomicU32,
    /// Systems that panic when they run.
    armed: [AtomicBool; MAX],
    /// Whether armed systems panic with a [`Grenade`] (whose `drop`
    /// panics) rather than a `String`.
    grenades: AtomicBool,
    /// Grenades made and dropped.
    made: AtomicUsize,
    dropped: AtomicUsize,
    /// Whether the rendezvous systems wait for each other.
    rendezvous: AtomicBool,
    met: [AtomicBool; 2],
    /// Rendezvous that timed out: two systems published to idle helpers
    /// ran one after the other, on one thread.
    missed: AtomicU32,
}

impl Log {
    const fn new() -> Self {
        Self {
            lock: Mutex::new(()),
            runs: [const { AtomicU32::new(0) }; MAX],
            done: [const { AtomicBool::new(false) }; MAX],
            out_of_order: AtomicU32::new(0),
            armed: [const { AtomicBool::new(false) }; MAX],
            grenades: AtomicBool::new(false),
            made: AtomicUsize::new(0),
            dropped: AtomicUsize::new(0),
            rendezvous: AtomicBool::new(false),
            met: [const { AtomicBool::new(false) }; 2],
            missed: AtomicU32::new(0),
        }
    }

    /// Serialises the tests of one context type (they share this log).
    fn lock(&self) -> MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn runs(&self) -> Vec<u32> {
        self.runs.iter().map(|r| r.load(SeqCst)).collect()
    }

    /// Marks system `n` started: each of `deps` must have finished in this
    /// step; then panics if `n` is armed.
    fn enter(&'static self, n: usize, deps: &[usize]) {
        if deps.iter().any(|&d| !self.done[d].load(SeqCst)) {
            self.out_of_order.fetch_add(1, SeqCst);
        }
        self.runs[n].fetch_add(1, SeqCst);
        if self.armed[n].load(SeqCst) {
            if self.grenades.load(SeqCst) {
                self.made.fetch_add(1, SeqCst);
                panic_any(Grenade(self));
            }
            panic!("armed {n}");
        }
    }

    /// Marks system `n` finished.
    fn leave(&self, n: usize) {
        self.done[n].store(true, SeqCst);
    }

    /// Before a step.
    fn new_step(&self) {
        self.done.iter().for_each(|d| d.store(false, SeqCst));
    }

    /// Rendezvous party `side` (0 or 1): when on, waits up to 30 s for the
    /// other side to start too.
    fn meet(&self, side: usize) {
        if !self.rendezvous.load(SeqCst) {
            return;
        }
        self.met[side].store(true, SeqCst);
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.met[1 - side].load(SeqCst) {
            if Instant::now() > deadline {
                self.missed.fetch_add(1, SeqCst);
                return;
            }
            std::thread::yield_now();
        }
    }

    fn arm(&self, armed: &[usize], grenades: bool) {
        for (n, a) in self.armed.iter().enumerate() {
            a.store(armed.contains(&n), SeqCst);
        }
        self.grenades.store(grenades, SeqCst);
    }
}

/// A panic payload whose `drop` panics (with a `&str`).
pub struct Grenade(&'static Log);

impl Drop for Grenade {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, SeqCst);
        panic!("a grenade went off");
    }
}

/// Checks the payload that reached the step's caller: a grenade or one of
/// the armed systems' messages; drops it (a grenade goes off).
fn check_payload(log: &'static Log, payload: Box<dyn Any + Send>, armed: &[usize]) {
    if log.grenades.load(SeqCst) {
        let grenade = payload.downcast::<Grenade>().expect("a grenade");
        assert!(catch_unwind(AssertUnwindSafe(|| drop(grenade))).is_err());
    } else {
        let message = payload.downcast::<String>().expect("an armed system's message");
        let n: usize = message.strip_prefix("armed ").unwrap().parse().unwrap();
        assert!(armed.contains(&n), "the payload of system {n}, not armed");
    }
}

/// Runs of a step per system (`after - before`), given who panicked:
/// every selected system once, but the descendants of an armed one
/// (`deps` in topological order).
fn expected(deps: &[&[usize]], selected: &[bool], armed: &[usize]) -> Vec<u32> {
    let mut doomed = vec![false; deps.len()];
    for n in 0..deps.len() {
        doomed[n] = deps[n].iter().any(|&d| armed.contains(&d) || doomed[d]);
    }
    (0..deps.len()).map(|n| u32::from(selected[n] && !doomed[n])).collect()
}

#[derive(Clone, Copy)]
pub struct A(pub u32);

/// System `N` of a context's graph.
#[derive(Default)]
pub struct Sys<const N: usize>;
/// A system split into subtasks (one per two entities).
#[derive(Default)]
pub struct Split;

/// The graph: roots `r0` (run by the step's caller), `r1`, `r2`, `r3`
/// and `sp` (published); a chain `r0 -> b0 -> c0`, a diamond `r1 -> d1,
/// d2 -> d3`. `r1` and `r2` are the rendezvous' two sides: the caller
/// claims `r1` first, once `r0`'s chain (which queues nothing) is done, so
/// nothing rings the doorbell before it waits in `r1` but the roots'
/// publication.
const DEPS: [&[usize]; 9] = [&[], &[], &[], &[], &[0], &[4], &[1], &[1], &[6, 7]];
/// `Split`'s index in the log.
const SPLIT: usize = 9;
/// Entities `Split` walks.
const ENTITIES: u32 = 8;

/// `Sys<n>`'s `System` impl for each `n` in context `$ctx` (whose module
/// has the `LOG`): each declared system is its own type.
macro_rules! sys_impl {
    ($ctx:ident; $($n:literal),*) => {
        $(
            impl System<$ctx> for Sys<$n> {
                fn process(&self, _: &mut Data<'_, $ctx, Self>, _: &()) {
                    LOG.enter($n, DEPS[$n]);
                    match $n {
                        1 => LOG.meet(0),
                        2 => LOG.meet(1),
                        _ => {}
                    }
                    LOG.leave($n);
                }
            }
        )*
    };
}

/// The same for `W<n>`.
macro_rules! wide_impl {
    ($ctx:ident; $($n:literal),*) => {
        $(
            impl System<$ctx> for W<$n> {
                fn process(&self, _: &mut Data<'_, $ctx, Self>, _: &()) {
                    LOG.enter($n, &[]);
                }
            }
        )*
    };
}

macro_rules! attack_context {
    ($module:ident, $ctx:ident, $threads:literal) => {
        pub mod $module {
            use super::*;

            ecs::declare_context! {
                pub context $ctx {
                    settings { entities: dynamic(16), inner_parallelism: allow, threads: $threads }
                    components { A: contiguous; }
                    systems {
                        r0: Sys<0> {}
                        r1: Sys<1> {}
                        r2: Sys<2> {}
                        r3: Sys<3> {}
                        b0: Sys<4> { after: [r0] }
                        c0: Sys<5> { after: [b0] }
                        d1: Sys<6> { after: [r1] }
                        d2: Sys<7> { after: [r1] }
                        d3: Sys<8> { after: [d1, d2] }
                        sp: Split { write: [A], parallelism: split_every(2) }
                    }
                }
            }

            static LOG: Log = Log::new();

            sys_impl!($ctx; 0, 1, 2, 3, 4, 5, 6, 7, 8);

            impl System<$ctx> for Split {
                fn process(&self, data: &mut Data<'_, $ctx, Self>, _: &()) {
                    data.for_each::<&mut A>(|a| a.0 += 1);
                    LOG.enter(SPLIT, &[]);
                }
            }

            /// A context with its entities.
            fn context() -> $ctx {
                let mut ctx = $ctx::new();
                ctx.step(|p| {
                    for _ in 0..ENTITIES {
                        p.spawn((A(0),)).unwrap();
                    }
                });
                ctx
            }

            /// `A` of every entity: the runs of `Split` over it.
            fn split_runs(ctx: &mut $ctx) -> Vec<u32> {
                ctx.step(|p| {
                    let mut values = Vec::new();
                    p.for_each::<&A>(|a| values.push(a.0));
                    values
                })
            }

            /// Runs `step` on `ctx` with `armed` systems panicking, and
            /// checks each system's runs against `selected` (indices of
            /// `DEPS`), `Split`'s over every entity if `split`, the order
            /// and the panic.
            fn checked(
                ctx: &mut $ctx,
                selected: &[bool; 9],
                split: bool,
                armed: &[usize],
                step: impl Fn(&mut ecs::Step<'_, $ctx>),
            ) {
                let split_before = split_runs(ctx);
                LOG.new_step();
                let before = LOG.runs();
                let result = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| step(p))));
                let after = LOG.runs();
                // The payload first: a grenade must not be dropped while a
                // failed assertion unwinds.
                match result {
                    Ok(()) => assert!(armed.is_empty(), "{armed:?} armed, and the step did not panic"),
                    Err(payload) => {
                        assert!(!armed.is_empty(), "a step without panics panicked");
                        check_payload(&LOG, payload, armed);
                    }
                }
                let ran: Vec<u32> = (0..9).map(|n| after[n] - before[n]).collect();
                let expected = expected(&DEPS, selected, armed);
                if $threads == 1 && !armed.is_empty() {
                    // On one thread a panic ends the step: the systems
                    // after it in the topological order do not run.
                    assert!(ran.iter().zip(&expected).all(|(r, e)| r <= e), "runs {ran:?} with {armed:?} armed");
                } else {
                    assert_eq!(ran, expected, "runs with {armed:?} armed");
                    let split_after = split_runs(ctx);
                    for (b, a) in split_before.iter().zip(&split_after) {
                        assert_eq!(a - b, u32::from(split), "each entity once by `Split`");
                    }
                }
                assert_eq!(LOG.out_of_order.load(SeqCst), 0, "a system started before its dependency");
                assert_eq!(LOG.made.load(SeqCst), LOG.dropped.load(SeqCst), "every grenade dropped once");
            }

            const ALL: [bool; 9] = [true; 9];

            /// Whole steps, a selection from `r1` (`run_from`: the diamond,
            /// whose root is then the first, the caller's), and adapters
            /// giving code to `r0` and `c0` but not `b0` (a selection that
            /// is not closed: `c0` still waits for `r0`).
            #[test]
            fn every_system_runs_once_after_its_dependencies() {
                let _lock = LOG.lock();
                LOG.arm(&[], false);
                let mut ctx = context();
                let steps = if cfg!(miri) { 3 } else { 300 };
                for _ in 0..steps {
                    checked(&mut ctx, &ALL, true, &[], |p| p.run_all(&()));
                }
                let diamond = [false, true, false, false, false, false, true, true, true];
                for _ in 0..steps {
                    checked(&mut ctx, &diamond, false, &[], |p| p.run_from::<(Sys<1>,), ()>(&()));
                    checked(&mut ctx, &ALL, true, &[], |p| p.run_all(&()));
                }
                let ends = [true, false, false, false, false, true, false, false, false];
                for _ in 0..steps {
                    checked(&mut ctx, &ends, false, &[], |p| {
                        p.run_adapted(
                            &Adapters::new()
                                .system::<Sys<0>>(|_, _| {
                                    LOG.enter(0, &[]);
                                    LOG.leave(0);
                                })
                                .system::<Sys<5>>(|_, _| {
                                    LOG.enter(5, &[0]);
                                    LOG.leave(5);
                                }),
                        )
                    });
                }
            }

            /// A panic in the caller's root, in a published root, in a
            /// dependent, in the split system's subtasks, in all roots at
            /// once; with string payloads and with payloads whose `drop`
            /// panics. After each, a clean step runs everything.
            #[test]
            fn panics_anywhere_in_the_step() {
                let _lock = LOG.lock();
                let mut ctx = context();
                let cases: &[&[usize]] = &[&[0], &[1], &[2], &[3], &[SPLIT], &[4], &[8], &[6, 7], &[0, 1, 2, 3, SPLIT]];
                // Under Miri, the caller's root, a published root, the
                // subtasks and all roots at once: all nine cases took 15 s
                // of Miri's time.
                let miri_cases: &[&[usize]] = &[&[0], &[2], &[SPLIT], &[0, 1, 2, 3, SPLIT]];
                let (rounds, cases) = if cfg!(miri) { (1, miri_cases) } else { (20, cases) };
                for _ in 0..rounds {
                    for grenades in [false, true] {
                        for &armed in cases {
                            LOG.arm(armed, grenades);
                            checked(&mut ctx, &ALL, true, armed, |p| p.run_all(&()));
                            LOG.arm(&[], false);
                            checked(&mut ctx, &ALL, true, &[], |p| p.run_all(&()));
                        }
                    }
                }
            }

            /// A context moved to another thread between steps, and back.
            #[test]
            fn a_context_moved_between_threads() {
                let _lock = LOG.lock();
                LOG.arm(&[], false);
                let mut ctx = context();
                for _ in 0..3 {
                    checked(&mut ctx, &ALL, true, &[], |p| p.run_all(&()));
                    ctx = std::thread::spawn(move || {
                        checked(&mut ctx, &ALL, true, &[], |p| p.run_all(&()));
                        ctx
                    })
                    .join()
                    .unwrap();
                }
            }

            /// Contexts made, stepped and dropped in a loop, some right
            /// after a step with panics: each step runs everything, and
            /// no helper stays after its context.
            #[test]
            fn dropped_contexts_leave_no_helper() {
                let _lock = LOG.lock();
                let rounds = if cfg!(miri) { 3 } else { 100 };
                for round in 0..rounds {
                    let mut ctx = context();
                    LOG.arm(&[], false);
                    checked(&mut ctx, &ALL, true, &[], |p| p.run_all(&()));
                    if round % 2 == 1 {
                        LOG.arm(&[1], round % 4 == 1);
                        checked(&mut ctx, &ALL, true, &[1], |p| p.run_all(&()));
                    }
                    if round % 8 == 0 {
                        // Dropped with its helpers asleep: only the drop's
                        // ring wakes them to leave.
                        helpers_asleep(stringify!($ctx));
                    }
                    drop(ctx);
                }
                LOG.arm(&[], false);
                helpers_leave(stringify!($ctx));
            }

            /// Steps after pauses long enough for the helpers to sleep
            /// (`helpers_asleep`):
            /// every root still runs once, and the two rendezvous roots
            /// (`r1` and `r2`, published) meet, so a helper woke up and
            /// claimed one while the caller ran the other.
            #[test]
            fn helpers_come_back_after_a_pause() {
                let _lock = LOG.lock();
                LOG.arm(&[], false);
                let mut ctx = context();
                checked(&mut ctx, &ALL, true, &[], |p| p.run_all(&()));
                let pauses = if cfg!(miri) { 2 } else { 10 };
                for _ in 0..pauses {
                    LOG.met.iter().for_each(|m| m.store(false, SeqCst));
                    // Not under Miri: its weak memory lets the relaxed
                    // read of the sleeper count at a publication
                    // (`Doorbell::ring_unless_racing`) return the count
                    // from before the helper slept, which the memory model
                    // allows any number of times (hardware makes the store
                    // visible within a bound); the helper then sleeps
                    // through the step and `r1` waits out its 30 s on
                    // Miri's clock.
                    LOG.rendezvous.store($threads > 1 && !cfg!(miri), SeqCst);
                    // The pause inside the step, right before its systems:
                    // nothing else (a step's own work, say) wakes the
                    // helpers in between.
                    checked(&mut ctx, &ALL, true, &[], |p| {
                        helpers_asleep(stringify!($ctx));
                        p.run_all(&())
                    });
                    LOG.rendezvous.store(false, SeqCst);
                    assert_eq!(LOG.missed.load(SeqCst), 0, "a published root was left to the caller after a pause");
                }
            }
        }
    };
}

attack_context!(one_thread, One, 1);
attack_context!(two_threads, Two, 2);
attack_context!(three_threads, Three, 3);
attack_context!(four_threads, Four, 4);

/// Waits up to 30 s for the threads named `{context}-worker-*` to leave
/// (Linux: `/proc/self/task/*/comm`; elsewhere and under Miri, only that
/// dropping returned).
fn helpers_leave(context: &str) {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // Linux keeps 15 bytes of a thread's name.
        let mut prefix = format!("{context}-worker-");
        prefix.truncate(15);
        let count = || {
            std::fs::read_dir("/proc/self/task")
                .unwrap()
                .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
                .filter(|comm| comm.starts_with(&prefix))
                .count()
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while count() > 0 {
            assert!(
                Instant::now() < deadline,
                "{} helpers of dropped `{context}`s still run",
                count()
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = context;
}

/// Waits until the threads named `{context}-worker-*` sleep (Linux:
/// state `S` in `/proc/self/task/*/stat`, which a thread spinning or
/// yielding never shows; a helper blocks only on the doorbell), at most
/// 30 s; elsewhere and under Miri, 50 ms. A fixed pause was not enough:
/// on two cores loaded by other processes, a nice-19 helper's 192 yields
/// before it sleeps outlasted a 50 ms pause, and a helper still yielding
/// found the roots without being woken.
fn helpers_asleep(context: &str) {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let mut prefix = format!("{context}-worker-");
        prefix.truncate(15);
        let all_asleep = || {
            std::fs::read_dir("/proc/self/task").unwrap().all(|task| {
                let Ok(task) = task else { return true };
                let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
                let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
                // `pid (comm) state ...`: the state follows the last `)`.
                let state = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
                !comm.starts_with(&prefix) || state.starts_with('S')
            })
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !all_asleep() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        // A little longer: asleep, and its count of sleepers long visible.
        std::thread::sleep(Duration::from_millis(5));
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        let _ = context;
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// 70 independent systems: roots 1-63 published, 64-69 queued.
#[derive(Default)]
pub struct W<const N: usize>;

macro_rules! wide_context {
    ($module:ident, $ctx:ident, $threads:literal) => {
        pub mod $module {
            use super::*;

            ecs::declare_context! {
                pub context $ctx {
                    settings { entities: dynamic(4), threads: $threads }
                    components { A: contiguous; }
                    systems {
                        w0: W<0> {}
                        w1: W<1> {}
                        w2: W<2> {}
                        w3: W<3> {}
                        w4: W<4> {}
                        w5: W<5> {}
                        w6: W<6> {}
                        w7: W<7> {}
                        w8: W<8> {}
                        w9: W<9> {}
                        w10: W<10> {}
                        w11: W<11> {}
                        w12: W<12> {}
                        w13: W<13> {}
                        w14: W<14> {}
                        w15: W<15> {}
                        w16: W<16> {}
                        w17: W<17> {}
                        w18: W<18> {}
                        w19: W<19> {}
                        w20: W<20> {}
                        w21: W<21> {}
                        w22: W<22> {}
                        w23: W<23> {}
                        w24: W<24> {}
                        w25: W<25> {}
                        w26: W<26> {}
                        w27: W<27> {}
                        w28: W<28> {}
                        w29: W<29> {}
                        w30: W<30> {}
                        w31: W<31> {}
                        w32: W<32> {}
                        w33: W<33> {}
                        w34: W<34> {}
                        w35: W<35> {}
                        w36: W<36> {}
                        w37: W<37> {}
                        w38: W<38> {}
                        w39: W<39> {}
                        w40: W<40> {}
                        w41: W<41> {}
                        w42: W<42> {}
                        w43: W<43> {}
                        w44: W<44> {}
                        w45: W<45> {}
                        w46: W<46> {}
                        w47: W<47> {}
                        w48: W<48> {}
                        w49: W<49> {}
                        w50: W<50> {}
                        w51: W<51> {}
                        w52: W<52> {}
                        w53: W<53> {}
                        w54: W<54> {}
                        w55: W<55> {}
                        w56: W<56> {}
                        w57: W<57> {}
                        w58: W<58> {}
                        w59: W<59> {}
                        w60: W<60> {}
                        w61: W<61> {}
                        w62: W<62> {}
                        w63: W<63> {}
                        w64: W<64> {}
                        w65: W<65> {}
                        w66: W<66> {}
                        w67: W<67> {}
                        w68: W<68> {}
                        w69: W<69> {}
                    }
                }
            }

            static LOG: Log = Log::new();

            wide_impl!($ctx; 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69);

            /// Panics in the caller's root (0), published ones (1, 63),
            /// queued ones (64, 69) and several at once; every system runs
            /// once per step however the others end.
            #[test]
            fn roots_past_the_published_ones_panic() {
                let _lock = LOG.lock();
                let mut ctx = $ctx::new();
                let cases: &[&[usize]] = &[&[], &[0], &[1], &[63], &[64], &[69], &[0, 5, 63, 64, 69], &[]];
                for _ in 0..if cfg!(miri) { 1 } else { 20 } {
                    for grenades in [false, true] {
                        for &armed in cases {
                            LOG.arm(armed, grenades);
                            let before = LOG.runs();
                            let result = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.run_all(&()))));
                            let after = LOG.runs();
                            match result {
                                Ok(()) => assert!(armed.is_empty()),
                                Err(payload) => check_payload(&LOG, payload, armed),
                            }
                            for n in 0..MAX {
                                assert_eq!(after[n] - before[n], 1, "system {n} with {armed:?} armed");
                            }
                            assert_eq!(LOG.made.load(SeqCst), LOG.dropped.load(SeqCst));
                        }
                    }
                }
                helpers_asleep(stringify!($ctx));
                drop(ctx);
                helpers_leave(stringify!($ctx));
            }
        }
    };
}

wide_context!(wide_two_threads, WideTwo, 2);
wide_context!(wide_four_threads, WideFour, 4);
