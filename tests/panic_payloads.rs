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
/// caller drops it (that panic is the caller's, caught here).
fn defuse(payload: Box<dyn Any + Send>) {
    let grenade = match payload.downcast::<Grenade>() {
        Ok(grenade) => grenade,
        Err(other) => panic!("the caller got another payload: {:?}", other.downcast_ref::<&str>()),
    };
    assert_eq!(grenade.on_drop, OnDrop::Panic);
    let went_off = catch_unwind(AssertUnwindSafe(|| drop(grenade))).unwrap_err();
    assert_eq!(went_off.downcast_ref::<&str>(), Some(&"a grenade went off"));
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
/// subtasks with a grenade payload.
#[derive(Default)]
pub struct Split {
    pub ledger: Ledger,
    pub panic_in: Vec<usize>,
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
                        panic_any(self.ledger.grenade(OnDrop::Panic));
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
    // drops the others (each panics in its `drop`) where that cannot escape.
    with_world!(T, |ctx, es, ledger, m| {
        ctx.system_mut::<Split>().panic_in = vec![0, 1, 2, 3];
        m::step_panics(&mut ctx);
        if T == 2 {
            assert_eq!(ledger.made(), 16 + 4, "every subtask ran and panicked");
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
