//! `PreparedQuery`: a query kept between steps visits exactly what the step
//! proxy's `for_each` visits, after every kind of change (creation, kill,
//! reclamation that moves ids, component added or removed one by one or in
//! bulk, archetype sorting), over every storage, fixed and dynamic limits,
//! and when one prepared query is used with two contexts.

use ecs::{EntityId, PreparedQuery};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Val(pub u32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Other(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Mark;

/// A small deterministic generator (xorshift), so that a failure repeats.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n)) as u32
    }
}

/// Random changes, and after each the prepared queries compared with
/// `for_each` (ids and values, in order); the mutable one also writes, and
/// the write is checked through `get`.
macro_rules! model_case {
    ($test:ident, $limit:expr, $layout:ident, { $($components:tt)* }) => {
        mod $test {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: $limit, layout: $layout }
                    components { $($components)* Mark: tag; }
                    systems {}
                }
            }

            /// Checks both prepared queries against `for_each` in this step.
            fn check(
                p: &mut ecs::Step<'_, Ctx>,
                both: &mut PreparedQuery<Ctx, (EntityId, &'static mut Val, &'static Other)>,
                marked: &mut PreparedQuery<Ctx, (EntityId, &'static Val, &'static Mark)>,
            ) {
                let mut want = Vec::new();
                p.for_each::<(EntityId, &Val, &Other)>(|(id, v, o)| want.push((id, v.0, o.0)));
                let mut got = Vec::new();
                both.for_each(p, |(id, v, o)| {
                    got.push((id, v.0, o.0));
                    v.0 += 1;
                });
                assert_eq!(got, want, "the prepared query visits what `for_each` visits");
                // Its writes landed on those entities.
                let mut after = Vec::new();
                p.for_each::<(EntityId, &Val, &Other)>(|(id, v, o)| after.push((id, v.0, o.0)));
                let bumped: Vec<_> = want.iter().map(|&(id, v, o)| (id, v + 1, o)).collect();
                assert_eq!(after, bumped);
                let mut want = Vec::new();
                p.for_each::<(EntityId, &Val, &Mark)>(|(id, v, _)| want.push((id, v.0)));
                let mut got = Vec::new();
                marked.for_each(p, |(id, v, _)| got.push((id, v.0)));
                assert_eq!(got, want);
            }

            #[test]
            fn agrees_with_for_each_after_every_change() {
                for seed in 1..=6u64 {
                    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    let mut ctx = Ctx::new();
                    let mut both = PreparedQuery::new();
                    let mut marked = PreparedQuery::new();
                    let mut alive = Vec::new();
                    for round in 0..60 {
                        ctx.step(|p| {
                            for _ in 0..rng.below(4) {
                                let op = rng.below(9);
                                let pick = (!alive.is_empty()).then(|| alive[rng.below(alive.len() as u32) as usize]);
                                match (op, pick) {
                                    (0, _) => {
                                        let n = rng.below(12);
                                        for i in 0..n {
                                            let e = match i % 3 {
                                                0 => p.spawn((Val(i), Other(round), Mark)),
                                                1 => p.spawn((Val(i), Other(round))),
                                                _ => p.spawn((Other(i),)),
                                            };
                                            if let Ok(e) = e {
                                                alive.push(e);
                                            }
                                        }
                                    }
                                    (1, _) => {
                                        let n = rng.below(10) as usize;
                                        if let Ok(s) = p.spawn_batch((0..n as u32).map(|i| (Val(i), Other(i)))) {
                                            alive.extend(s);
                                        }
                                    }
                                    (2, Some(e)) => {
                                        p.kill(e);
                                        alive.retain(|&x| x != e);
                                    }
                                    (3, Some(e)) => drop(p.add(e, Val(7))),
                                    (4, Some(e)) => drop(p.remove::<Val>(e)),
                                    (5, Some(e)) => drop(p.add(e, Mark)),
                                    (6, Some(e)) => drop(p.remove::<Other>(e)),
                                    (7, _) if rng.below(4) == 0 => {
                                        p.remove_from_all::<Mark>();
                                    }
                                    (8, _) if rng.below(4) == 0 => {
                                        p.add_to_all::<(Other,), _>(|_| Mark);
                                    }
                                    _ => {}
                                }
                                check(p, &mut both, &mut marked);
                            }
                            check(p, &mut both, &mut marked);
                        });
                        // After the refresh (reclamation moved ids, the
                        // layout may have sorted them).
                        ctx.step(|p| check(p, &mut both, &mut marked));
                    }
                }
            }
        }
    };
}

model_case!(contiguous_fixed, fixed(200), ids, { Val, Other: contiguous; });
model_case!(contiguous_dynamic, dynamic(4), ids, { Val, Other: contiguous; });
model_case!(grouped_fixed, fixed(200), ids, { (Val, Other): grouped; });
model_case!(sparse_set_dynamic, dynamic(4), ids, { Val, Other: sparse_set; });
model_case!(hash_map_fixed, fixed(200), ids, { Val, Other: hash_map; });
model_case!(mixed_dynamic, dynamic, ids, { Val: sparse_set; Other: contiguous; });
model_case!(archetypes_dynamic, dynamic, archetypes, { Val, Other: contiguous; });

mod stale {
    use super::*;

    ecs::declare_context! {
        pub context Ctx {
            components { Val, Other: contiguous; }
            systems {}
        }
    }

    fn seen(p: &mut ecs::Step<'_, Ctx>, q: &mut PreparedQuery<Ctx, &'static Val>) -> Vec<u32> {
        let mut out = Vec::new();
        q.for_each(p, |v| out.push(v.0));
        out
    }

    /// Each kind of change, made between two calls of one prepared query,
    /// is seen by the second call.
    #[test]
    fn each_change_is_seen_by_the_next_call() {
        let mut ctx = Ctx::new();
        let mut q = PreparedQuery::new();
        let (a, b, c) = ctx.step(|p| {
            let e = (0..3).map(|i| p.spawn((Val(i), Other(i))).unwrap()).collect::<Vec<_>>();
            (e[0], e[1], e[2])
        });
        ctx.step(|p| {
            assert_eq!(seen(p, &mut q), [0, 1, 2]);
            // Created.
            let d = p.spawn((Val(3),)).unwrap();
            assert_eq!(seen(p, &mut q), [0, 1, 2, 3]);
            // Removed.
            p.remove::<Val>(b).unwrap();
            assert_eq!(seen(p, &mut q), [0, 2, 3]);
            // Added.
            p.add(b, Val(9)).unwrap();
            assert_eq!(seen(p, &mut q), [0, 9, 2, 3]);
            // Killed: skipped at once, though reclaimed only by the refresh.
            p.kill(a);
            assert_eq!(seen(p, &mut q), [9, 2, 3]);
            // Removed from every entity at once.
            p.remove_from_all::<Val>();
            assert_eq!(seen(p, &mut q), [] as [u32; 0]);
            p.add(c, Val(2)).unwrap();
            p.add(d, Val(3)).unwrap();
        });
        // The refresh reclaimed `a`: `d`, the highest id, moved into its id.
        ctx.step(|p| assert_eq!(seen(p, &mut q), [3, 2]));
        // Nothing changed: the same, from the runs it kept.
        ctx.step(|p| assert_eq!(seen(p, &mut q), [3, 2]));
    }

    /// One prepared query used with two contexts of the same type matches
    /// each: the version it keeps names the context, so equal change counts
    /// in two contexts do not make one's runs the other's.
    #[test]
    fn a_query_used_with_two_contexts_matches_each() {
        let mut one = Ctx::new();
        let mut two = Ctx::new();
        one.step(|p| {
            p.spawn((Val(1),)).unwrap();
        });
        two.step(|p| {
            p.spawn((Other(5),)).unwrap();
        });
        let mut q = PreparedQuery::new();
        assert_eq!(one.step(|p| seen(p, &mut q)), [1]);
        assert_eq!(two.step(|p| seen(p, &mut q)), [] as [u32; 0]);
        assert_eq!(one.step(|p| seen(p, &mut q)), [1]);
    }
}
