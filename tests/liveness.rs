//! Liveness from any thread: a `Liveness` handle checks entities without a
//! lock while the context runs steps, in fixed and dynamic contexts (whose
//! table grows in chunks that never move), on one and two threads with
//! split systems, and agrees with the context about every handle.

use ecs::{Data, Entity, Liveness, System};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Life(pub u32);

/// Ages every entity; kills those whose life runs out (at the refresh).
#[derive(Default)]
pub struct Age;

/// Life of the entities that never die.
const FOREVER: u32 = u32::MAX;

macro_rules! cases {
    ($name:ident, $($entities:tt)*) => {
        mod $name {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: $($entities)*, inner_parallelism: allow, threads: 2 }
                    components { Life: contiguous; }
                    systems { age: Age { write: [Life], parallelism: split_every(64) } }
                }
            }

            impl System<Ctx> for Age {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_entities::<(ecs::EntityId, &mut Life)>(|view, (id, life)| {
                        if life.0 != FOREVER {
                            life.0 -= 1;
                            if life.0 == 0 {
                                view.kill(id);
                            }
                        }
                    });
                }
            }

            /// Reader threads check handles while this thread runs steps that
            /// create, kill (directly and through a split system) and
            /// reclaim entities, and (in the dynamic context) grow the
            /// table: the immortal entities always read alive; an entity
            /// this thread saw dead, and told the readers of, never reads
            /// alive again.
            fn readers_hammer_during_steps(threads: usize) {
                let mut w = Ctx::with_threads(CtxSystems { age: Age }, Some(threads));
                let immortal: Vec<Entity> = w.step(|p| (0..100).map(|_| p.spawn((Life(FOREVER),)).unwrap()).collect());
                let liveness = w.liveness();
                let done = Arc::new(AtomicBool::new(false));
                let mut senders = Vec::new();
                let readers: Vec<_> = (0..2)
                    .map(|_| {
                        let (tx, rx) = mpsc::channel::<Vec<Entity>>();
                        senders.push(tx);
                        let (liveness, immortal, done) = (liveness.clone(), immortal.clone(), done.clone());
                        std::thread::spawn(move || {
                            let mut dead = Vec::new();
                            let mut checks = 0u64;
                            loop {
                                let finished = done.load(Ordering::Acquire);
                                while let Ok(batch) = rx.try_recv() {
                                    dead.extend(batch);
                                }
                                for &e in &immortal {
                                    assert!(liveness.is_alive(e), "immortal {e:?} read dead");
                                }
                                for &e in &dead {
                                    assert!(!liveness.is_alive(e), "{e:?} read alive after its death was told");
                                }
                                checks += (immortal.len() + dead.len()) as u64;
                                if finished {
                                    return (checks, dead.len());
                                }
                            }
                        })
                    })
                    .collect();
                let mut churn: Vec<Entity> = Vec::new();
                let rounds = 120u32;
                for round in 0..rounds {
                    let n = 20 + (round % 7) * 10;
                    w.step(|p| {
                        churn.extend(p.spawn_batch((0..n).map(|i| (Life(1 + (i + round) % 3),))).unwrap());
                        for e in churn.iter().step_by(5) {
                            p.kill(*e);
                        }
                        p.run_all(&());
                    });
                    let (gone, alive): (Vec<Entity>, Vec<Entity>) = churn.iter().partition(|&&e| !w.is_alive(e));
                    for &e in &alive {
                        assert!(liveness.is_alive(e), "this thread agrees with the context");
                    }
                    for tx in &senders {
                        tx.send(gone.clone()).unwrap();
                    }
                    churn = alive;
                }
                done.store(true, Ordering::Release);
                for r in readers {
                    let (checks, dead) = r.join().unwrap();
                    assert!(checks > 0 && dead > 1000, "the readers checked ({checks}) and learnt of deaths ({dead})");
                }
                assert_eq!(w.len(), immortal.len() + churn.len());
            }

            #[test]
            fn readers_hammer_during_steps_on_one_thread() {
                readers_hammer_during_steps(1);
            }

            #[test]
            fn readers_hammer_during_steps_on_two_threads() {
                readers_hammer_during_steps(2);
            }

            /// A handle asked for late sees the state the context holds; a
            /// system's kill reads alive until the refresh, the step proxy's
            /// at once; after the context is dropped, all read dead.
            #[test]
            fn a_late_handle_agrees_and_kills_show() {
                let mut w = Ctx::with_threads(CtxSystems { age: Age }, Some(2));
                let all: Vec<Entity> = w.step(|p| p.spawn_batch((0..300).map(|i| (Life(1 + i % 2),))).unwrap().collect());
                w.step(|p| {
                    for e in all.iter().step_by(3) {
                        p.kill(*e);
                    }
                });
                let liveness: Liveness = w.step(|p| p.liveness());
                for &e in &all {
                    assert_eq!(liveness.is_alive(e), w.is_alive(e));
                }
                let survivor = all[1];
                let short = all[2];
                assert_eq!(w.step(|p| p.get::<Life>(short).copied()), Some(Life(1)));
                w.step(|p| {
                    p.run_all(&());
                    assert!(liveness.is_alive(short), "a system's kill waits for the refresh");
                    p.kill(survivor);
                    assert!(!liveness.is_alive(survivor), "the step proxy's kill is at once");
                });
                assert!(!liveness.is_alive(short));
                let again = w.step(|p| p.spawn((Life(FOREVER),)).unwrap());
                assert!(liveness.is_alive(again) && w.liveness().is_alive(again), "handles share one table");
                for &e in &all {
                    assert_eq!(liveness.is_alive(e), w.is_alive(e));
                }
                drop(w);
                assert!(!liveness.is_alive(again), "the context is gone: everything reads dead");
                assert!(all.iter().all(|&e| !liveness.is_alive(e)));
            }
        }
    };
}

cases!(fixed, fixed(4096));
cases!(dynamic, dynamic(4));

/// A dynamic context's table grows in chunks while readers hold handles:
/// thousands of slots (several chunks of the 1024-slot first one).
#[test]
fn a_dynamic_table_grows_under_readers() {
    use dynamic::{Ctx, CtxSystems};
    let mut w = Ctx::with_threads(CtxSystems { age: Age }, Some(1));
    let liveness = w.liveness();
    let first = w.step(|p| p.spawn((Life(FOREVER),)).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (liveness, stop) = (liveness.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Acquire) {
                assert!(liveness.is_alive(first));
            }
        })
    };
    let mut all = Vec::new();
    for _ in 0..10 {
        all.extend(w.step(|p| {
            p.spawn_batch((0..800).map(|_| (Life(FOREVER),)))
                .unwrap()
                .collect::<Vec<_>>()
        }));
    }
    stop.store(true, Ordering::Release);
    reader.join().unwrap();
    assert!(all.iter().all(|&e| liveness.is_alive(e)));
    assert!(all.iter().any(|e| e.slot() >= 3 * 1024), "past the first two chunks");
}
