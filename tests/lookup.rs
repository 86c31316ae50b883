//! `Lookup` (`View::prepare_lookup`) under Miri: its fetch state is made
//! once per subtask and read for any id, so every id is tried (the system's
//! entities, entities it does not process, ids past the last, the top of
//! the range) over a contiguous column and a sparse-set column of values
//! that own heap memory, on one thread and split across two; and
//! `Lookup::below` against `lookup` for bounds across the range.

use ecs::{Data, EntityId, System};

#[derive(Clone, Debug, PartialEq)]
pub struct Pos(pub f32);
#[derive(Clone, Debug, PartialEq)]
pub struct Mass(pub Box<f32>);

/// For every id tried: the pair the prepared lookup finds, checked against
/// `lookup`, summed into the output.
#[derive(Default)]
pub struct Pull;

macro_rules! case {
    ($test:ident, $threads:literal) => {
        mod $test {
            use super::*;

            ecs::declare_context! {
                pub context World {
                    settings { entities: fixed(32), threads: $threads }
                    components { Pos: contiguous; Mass: sparse_set; }
                    systems { pull: Pull { read: [Pos, Mass], parallelism: split_every(4), output: (u32, f32) } }
                }
            }

            impl System<World> for Pull {
                fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
                    let prepared = data.prepare_lookup::<(EntityId, &Pos, &Mass)>();
                    let (mut found, mut sum) = (0, 0.0);
                    for raw in (0..40).chain([u32::MAX >> 1, u32::MAX]) {
                        let id = EntityId::from_bits(raw);
                        let got = prepared.get(id);
                        let want = data.lookup::<(EntityId, &Pos, &Mass)>(id);
                        assert_eq!(
                            got.map(|(i, p, m)| (i, p as *const Pos, m as *const Mass)),
                            want.map(|(i, p, m)| (i, p as *const Pos, m as *const Mass)),
                            "id {raw}"
                        );
                        // `below(bound)` is `get` for ids below the bound.
                        for bound in [0, 1, 7, 17, 39, u32::MAX >> 1, u32::MAX] {
                            let below = prepared.below(EntityId::from_bits(bound)).get(id);
                            assert_eq!(
                                below.map(|(i, p, m)| (i, p as *const Pos, m as *const Mass)),
                                want.filter(|_| raw < bound)
                                    .map(|(i, p, m)| (i, p as *const Pos, m as *const Mass)),
                                "id {raw} below {bound}"
                            );
                        }
                        if let Some((_, p, m)) = got {
                            found += 1;
                            sum += p.0 * *m.0;
                        }
                    }
                    *data.output() = (found, sum);
                }
            }

            #[test]
            fn miri_prepared_lookup_finds_exactly_the_systems_entities() {
                let mut world = World::new();
                world.step(|p| {
                    for i in 0..24u32 {
                        let e = p.spawn((Pos(i as f32),)).unwrap();
                        // Every third entity has no mass: `pull` does not process it.
                        if i % 3 != 0 {
                            p.add(e, Mass(Box::new(2.0))).unwrap();
                        }
                    }
                });
                let outputs = world.step(|p| {
                    p.run_all(&());
                    p.outputs::<Pull>().to_vec()
                });
                let want: f32 = (0..24).filter(|i| i % 3 != 0).map(|i| i as f32 * 2.0).sum();
                for (found, sum) in outputs {
                    assert_eq!(found, 16, "every subtask finds all 16 of the system's entities");
                    assert_eq!(sum, want);
                }
            }
        }
    };
}

case!(one_thread, 1);
case!(two_threads, 2);
