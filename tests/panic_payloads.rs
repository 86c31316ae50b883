//! Panics whose payload's own `drop` panics, raised from every place a
//! context runs user code: one or several subtasks of a split system,
//! unsplit systems side by side, deferred functions and their captures,
//! outputs being reset, components dropped during reclamation, a system's
//! state dropped with its context; on one thread and on two.
//!
//! Every case checks the promise of `Context`'s "Panics" section: the panic
//! reaches the caller of `step` as a panic, the context stays usable (later
//! steps run; a watchdog fails the case instead of letting a deadlock hang),
//! no entity is lost (a fixed context still fills to its limit), and every
//! value is dropped exactly once (a ledger counts them). The library drops
//! the payloads it does not re-raise where their panic cannot escape.

use ecs::{Data, Entity, EntityId, System};
use std::any::Any;
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How many grenades a case made and how many were dropped.
#[derive(Clone, Default)]
pub struct Ledger(Arc<(AtomicUsize, AtomicUsize)>);

impl Ledger {
    fn grenade(&self, on_drop: OnDrop) -> Grenade {
        self.0 .0.fetch_add(1, SeqCst);
        Grenade {
            ledger: self.clone(),
            on_drop,
        }
    }

    fn made(&self) -> usize {
        self.0 .0.load(SeqCst)
    }

    fn dropped(&self) -> usize {
        self.0 .1.load(SeqCst)
    }

    /// Every grenade made was dropped, exactly once (a second drop of the
    /// same value would count twice; under Miri and valgrind it is also a
    /// use after free).
    fn check_balanced(&self) {
        assert_eq!(self.dropped(), self.made(), "every grenade dropped exactly once");
    }
}

/// What a grenade's `drop` does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnDrop {
    /// Nothing but counting.
    Nothing,
    /// Panics with a `&str`.
    Panic,
    /// Panics with a grenade payload that panics when dropped in turn.
    Throw,
}

/// A value that counts its drop and may panic in it.
pub struct Grenade {
    ledger: Ledger,
    on_drop: OnDrop,
}

impl Drop for Grenade {
    fn drop(&mut self) {
        self.ledger.0 .1.fetch_add(1, SeqCst);
        match self.on_drop {
            OnDrop::Nothing => {}
            OnDrop::Panic => panic!("a grenade went off"),
            OnDrop::Throw => panic_any(self.ledger.grenade(OnDrop::Panic)),
        }
    }
}

/// The payload that reached the caller: a grenade, which goes off when the
/// caller drops it (that panic is the caller's, caught here, and so is the
/// next one if it throws a grenade).
fn defuse(payload: Box<dyn Any + Send>) {
    let grenade = match payload.downcast::<Grenade>() {
        Ok(grenade) => grenade,
        Err(other) => panic!("the caller got another payload: {:?}", other.downcast_ref::<&str>()),
    };
    let on_drop = grenade.on_drop;
    let went_off = catch_unwind(AssertUnwindSafe(|| drop(grenade))).unwrap_err();
    match on_drop {
        OnDrop::Panic => assert_eq!(went_off.downcast_ref::<&str>(), Some(&"a grenade went off")),
        OnDrop::Throw => defuse(went_off),
        OnDrop::Nothing => unreachable!("a payload that does not go off"),
    }
}

/// Runs `case` on another thread; fails if it takes longer than a minute
/// (a deadlock) instead of hanging the test run.
fn watchdog(case: impl FnOnce() + Send + 'static) {
    let (done, finished) = mpsc::channel();
    let runner = std::thread::spawn(move || {
        case();
        let _ = done.send(());
    });
    match finished.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => runner.join().unwrap(),
        // The case panicked: report its panic.
        Err(mpsc::RecvTimeoutError::Disconnected) => std::panic::resume_unwind(runner.join().unwrap_err()),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the case did not finish within a minute: deadlock"),
    }
}

const LIMIT: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct A(pub u64);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct B(pub u64);
/// A component holding a grenade.
pub struct Mine(pub Grenade);
/// An output that may hold a grenade.
#[derive(Default)]
pub struct Shell(pub Option<Grenade>);

/// Split in four subtasks (32 entities, 8 each); panics in the listed
/// subtasks with a grenade payload that goes off as `payload` says.
pub struct Split {
    pub ledger: Ledger,
    pub panic_in: Vec<usize>,
    pub payload: OnDrop,
}
/// Unsplit, independent of `Split` and of each other: panic with a grenade
/// payload when told.
#[derive(Default)]
pub struct Left {
    pub ledger: Ledger,
    pub panic: bool,
}
#[derive(Default)]
pub struct Right {
    pub ledger: Ledger,
    pub panic: bool,
}
/// Split in four; when armed, leaves in each output a grenade that throws
/// a grenade payload when the next run resets the output.
#[derive(Default)]
pub struct Shells {
    pub ledger: Ledger,
    pub arm: bool,
}
/// Records deferred functions and kills, by `mode`.
#[derive(Default)]
pub struct Deferrer {
    pub ledger: Ledger,
    pub mode: Defer,
    pub kill: Option<EntityId>,
    /// Deferred functions that ran.
    pub ran: Arc<AtomicUsize>,
}
/// A state that throws a grenade payload when the context drops it.
#[derive(Default)]
pub struct Keepsake(pub Option<Grenade>);

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Defer {
    #[default]
    Nothing,
    /// A deferred function that panics with a grenade payload, then one
    /// that holds a (harmless) grenade.
    Panic,
    /// A deferred function whose captured grenade throws a grenade payload
    /// when the call consumes it.
    Capture,
    /// A kill and a deferred function holding a harmless grenade, then a
    /// panic with a grenade payload.
    ThenPanic,
    /// A deferred function holding a grenade that goes off, then a panic:
    /// the grenade goes off while the panic unwinds.
    ArmedThenPanic,
}

macro_rules! payload_context {
    ($module:ident, $threads:literal) => {
        mod $module {
            use super::*;

            ecs::declare_context! {
                pub context Pay {
                    settings { entities: fixed(32), inner_parallelism: allow, threads: $threads }
                    components { A, B: contiguous; Mine: sparse_set; }
                    systems {
                        split: Split { write: [A], parallelism: split_every(8) }
                        left: Left { read: [B] }
                        right: Right { read: [B] }
                        shells: Shells { read: [B], output: Shell, parallelism: split_every(8) }
                        deferrer: Deferrer { read: [B] }
                        keepsake: Keepsake { read: [B] }
                    }
                }
            }

            impl System<Pay> for Split {
                fn process(&self, data: &mut Data<'_, Pay, Self>, _: &()) {
                    data.for_each::<&mut A>(|a| a.0 += 1);
                    if self.panic_in.contains(&data.subtask_index()) {
                        panic_any(self.ledger.grenade(self.payload));
                    }
                }
            }
            impl System<Pay> for Left {
                fn process(&self, _: &mut Data<'_, Pay, Self>, _: &()) {
                    if self.panic {
                        panic_any(self.ledger.grenade(OnDrop::Panic));
                    }
                }
            }
            impl System<Pay> for Right {
                fn process(&self, _: &mut Data<'_, Pay, Self>, _: &()) {
                    if self.panic {
                        panic_any(self.ledger.grenade(OnDrop::Panic));
                    }
                }
            }
            impl System<Pay> for Shells {
                fn process(&self, data: &mut Data<'_, Pay, Self>, _: &()) {
                    if self.arm {
                        data.output().0 = Some(self.ledger.grenade(OnDrop::Throw));
                    }
                }
            }
            impl System<Pay> for Deferrer {
                fn process(&self, data: &mut Data<'_, Pay, Self>, _: &()) {
                    if let Some(id) = self.kill {
                        data.kill(id);
                    }
                    let ran = self.ran.clone();
                    match self.mode {
                        Defer::Nothing => {}
                        Defer::Panic => {
                            let grenade = self.ledger.grenade(OnDrop::Panic);
                            data.defer(move |_| {
                                ran.fetch_add(1, SeqCst);
                                panic_any(grenade);
                            });
                            let harmless = self.ledger.grenade(OnDrop::Nothing);
                            let ran = self.ran.clone();
                            data.defer(move |_| {
                                ran.fetch_add(1, SeqCst);
                                drop(harmless);
                            });
                        }
                        Defer::Capture => {
                            let grenade = self.ledger.grenade(OnDrop::Throw);
                            data.defer(move |_| {
                                ran.fetch_add(1, SeqCst);
                                let _consumed = grenade;
                            });
                        }
                        Defer::ThenPanic | Defer::ArmedThenPanic => {
                            let on_drop = if self.mode == Defer::ThenPanic {
                                OnDrop::Nothing
                            } else {
                                OnDrop::Panic
                            };
                            let held = self.ledger.grenade(on_drop);
                            data.defer(move |_| {
                                ran.fetch_add(1, SeqCst);
                                drop(held);
                            });
                            panic_any(self.ledger.grenade(OnDrop::Panic));
                        }
                    }
                }
            }
            impl System<Pay> for Keepsake {
                fn process(&self, _: &mut Data<'_, Pay, Self>, _: &()) {}
            }

            /// A full context's worth of entities, half of them with a
            /// harmless mine: `(context, entities)`.
            pub fn world(ledger: &Ledger, threads: usize) -> (Pay, Vec<Entity>) {
                let systems = PaySystems {
                    split: Split {
                        ledger: ledger.clone(),
                        panic_in: Vec::new(),
                        payload: OnDrop::Panic,
                    },
                    left: Left {
                        ledger: ledger.clone(),
                        panic: false,
                    },
                    right: Right {
                        ledger: ledger.clone(),
                        panic: false,
                    },
                    shells: Shells {
                        ledger: ledger.clone(),
                        arm: false,
                    },
                    deferrer: Deferrer {
                        ledger: ledger.clone(),
                        ..Deferrer::default()
                    },
                    keepsake: Keepsake(None),
                };
                let mut ctx = Pay::with_threads(systems, Some(threads));
                let es = ctx.step(|p| {
                    (0..LIMIT as u64)
                        .map(|i| {
                            let e = p.spawn((A(0), B(i))).unwrap();
                            if i % 2 == 0 {
                                p.add(e, Mine(ledger.grenade(OnDrop::Nothing))).unwrap();
                            }
                            e
                        })
                        .collect()
                });
                assert_eq!(ctx.threads(), threads);
                (ctx, es)
            }

            /// Runs every system once, expecting it to panic; hands the
            /// payload that reached the caller to `defuse`.
            pub fn step_panics(ctx: &mut Pay) {
                let payload = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.run_all(&())))).unwrap_err();
                defuse(payload);
            }

            /// The context after a panic: its systems all run again (each
            /// entity's `A` grows by one per run), and, its entities killed,
            /// it fills to its limit again; then it is dropped, and every
            /// grenade was dropped exactly once.
            pub fn check_usable(mut ctx: Pay, ledger: &Ledger) {
                {
                    let split = ctx.system_mut::<Split>();
                    split.panic_in.clear();
                }
                ctx.system_mut::<Left>().panic = false;
                ctx.system_mut::<Right>().panic = false;
                ctx.system_mut::<Shells>().arm = false;
                ctx.system_mut::<Deferrer>().mode = Defer::Nothing;
                ctx.system_mut::<Deferrer>().kill = None;
                // Outputs the last run left armed go off as they are reset
                // (on one thread, the subtasks that did not run left theirs):
                // once each.
                for _ in 0..4 {
                    match catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.run_all(&())))) {
                        Ok(()) => break,
                        Err(payload) => defuse(payload),
                    }
                }
                let before: Vec<u64> = ctx.step(|p| {
                    let mut all = Vec::new();
                    for i in 0..p.len() as u32 {
                        let e = p.handle(EntityId::from_bits(i)).unwrap();
                        all.push((e, p.get::<A>(e).unwrap().0));
                    }
                    all.sort_by_key(|&(e, _)| e.slot());
                    all.into_iter().map(|(_, a)| a).collect()
                });
                ctx.step(|p| p.run_all(&()));
                ctx.step(|p| p.run_all(&()));
                let after: Vec<u64> = ctx.step(|p| {
                    let mut all = Vec::new();
                    for i in 0..p.len() as u32 {
                        let e = p.handle(EntityId::from_bits(i)).unwrap();
                        all.push((e, p.get::<A>(e).unwrap().0));
                    }
                    all.sort_by_key(|&(e, _)| e.slot());
                    all.into_iter().map(|(_, a)| a).collect()
                });
                assert_eq!(after.len(), before.len());
                for (b, a) in before.iter().zip(&after) {
                    assert_eq!(*a, b + 2, "every entity processed by both runs");
                }
                assert_eq!(ctx.subscribers::<Split>().len(), ctx.len());
                // Kill every entity: the context fills to its limit again.
                ctx.step(|p| {
                    let all: Vec<Entity> = (0..p.len() as u32)
                        .map(|i| p.handle(EntityId::from_bits(i)).unwrap())
                        .collect();
                    for e in all {
                        assert!(p.kill(e));
                    }
                });
                assert_eq!(ctx.len(), 0);
                ctx.step(|p| {
                    for i in 0..LIMIT as u64 {
                        p.spawn((A(0), B(i)))
                            .expect("no slot lost: the context fills to its limit");
                    }
                    assert!(p.spawn((A(0), B(0))).is_err(), "and not beyond");
                });
                ctx.step(|p| p.run_all(&()));
                assert_eq!(ctx.subscribers::<Split>().len(), LIMIT);
                drop(ctx);
                ledger.check_balanced();
            }
        }
    };
}

payload_context!(one_thread, 1);
payload_context!(two_threads, 2);

/// Runs `case` on a context of `threads` threads (from the two-thread
/// declaration, `with_threads`), under the watchdog.
macro_rules! on_threads {
    ($case:ident) => {
        mod $case {
            #[test]
            fn one_thread() {
                super::watchdog(|| super::$case::<1>());
            }

            #[test]
            fn two_threads() {
                super::watchdog(|| super::$case::<2>());
            }

            #[test]
            fn declared_one_thread() {
                super::watchdog(|| super::$case::<0>());
            }
        }
    };
}

/// The case's context: `THREADS` 0 is the one-thread declaration.
macro_rules! with_world {
    ($threads:expr, |$ctx:ident, $es:ident, $ledger:ident, $m:ident| $body:block) => {
        let $ledger = Ledger::default();
        if $threads == 0 {
            use one_thread as $m;
            #[allow(unused_mut, unused_variables)]
            let (mut $ctx, $es) = $m::world(&$ledger, 1);
            $body
            $m::check_usable($ctx, &$ledger);
        } else {
            use two_threads as $m;
            #[allow(unused_mut, unused_variables)]
            let (mut $ctx, $es) = $m::world(&$ledger, $threads);
            $body
            $m::check_usable($ctx, &$ledger);
        }
    };
}

fn one_subtask<const T: usize>() {
    with_world!(T, |ctx, es, ledger, m| {
        ctx.step(|p| p.run_all(&()));
        ctx.system_mut::<Split>().panic_in = vec![2];
        m::step_panics(&mut ctx);
        assert_eq!(ledger.made(), 16 + 1);
    });
}
on_threads!(one_subtask);

fn every_subtask<const T: usize>() {
    // Four payloads on two threads: the first reaches the caller, the team
    // drops the others where their panics cannot escape (each throws a
    // grenade, which goes off in turn).
    with_world!(T, |ctx, es, ledger, m| {
        ctx.system_mut::<Split>().panic_in = vec![0, 1, 2, 3];
        ctx.system_mut::<Split>().payload = OnDrop::Throw;
        m::step_panics(&mut ctx);
        if T == 2 {
            assert_eq!(ledger.made(), 16 + 4 + 4, "every subtask ran and panicked");
        }
        // The context is not left half-run: the next steps run while the
        // subtasks that panicked are still being dropped nowhere.
        m::step_panics(&mut ctx);
    });
}
on_threads!(every_subtask);

fn two_unsplit_systems<const T: usize>() {
    // On two threads both run (they are independent): the executor keeps
    // one payload and drops the other; on one thread the first stops the
    // step.
    with_world!(T, |ctx, es, ledger, m| {
        ctx.system_mut::<Left>().panic = true;
        ctx.system_mut::<Right>().panic = true;
        m::step_panics(&mut ctx);
        m::step_panics(&mut ctx);
    });
}
on_threads!(two_unsplit_systems);

fn split_and_unsplit_together<const T: usize>() {
    with_world!(T, |ctx, es, ledger, m| {
        ctx.system_mut::<Split>().panic_in = vec![1, 3];
        ctx.system_mut::<Left>().panic = true;
        ctx.system_mut::<Right>().panic = true;
        for _ in 0..3 {
            m::step_panics(&mut ctx);
        }
    });
}
on_threads!(split_and_unsplit_together);

fn outputs_reset<const T: usize>() {
    // Armed outputs throw grenade payloads when the next run resets them,
    // one per subtask.
    with_world!(T, |ctx, es, ledger, m| {
        ctx.system_mut::<Shells>().arm = true;
        ctx.step(|p| p.run_all(&()));
        ctx.system_mut::<Shells>().arm = false;
        m::step_panics(&mut ctx);
    });
}
on_threads!(outputs_reset);

fn deferred_function<const T: usize>() {
    // A deferred function panics with a grenade payload: the system's
    // later deferred functions are dropped (unrun), its kills applied by
    // the next refresh.
    with_world!(T, |ctx, es, ledger, m| {
        let victim = ctx.id_of(es[5]).unwrap();
        let ran = ctx.system::<Deferrer>().ran.clone();
        ctx.system_mut::<Deferrer>().mode = Defer::Panic;
        ctx.system_mut::<Deferrer>().kill = Some(victim);
        m::step_panics(&mut ctx);
        assert_eq!(ran.load(SeqCst), 1, "the second deferred function never ran");
        assert!(ctx.is_alive(es[5]), "the kill waits for the next refresh");
        ctx.system_mut::<Deferrer>().mode = Defer::Nothing;
        ctx.system_mut::<Deferrer>().kill = None;
        ctx.step(|_| {});
        assert!(!ctx.is_alive(es[5]), "then it is applied");
        assert_eq!(ctx.len(), LIMIT - 1);
    });
}
on_threads!(deferred_function);

fn deferred_after_a_panicking_run<const T: usize>() {
    // The kills and deferred functions of a run that panicked are dropped
    // (their captures once each, as the panic unwinds).
    with_world!(T, |ctx, es, ledger, m| {
        let victim = ctx.id_of(es[5]).unwrap();
        ctx.system_mut::<Deferrer>().mode = Defer::ThenPanic;
        ctx.system_mut::<Deferrer>().kill = Some(victim);
        m::step_panics(&mut ctx);
        ctx.system_mut::<Deferrer>().mode = Defer::Nothing;
        ctx.system_mut::<Deferrer>().kill = None;
        ctx.step(|_| {});
        assert!(ctx.is_alive(es[5]), "the kill of a panicking run is dropped");
        assert_eq!(
            ctx.system::<Deferrer>().ran.load(SeqCst),
            0,
            "so are its deferred functions"
        );
        assert_eq!(ledger.dropped(), ledger.made() - 16, "and what they hold");
    });
}
on_threads!(deferred_after_a_panicking_run);

fn deferred_capture<const T: usize>() {
    // A capture whose drop throws a grenade payload when the deferred
    // function consumes it: a panic of that function.
    with_world!(T, |ctx, es, ledger, m| {
        ctx.system_mut::<Deferrer>().mode = Defer::Capture;
        m::step_panics(&mut ctx);
        m::step_panics(&mut ctx);
        assert_eq!(ctx.system::<Deferrer>().ran.load(SeqCst), 2);
    });
}
on_threads!(deferred_capture);

fn reclamation<const T: usize>() {
    // Three killed entities whose mines throw grenade payloads: the first
    // payload reaches the caller once every killed entity is reclaimed; the
    // others are dropped where their panic cannot escape.
    with_world!(T, |ctx, es, ledger, m| {
        ctx.step(|p| {
            for i in [0, 4, 10] {
                let old = p.add(es[i], Mine(ledger.grenade(OnDrop::Throw))).unwrap();
                drop(old);
            }
        });
        let payload = catch_unwind(AssertUnwindSafe(|| {
            ctx.step(|p| {
                for i in [0, 4, 10, 7] {
                    assert!(p.kill(es[i]));
                }
            })
        }))
        .unwrap_err();
        defuse(payload);
        for i in [0, 4, 10, 7] {
            assert!(!ctx.is_alive(es[i]), "entity {i} is reclaimed");
        }
        assert_eq!(ctx.len(), LIMIT - 4);
        // 16 harmless mines (3 replaced), 3 mines and the 3 payloads their
        // drops threw.
        assert_eq!(ledger.made(), 16 + 3 + 3);
    });
}
on_threads!(reclamation);

fn state_dropped_with_the_context<const T: usize>() {
    // A system's state throws a grenade payload as the context drops it:
    // the panic reaches the code dropping the context, and every other
    // value is dropped.
    let ledger = Ledger::default();
    let keepsake = Some(ledger.grenade(OnDrop::Throw));
    let dropped = if T == 0 {
        let (mut ctx, _) = one_thread::world(&ledger, 1);
        ctx.step(|p| p.run_all(&()));
        ctx.system_mut::<Keepsake>().0 = keepsake;
        catch_unwind(AssertUnwindSafe(|| drop(ctx)))
    } else {
        let (mut ctx, _) = two_threads::world(&ledger, T);
        ctx.step(|p| p.run_all(&()));
        ctx.system_mut::<Keepsake>().0 = keepsake;
        catch_unwind(AssertUnwindSafe(|| drop(ctx)))
    };
    defuse(dropped.unwrap_err());
    ledger.check_balanced();
}
on_threads!(state_dropped_with_the_context);

/// The environment variable that makes the abort case's child do its work.
const CHILD: &str = "ECS_PANIC_PAYLOADS_CHILD";

/// The child of `a_drop_panicking_while_a_panic_unwinds_aborts`.
#[test]
#[ignore = "run by a_drop_panicking_while_a_panic_unwinds_aborts, in a child process"]
fn child_drops_a_grenade_while_a_system_panic_unwinds() {
    let Some(threads) = std::env::var_os(CHILD) else {
        return;
    };
    let threads = threads.to_str().unwrap().parse().unwrap();
    let ledger = Ledger::default();
    let (mut ctx, _) = two_threads::world(&ledger, threads);
    ctx.system_mut::<Deferrer>().mode = Defer::ArmedThenPanic;
    let _ = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.run_all(&()))));
    unreachable!("the process aborted");
}

/// The one abort: a value's own `drop` panicking while another panic
/// unwinds, as anywhere in Rust. Here a system records a deferred function
/// holding a grenade, then panics: the deferred function is dropped as the
/// panic unwinds, and the grenade goes off.
#[test]
fn a_drop_panicking_while_a_panic_unwinds_aborts() {
    for threads in ["1", "2"] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_drops_a_grenade_while_a_system_panic_unwinds",
                "--ignored",
                "--nocapture",
            ])
            .env(CHILD, threads)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "the child went on: {stderr}");
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(out.status.signal(), Some(6), "SIGABRT: {stderr}");
        }
        assert!(stderr.contains("panic in a destructor during cleanup"), "{stderr}");
    }
}

/// Where `Edges` panics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Edge {
    #[default]
    Nowhere,
    Before,
    After,
    /// In `Fuse::default`, which subtasks call as they take their output.
    OutputDefault,
}

/// Whether `Fuse::default` panics (only `Edges` of the `Edgy` context,
/// used by one test, makes fuses).
static FUSE_LEDGER: std::sync::Mutex<Option<Ledger>> = std::sync::Mutex::new(None);

/// An output whose `Default` panics with a grenade payload when armed.
pub struct Fuse;

impl Default for Fuse {
    fn default() -> Self {
        let armed = FUSE_LEDGER.lock().unwrap().clone();
        if let Some(ledger) = armed {
            panic_any(ledger.grenade(OnDrop::Panic));
        }
        Fuse
    }
}

#[derive(Default)]
pub struct Edges {
    pub ledger: Ledger,
    pub edge: Edge,
}

ecs::declare_context! {
    pub context Edgy {
        settings { entities: fixed(8), inner_parallelism: allow, threads: 2 }
        components { A: contiguous; }
        systems { edges: Edges { write: [A], output: Fuse, parallelism: split_every(2) } }
    }
}

impl System<Edgy> for Edges {
    fn before(&mut self, _: &()) {
        if self.edge == Edge::Before {
            panic_any(self.ledger.grenade(OnDrop::Panic));
        }
    }

    fn process(&self, data: &mut Data<'_, Edgy, Self>, _: &()) {
        data.for_each::<&mut A>(|a| a.0 += 1);
    }

    fn after(&mut self, outputs: &mut [Fuse], _: &()) {
        assert_eq!(outputs.len(), 4);
        if self.edge == Edge::After {
            panic_any(self.ledger.grenade(OnDrop::Panic));
        }
    }
}

#[test]
fn before_after_and_output_default() {
    // One test: the fuses' switch is global.
    for threads in [1, 2] {
        for edge in [Edge::Before, Edge::After, Edge::OutputDefault] {
            watchdog(move || {
                let ledger = Ledger::default();
                let mut ctx = Edgy::with_threads(
                    EdgySystems {
                        edges: Edges {
                            ledger: ledger.clone(),
                            edge: Edge::Nowhere,
                        },
                    },
                    Some(threads),
                );
                let es = ctx.step(|p| (0..8).map(|i| p.spawn((A(i),)).unwrap()).collect::<Vec<_>>());
                ctx.step(|p| p.run_all(&()));
                ctx.system_mut::<Edges>().edge = edge;
                if edge == Edge::OutputDefault {
                    *FUSE_LEDGER.lock().unwrap() = Some(ledger.clone());
                }
                let payload = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.run_all(&()))));
                *FUSE_LEDGER.lock().unwrap() = None;
                defuse(payload.unwrap_err());
                ctx.system_mut::<Edges>().edge = Edge::Nowhere;
                let before: Vec<u64> = ctx.step(|p| es.iter().map(|&e| p.get::<A>(e).unwrap().0).collect());
                ctx.step(|p| p.run_all(&()));
                ctx.step(|p| {
                    for (&e, b) in es.iter().zip(before) {
                        assert_eq!(p.get::<A>(e).unwrap().0, b + 1, "{edge:?} on {threads} threads");
                    }
                    for &e in &es {
                        p.kill(e);
                    }
                });
                ctx.step(|p| {
                    for i in 0..8 {
                        p.spawn((A(i),)).expect("no slot lost");
                    }
                });
                drop(ctx);
                ledger.check_balanced();
                assert_eq!(
                    ledger.made(),
                    if threads == 2 && edge == Edge::OutputDefault {
                        4
                    } else {
                        1
                    }
                );
            });
        }
    }
}
