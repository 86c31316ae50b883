//! Small cases for Miri of panics whose payload's `drop` panics (the full
//! set is tests/panic_payloads.rs): several subtasks of a split system and
//! two unsplit systems panicking in one step, and components throwing such
//! payloads while killed entities are reclaimed. On two threads, a payload
//! dropped where its panic could unwind let subtasks run against a freed
//! frame: Miri reports that as a data race with a deallocation. They also
//! run under plain `cargo test`.

use ecs::{Data, EntityId, System};
use std::any::Any;
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

/// Made and dropped, of every grenade of a case.
#[derive(Clone, Default)]
pub struct Ledger(Arc<(AtomicUsize, AtomicUsize)>);

impl Ledger {
    fn grenade(&self, throws: bool) -> Grenade {
        self.0 .0.fetch_add(1, SeqCst);
        Grenade {
            ledger: self.clone(),
            throws,
        }
    }
}

/// Panics when dropped: with a `&str`, or (`throws`) with a grenade.
pub struct Grenade {
    ledger: Ledger,
    throws: bool,
}

impl Drop for Grenade {
    fn drop(&mut self) {
        self.ledger.0 .1.fetch_add(1, SeqCst);
        if self.throws {
            panic_any(self.ledger.grenade(false));
        }
        panic!("a grenade went off");
    }
}

/// The payload that reached the caller is a grenade, which goes off when
/// dropped.
fn defuse(payload: Box<dyn Any + Send>) {
    let Ok(grenade) = payload.downcast::<Grenade>() else {
        panic!("the caller got another payload");
    };
    assert!(catch_unwind(AssertUnwindSafe(|| drop(grenade))).is_err());
}

pub struct A(pub u32);
pub struct Mine(pub Grenade);

#[derive(Default)]
pub struct Split {
    pub ledger: Ledger,
    pub armed: bool,
}
#[derive(Default)]
pub struct Left {
    pub ledger: Ledger,
    pub armed: bool,
}
#[derive(Default)]
pub struct Right {
    pub ledger: Ledger,
    pub armed: bool,
}

macro_rules! miri_context {
    ($module:ident, $threads:literal) => {
        pub mod $module {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: fixed(6), inner_parallelism: allow, threads: $threads }
                    components { A: contiguous; Mine: sparse_set; }
                    systems {
                        split: Split { write: [A], parallelism: split_every(2) }
                        left: Left { read: [Mine] }
                        right: Right { read: [Mine] }
                    }
                }
            }

            impl System<Ctx> for Split {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<&mut A>(|a| a.0 += 1);
                    if self.armed {
                        panic_any(self.ledger.grenade(false));
                    }
                }
            }
            impl System<Ctx> for Left {
                fn process(&self, _: &mut Data<'_, Ctx, Self>, _: &()) {
                    if self.armed {
                        panic_any(self.ledger.grenade(false));
                    }
                }
            }
            impl System<Ctx> for Right {
                fn process(&self, _: &mut Data<'_, Ctx, Self>, _: &()) {
                    if self.armed {
                        panic_any(self.ledger.grenade(false));
                    }
                }
            }

            /// Every case in turn on one context; then it still runs, fills
            /// to its limit, and every grenade was dropped exactly once.
            #[test]
            fn panicking_payload_drops() {
                let ledger = Ledger::default();
                let systems = CtxSystems {
                    split: Split {
                        ledger: ledger.clone(),
                        armed: true,
                    },
                    left: Left {
                        ledger: ledger.clone(),
                        armed: true,
                    },
                    right: Right {
                        ledger: ledger.clone(),
                        armed: true,
                    },
                };
                let mut ctx = Ctx::with_systems(systems);
                let es = ctx.step(|p| (0..6).map(|i| p.spawn((A(i),)).unwrap()).collect::<Vec<_>>());
                // Three subtasks, then two systems, then all of them panic.
                for (split, unsplit) in [(true, false), (false, true), (true, true)] {
                    ctx.system_mut::<Split>().armed = split;
                    ctx.system_mut::<Left>().armed = unsplit;
                    ctx.system_mut::<Right>().armed = unsplit;
                    defuse(catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.run_all(&())))).unwrap_err());
                }
                ctx.system_mut::<Split>().armed = false;
                ctx.system_mut::<Left>().armed = false;
                ctx.system_mut::<Right>().armed = false;
                // Two killed entities whose mines throw grenade payloads.
                ctx.step(|p| {
                    for &e in &es[1..3] {
                        p.add(e, Mine(ledger.grenade(true))).unwrap();
                    }
                });
                ctx.step(|p| p.run_all(&()));
                let payload = catch_unwind(AssertUnwindSafe(|| {
                    ctx.step(|p| {
                        for &e in &es[..3] {
                            assert!(p.kill(e));
                        }
                    })
                }))
                .unwrap_err();
                defuse(payload);
                assert_eq!(ctx.len(), 3);
                ctx.step(|p| p.run_all(&()));
                ctx.step(|p| {
                    let ids: Vec<_> = (0..3)
                        .map(|i| p.handle(EntityId::from_bits(i)).unwrap())
                        .collect();
                    for e in ids {
                        assert!(p.get::<A>(e).unwrap().0 >= 1);
                    }
                    for i in 0..3 {
                        p.spawn((A(i),)).expect("no slot lost");
                    }
                    assert!(p.spawn((A(0),)).is_err());
                });
                drop(ctx);
                assert_eq!(
                    ledger.0 .1.load(SeqCst),
                    ledger.0 .0.load(SeqCst),
                    "each dropped once"
                );
            }
        }
    };
}

miri_context!(one_thread, 1);
miri_context!(two_threads, 2);
