//! The dispatches by component index (`remove_component`,
//! `relocate_component`, `swap_component`) share one untyped arm between
//! all the `contiguous` components of a declaration, one between the
//! `sparse_set` ones, one between the `hash_map` ones, and (relocations
//! and swaps) one between the `tag` ones and one between the grouped
//! members of every group, which finds each column by its field's byte
//! offset (and a member by its offset within its group's slot): with components of every storage
//! interleaved, of different sizes and needing drop, every kill (removal),
//! and under `layout: archetypes` every arrangement (relocations and
//! swaps), must reach the column of the component asked for, and drop each
//! value once.

use ecs::traits::{Component, ContextDecl};
use std::collections::HashMap;
use std::sync::Arc;

/// Each component holds a clone of its type's token: the token's count is
/// one more than the values alive.
#[derive(Debug)]
pub struct A(pub u32, pub Arc<()>);
#[derive(Debug)]
pub struct B(pub [u64; 3], pub Arc<()>);
#[derive(Debug)]
pub struct C(pub u8, pub Arc<()>);
#[derive(Debug)]
pub struct D(pub u16, pub Arc<()>);
#[derive(Debug)]
pub struct E(pub [u32; 5], pub Arc<()>);
#[derive(Debug)]
pub struct F(pub u64, pub Arc<()>);
#[derive(Debug, Default)]
pub struct G;
#[derive(Debug)]
pub struct H(pub u32, pub Arc<()>);
#[derive(Debug)]
pub struct I(pub u8, pub Arc<()>);
#[derive(Debug)]
pub struct J(pub [u64; 2], pub Arc<()>);
#[derive(Debug)]
pub struct K(pub u16, pub Arc<()>);

/// The tokens, one per component type.
struct Tokens([Arc<()>; 10]);

/// The test's view of an entity: each component's number, if held.
type Shadow = [Option<u64>; 10];

/// A deterministic pseudo-random sequence.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

macro_rules! case {
    ($test:ident, $layout:ident) => {
        mod $test {
            use super::*;
            use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

            /// Drops of this module's `Mark`s (one module per test: no other
            /// test drops them).
            static MARKS: AtomicUsize = AtomicUsize::new(0);

            /// A tag that needs drop: its removal's shared arm must call
            /// its drop, once per value.
            #[derive(Debug)]
            pub struct Mark;

            impl Drop for Mark {
                fn drop(&mut self) {
                    MARKS.fetch_add(1, SeqCst);
                }
            }

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: dynamic(4), layout: $layout }
                    components {
                        A: contiguous;
                        B: sparse_set;
                        C: hash_map;
                        G: tag;
                        Mark: tag;
                        D: contiguous;
                        (H, E): grouped;
                        F: sparse_set;
                        (J, I, K): grouped;
                    }
                    systems {}
                }
            }

            #[test]
            fn every_value_reaches_its_own_column() {
                run::<Ctx>(Ctx::new(), 0xd15c);
            }

            #[test]
            fn a_tag_that_needs_drop_is_dropped_once_by_a_kill() {
                let mut cx = Ctx::new();
                let es: Vec<ecs::Entity> = cx.step(|p| {
                    (0..10)
                        .map(|i| {
                            let e = p.create().unwrap();
                            p.add(e, G).unwrap();
                            if i % 2 == 0 {
                                p.add(e, Mark).unwrap();
                            }
                            e
                        })
                        .collect()
                });
                assert_eq!(MARKS.load(SeqCst), 0);
                cx.step(|p| {
                    for &e in &es[..6] {
                        assert!(p.kill(e));
                    }
                });
                cx.step(|p| {
                    for (i, &e) in es.iter().enumerate().skip(6) {
                        assert_eq!(p.has::<Mark>(e), i % 2 == 0);
                        assert!(p.has::<G>(e));
                    }
                });
                // Entities 0, 2 and 4 held one.
                assert_eq!(MARKS.load(SeqCst), 3);
                drop(cx);
                assert_eq!(MARKS.load(SeqCst), 5);
            }
        }
    };
}

case!(ids, ids);
case!(archetypes, archetypes);

/// Adds component `k` numbered `n` to `e`.
fn add<Cx>(p: &mut ecs::Step<'_, Cx>, t: &Tokens, e: ecs::Entity, k: usize, n: u64)
where
    Cx: ContextDecl,
    A: Component<Cx>,
    B: Component<Cx>,
    C: Component<Cx>,
    D: Component<Cx>,
    E: Component<Cx>,
    F: Component<Cx>,
    H: Component<Cx>,
    I: Component<Cx>,
    J: Component<Cx>,
    K: Component<Cx>,
{
    let token = t.0[k].clone();
    let r = match k {
        0 => p.add(e, A(n as u32, token)).map(drop),
        1 => p.add(e, B([n, !n, n ^ 7], token)).map(drop),
        2 => p.add(e, C(n as u8, token)).map(drop),
        3 => p.add(e, D(n as u16, token)).map(drop),
        4 => p.add(e, E([n as u32; 5], token)).map(drop),
        5 => p.add(e, F(n, token)).map(drop),
        6 => p.add(e, H(n as u32, token)).map(drop),
        7 => p.add(e, I(n as u8, token)).map(drop),
        8 => p.add(e, J([n, !n], token)).map(drop),
        _ => p.add(e, K(n as u16, token)).map(drop),
    };
    r.unwrap();
}

/// Component `k` of `e`, as its number.
fn get<Cx>(p: &mut ecs::Step<'_, Cx>, e: ecs::Entity, k: usize) -> Option<u64>
where
    Cx: ContextDecl,
    A: Component<Cx>,
    B: Component<Cx>,
    C: Component<Cx>,
    D: Component<Cx>,
    E: Component<Cx>,
    F: Component<Cx>,
    H: Component<Cx>,
    I: Component<Cx>,
    J: Component<Cx>,
    K: Component<Cx>,
{
    match k {
        0 => p.get::<A>(e).map(|v| v.0 as u64),
        1 => p.get::<B>(e).map(|v| {
            assert_eq!(v.0[1], !v.0[0]);
            assert_eq!(v.0[2], v.0[0] ^ 7);
            v.0[0]
        }),
        2 => p.get::<C>(e).map(|v| v.0 as u64),
        3 => p.get::<D>(e).map(|v| v.0 as u64),
        4 => p.get::<E>(e).map(|v| {
            assert!(v.0.iter().all(|&x| x == v.0[0]));
            v.0[0] as u64
        }),
        5 => p.get::<F>(e).map(|v| v.0),
        6 => p.get::<H>(e).map(|v| v.0 as u64),
        7 => p.get::<I>(e).map(|v| v.0 as u64),
        8 => p.get::<J>(e).map(|v| {
            assert_eq!(v.0[1], !v.0[0]);
            v.0[0]
        }),
        _ => p.get::<K>(e).map(|v| v.0 as u64),
    }
}

/// Random steps of creations and kills (and tags, so that archetypes
/// move entities between runs), every value and every count checked after
/// each refresh.
fn run<Cx>(mut cx: impl core::ops::DerefMut<Target = ecs::Context<Cx>>, seed: u64)
where
    Cx: ContextDecl,
    A: Component<Cx>,
    B: Component<Cx>,
    C: Component<Cx>,
    D: Component<Cx>,
    E: Component<Cx>,
    F: Component<Cx>,
    H: Component<Cx>,
    I: Component<Cx>,
    J: Component<Cx>,
    K: Component<Cx>,
    G: Component<Cx>,
{
    let t = Tokens(core::array::from_fn(|_| Arc::new(())));
    let mut rng = Lcg(seed);
    let mut shadow: HashMap<ecs::Entity, Shadow> = HashMap::new();
    let mut n = 0u64;
    for _ in 0..30 {
        cx.step(|p| {
            for _ in 0..rng.below(20) {
                let e = p.create().unwrap();
                let mut s: Shadow = [None; 10];
                for (k, slot) in s.iter_mut().enumerate() {
                    if rng.below(2) == 0 {
                        n += 1;
                        // Numbers that fit the narrowest field (`C`'s `u8`).
                        let v = n % 200;
                        add(p, &t, e, k, v);
                        *slot = Some(v);
                    }
                }
                if rng.below(2) == 0 {
                    p.add(e, G).unwrap();
                }
                shadow.insert(e, s);
            }
            let handles: Vec<ecs::Entity> = shadow.keys().copied().collect();
            for e in handles {
                match rng.below(5) {
                    0 => {
                        assert!(p.kill(e));
                        shadow.remove(&e);
                    }
                    1 => {
                        p.add(e, G).unwrap();
                    }
                    2 => {
                        let _ = p.remove::<G>(e);
                    }
                    _ => {}
                }
            }
        });
        // After the refresh (kills removed, entities arranged): every value
        // where the test put it, and each token counted once per value.
        cx.step(|p| {
            for (&e, s) in &shadow {
                for (k, &want) in s.iter().enumerate() {
                    assert_eq!(get(p, e, k), want, "component {k} of {e:?}");
                }
            }
        });
        for (k, token) in t.0.iter().enumerate() {
            let held = shadow.values().filter(|s| s[k].is_some()).count();
            assert_eq!(Arc::strong_count(token), 1 + held, "values of component {k} alive");
        }
    }
    drop(cx);
    for token in &t.0 {
        assert_eq!(Arc::strong_count(token), 1, "every value dropped once");
    }
}
