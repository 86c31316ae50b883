//! Contexts at every width of component bitset (one byte up to 8
//! components, two up to 16, four up to 32, eight up to 64, sixteen up to
//! 128, then 64-bit words; up to 128 the entity table's and matching's
//! bookkeeping is the copy compiled in ecs-core, above it the context's
//! own): the last component works like the first for spawning, adding,
//! removing, bulk changes, matching and reclamation.

use ecs::{Data, Entity, System};

/// Component number `N` of a context.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct C<const N: usize>(pub u32);

/// Adds the last component's value to the first's, on entities holding both.
#[derive(Default)]
pub struct Sum;

macro_rules! width_test {
    ($module:ident, $last:literal, [$($n:literal),*]) => {
        mod $module {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: dynamic(4), threads: 1 }
                    components { $(C<$n>),*: contiguous; }
                    systems { sum: Sum { read: [C<$last>], write: [C<0>] } }
                }
            }

            impl System<Ctx> for Sum {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<(&mut C<0>, &C<$last>)>(|(first, last)| first.0 += last.0);
                }
            }

            fn firsts(ctx: &mut Ctx, es: &[Entity]) -> Vec<u32> {
                ctx.step(|p| es.iter().map(|&e| p.get::<C<0>>(e).unwrap().0).collect())
            }

            #[test]
            fn the_last_component_works_like_the_first() {
                let mut ctx = Ctx::new();
                // Entity k holds `C<last>` when k is even.
                let es: Vec<Entity> = ctx.step(|p| {
                    (0..10u32)
                        .map(|k| {
                            let e = p.spawn((C::<0>(0),)).unwrap();
                            if k % 2 == 0 {
                                assert_eq!(p.add(e, C::<$last>(k)), Ok(None));
                            }
                            e
                        })
                        .collect()
                });
                ctx.step(|p| p.run_all(&()));
                assert_eq!(firsts(&mut ctx, &es), vec![0, 0, 2, 0, 4, 0, 6, 0, 8, 0]);
                assert_eq!(ctx.subscribers::<Sum>().len(), 5);
                // Every entity gets it in bulk, then entity 3 loses it alone.
                ctx.step(|p| {
                    assert_eq!(p.add_to_all::<(C<0>,), _>(|_| C::<$last>(100)), 10);
                    assert_eq!(p.remove(es[3]), Some(C::<$last>(100)));
                });
                ctx.step(|p| p.run_all(&()));
                assert_eq!(firsts(&mut ctx, &es), vec![100, 100, 102, 0, 104, 100, 106, 100, 108, 100]);
                // Killing entity 0 moves the last entity into its id, with
                // its components.
                ctx.step(|p| {
                    p.kill(es[0]);
                });
                ctx.step(|p| {
                    assert!(p.has::<C<$last>>(es[9]));
                    assert!(!p.has::<C<$last>>(es[3]));
                    assert_eq!(p.remove_from_all::<C<$last>>(), 8);
                    p.run_all(&());
                });
                assert_eq!(ctx.subscribers::<Sum>().len(), 0);
                ctx.step(|p| p.run_all(&()));
                assert_eq!(firsts(&mut ctx, &es[1..]), vec![100, 102, 0, 104, 100, 106, 100, 108, 100]);
            }
        }
    };
}

width_test!(components_8, 7, [0, 1, 2, 3, 4, 5, 6, 7]);

width_test!(components_9, 8, [0, 1, 2, 3, 4, 5, 6, 7, 8]);

width_test!(
    components_16,
    15,
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
);

width_test!(
    components_17,
    16,
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
);

width_test!(
    components_32,
    31,
    [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
        30, 31
    ]
);

width_test!(
    components_33,
    32,
    [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
        30, 31, 32
    ]
);

width_test!(
    components_64,
    63,
    [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
        30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
        58, 59, 60, 61, 62, 63
    ]
);

width_test!(
    components_65,
    64,
    [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
        30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
        58, 59, 60, 61, 62, 63, 64
    ]
);

width_test!(
    components_128,
    127,
    [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
        30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
        58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85,
        86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110,
        111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127
    ]
);

width_test!(
    components_129,
    128,
    [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
        30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
        58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85,
        86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110,
        111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128
    ]
);
