//! Blocked iteration: when a system's entities are one run of ids,
//! `for_entities_in_blocks` (and `for_each`/`for_entities` for a query
//! writing one small `contiguous` component) hand them out in blocks whose
//! written values are moved out of their columns and back. Every entity
//! must still be visited once with its own values, whatever the count, the
//! split, the storage and the way chosen, and a panic inside a block must
//! move every value back.

use ecs::{Data, EntityId, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct P(pub u32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V(pub u32);
/// Owns heap memory and is staged (24 bytes): a value moved out and not
/// back would leak or be freed twice.
#[derive(Clone, Debug, PartialEq)]
pub struct H(pub Vec<u32>);
/// Too large to stage: written in place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Big(pub [u64; 16]);
/// Counts its clones: the context must drop each exactly once.
#[derive(Clone, Debug)]
pub struct Rc(pub Arc<()>);
/// Kept in a sparse set, whose values are not side by side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sp(pub u32);
/// Written by `for_each` alone (so in blocks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Q(pub u32);
/// Written by `for_each_in_place`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct R(pub u32);
/// Written alone by `for_each` (so in place, over the column's run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct W(pub u32);
/// Marks the entities `Alone` processes: the later half of the ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct M(pub u32);
/// A sparse set written beside `W` with nothing read: in place, one value
/// at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct S2(pub u32);

/// Adds `V` to `P`, pushes the id onto `H`, bumps `Big`, and records the
/// ids it saw; panics on entity `panic_at` after changing it. In blocks,
/// with ids and three staged components (one owning heap memory).
#[derive(Default)]
pub struct Stepper {
    pub panic_at: Option<u32>,
}
/// Writes a sparse-set component, whose blocks reach values one by one.
#[derive(Default)]
pub struct Sparse;
/// Adds `P` to `Q` with `for_each`, which walks its one staged write in
/// blocks.
#[derive(Default)]
pub struct Plain;
/// Adds `V` to `R` with `for_each_in_place`.
#[derive(Default)]
pub struct InPlace;
/// Writes `W` (and `S2`) with queries that read nothing, over the entities
/// marked `M`, whose ids are one run that starts after the unmarked ones.
#[derive(Default)]
pub struct Alone;

macro_rules! blocks_context {
    ($module:ident, $($settings:tt)*) => {
        mod $module {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { $($settings)* }
                    components { P, V, H, Big, Rc, Q, R, W, M: contiguous; Sp, S2: sparse_set; }
                    systems {
                        stepper: Stepper { read: [V], write: [P, H, Big, Rc], output: Vec<u32>, parallelism: split_every(20) }
                        sparse: Sparse { read: [V], write: [Sp] }
                        plain: Plain { read: [P], write: [Q], after: [stepper], parallelism: split_every(20) }
                        in_place: InPlace { read: [V], write: [R], parallelism: split_every(20) }
                        alone: Alone { read: [M], write: [W, S2], parallelism: split_every(20) }
                    }
                }
            }

            impl System<Ctx> for Stepper {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let panic_at = self.panic_at;
                    data.for_entities_in_blocks::<(EntityId, &mut P, &V, &mut H, &mut Big, &mut Rc)>(|view, (id, p, v, h, big, _)| {
                        p.0 += v.0;
                        h.0.push(id.to_bits());
                        big.0[15] += 1;
                        view.output().push(id.to_bits());
                        if panic_at == Some(id.to_bits()) {
                            panic!("entity {id:?}");
                        }
                    });
                }
            }

            impl System<Ctx> for Sparse {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each_in_blocks::<(&mut Sp, &V)>(|(s, v)| s.0 += v.0);
                }
            }

            impl System<Ctx> for Plain {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<(&mut Q, &P)>(|(q, p)| q.0 += p.0);
                }
            }

            impl System<Ctx> for InPlace {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each_in_place::<(&V, &mut R)>(|(v, r)| r.0 += v.0);
                }
            }

            impl System<Ctx> for Alone {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<&mut W>(|w| w.0 = 3 * w.0 + 1);
                    data.for_each::<(&mut S2, &mut W)>(|(s, w)| {
                        s.0 += w.0;
                        w.0 += 1;
                    });
                }
            }

            fn world(n: u32, rc: &Arc<()>) -> Ctx {
                let mut ctx = Ctx::new();
                ctx.step(|p| {
                    p.spawn_batch((0..n).map(|i| (P(i), V(1000), H(vec![i]), Big([u64::from(i); 16]), Rc(rc.clone()), Sp(i), Q(i), R(i))))
                        .unwrap()
                        .count()
                });
                ctx
            }

            #[test]
            fn every_entity_once_with_its_own_values() {
                for n in [0, 1, 7, 8, 9, 15, 16, 17, 20, 21, 40, 41, 100] {
                    let rc = Arc::new(());
                    let mut ctx = world(n, &rc);
                    ctx.step(|p| p.run_all(&()));
                    ctx.step(|p| p.run_all(&()));
                    ctx.step(|p| {
                        let mut seen: Vec<u32> = p.outputs::<Stepper>().iter().flatten().copied().collect();
                        seen.sort_unstable();
                        assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{n} entities: each once per run");
                        for i in 0..n {
                            let e = p.handle(EntityId::from_bits(i)).unwrap();
                            assert_eq!(p.get::<P>(e), Some(&P(i + 2000)), "{n} entities: entity {i}");
                            assert_eq!(p.get::<H>(e), Some(&H(vec![i, i, i])), "{n} entities: entity {i}");
                            let mut big = [u64::from(i); 16];
                            big[15] += 2;
                            assert_eq!(p.get::<Big>(e), Some(&Big(big)), "{n} entities: entity {i}");
                            assert_eq!(p.get::<Sp>(e), Some(&Sp(i + 2000)), "{n} entities: entity {i}");
                            // `P` was `i + 1000`, then `i + 2000`, at each run.
                            assert_eq!(p.get::<Q>(e), Some(&Q(3 * i + 3000)), "{n} entities: entity {i}");
                            assert_eq!(p.get::<R>(e), Some(&R(i + 2000)), "{n} entities: entity {i}");
                        }
                    });
                    drop(ctx);
                    assert_eq!(Arc::strong_count(&rc), 1, "{n} entities: every value dropped once");
                }
            }

            #[test]
            fn a_write_alone_walks_its_run_in_place() {
                for n in [0, 1, 7, 8, 9, 20, 21, 41, 63] {
                    let mut ctx = Ctx::new();
                    // Ids `0..n` unmarked, `n..2n` marked: `Alone`'s run
                    // starts at `n`, and its subtasks' ranges inside it.
                    ctx.step(|p| {
                        p.spawn_batch((0..n).map(|i| (W(i), S2(i)))).unwrap().count();
                        p.spawn_batch((n..2 * n).map(|i| (W(i), S2(i), M(i)))).unwrap().count();
                    });
                    ctx.step(|p| p.run_all(&()));
                    ctx.step(|p| {
                        // The step proxy's walk over the run of `S2`'s
                        // holders (all ids), in place.
                        p.for_each::<&mut S2>(|s| s.0 += 1);
                        for i in 0..2 * n {
                            let e = p.handle(EntityId::from_bits(i)).unwrap();
                            let (w, s) = if i < n { (i, i + 1) } else { (3 * i + 2, i + 3 * i + 1 + 1) };
                            assert_eq!(p.get::<W>(e), Some(&W(w)), "{n} entities: entity {i}");
                            assert_eq!(p.get::<S2>(e), Some(&S2(s)), "{n} entities: entity {i}");
                        }
                        // The step proxy's walk in blocks over the run of
                        // the marked ids, which starts at `n`.
                        p.for_each::<(&mut W, &M)>(|(w, m)| w.0 += m.0);
                        for i in 0..2 * n {
                            let e = p.handle(EntityId::from_bits(i)).unwrap();
                            let w = if i < n { i } else { 4 * i + 2 };
                            assert_eq!(p.get::<W>(e), Some(&W(w)), "{n} entities: entity {i}");
                        }
                    });
                }
            }

            #[test]
            fn a_panic_inside_a_block_moves_every_value_back() {
                let n = 40;
                let rc = Arc::new(());
                let mut ctx = world(n, &rc);
                // Two subtasks, ids 0..20 and 20..40: entity 10 is the third
                // of the first subtask's second block, 8..16.
                ctx.system_mut::<Stepper>().panic_at = Some(10);
                let r = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.run_all(&()))));
                assert!(r.is_err(), "the system's panic reaches the caller");
                ctx.system_mut::<Stepper>().panic_at = None;
                ctx.step(|p| {
                    for i in 0..n {
                        let e = p.handle(EntityId::from_bits(i)).unwrap();
                        let h = &p.get::<H>(e).unwrap().0;
                        let p_ = p.get::<P>(e).unwrap().0;
                        // The first subtask stopped after entity 10; the
                        // others (on this thread or another) may or may not
                        // have run, but each entity changed wholly or not.
                        let ran = h.len() == 2;
                        assert!(h.len() == 1 || ran, "entity {i}: {h:?}");
                        assert_eq!(p_, if ran { i + 1000 } else { i }, "entity {i}");
                        if i <= 10 {
                            assert!(ran, "entity {i} ran before the panic");
                        } else if i < 20 {
                            assert!(!ran, "entity {i} comes after the panic in its subtask");
                        }
                    }
                });
                // The context stays usable and drops every value once.
                ctx.step(|p| p.run_all(&()));
                drop(ctx);
                assert_eq!(Arc::strong_count(&rc), 1, "every value dropped once");
            }
        }
    };
}

blocks_context!(one_thread, entities: fixed(128), threads: 1);
blocks_context!(two_threads, entities: dynamic(4), threads: 2);
blocks_context!(serial, entities: fixed(128), inner_parallelism: deny, threads: 2);

/// A 64-byte position, the largest a block stages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideP(pub [u64; 8]);
/// A 64-byte velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideV(pub [u64; 8]);
/// Adds `WideV` to `WideP` in blocks, `WideP` staged.
#[derive(Default)]
pub struct WideMove;

/// Runs of ids short and long: a run whose blocks hold up to 512 KiB (the
/// staged values' bytes and as many per element read) is walked with the
/// staged values handed over as a reference (`block_walk::walk_apart`),
/// a longer one without; both must visit every entity once with its own
/// values, from a system and from the step proxy.
mod long_runs {
    use super::*;

    ecs::declare_context! {
        pub context Wide {
            settings { threads: 1 }
            components { WideP, WideV: contiguous; }
            systems { movement: WideMove { read: [WideV], write: [WideP] } }
        }
    }

    impl System<Wide> for WideMove {
        fn process(&self, data: &mut Data<'_, Wide, Self>, _: &()) {
            data.for_each::<(&mut WideP, &WideV)>(|(p, v)| {
                for (p, v) in p.0.iter_mut().zip(v.0) {
                    *p += v;
                }
            });
        }
    }

    #[test]
    fn every_entity_moves_once_whatever_the_run_length() {
        // 4 096 entities of 64 + 64 bytes make 512 KiB: a run of 4 104 is
        // past the limit, 4 096 at it, 100 well inside.
        for n in [100u64, 4_096, 4_104] {
            let mut w = Wide::new();
            w.step(|p| {
                p.spawn_batch((0..n).map(|i| (WideP([i; 8]), WideV([1000 + i; 8]))))
                    .unwrap()
                    .count()
            });
            w.step(|p| p.run_all(&()));
            // The step proxy's walk in blocks over the same run.
            w.step(|p| p.for_each::<(&mut WideP, &WideV)>(|(p, v)| p.0[7] += v.0[0]));
            w.step(|p| {
                for i in 0..n {
                    let e = p.handle(EntityId::from_bits(i as u32)).unwrap();
                    let mut want = [1000 + 2 * i; 8];
                    want[7] += 1000 + i;
                    assert_eq!(p.get::<WideP>(e), Some(&WideP(want)), "{n} entities: entity {i}");
                }
            });
        }
    }
}
