//! Issue #22, finding 1: `Bundle` and `Components` are sealed, so only the
//! crate's tuples implement them (tests/ui/soundness shows that other
//! implementations no longer compile). These pin that every legitimate use
//! still works: bundles of 1 to 12 components and `()` sets, `spawn`,
//! `spawn_batch` and `add_to_all` filters, over every storage, fixed and
//! dynamic, with systems reading the values back through the unchecked
//! fetch that relies on the bundle's bits being true.

use ecs::traits::{Bundle, Components};
use ecs::{Data, Entity, System};

/// A component made from a number and read back as one.
pub trait Value: Sized {
    fn make(v: u32) -> Self;
    fn value(&self) -> u32;
}

macro_rules! number {
    ($($C:ident($T:ty, $new:expr, $get:expr);)+) => {$(
        #[derive(Clone, Debug, PartialEq)]
        pub struct $C(pub $T);
        impl Value for $C {
            fn make(v: u32) -> Self {
                $C($new(v))
            }
            fn value(&self) -> u32 {
                $get(core::borrow::Borrow::borrow(&self.0))
            }
        }
    )+};
}

number! {
    A(u32, |v| v, |v: &u32| *v);
    B(u32, |v| v + 1, |v: &u32| *v - 1);
    C(u64, u64::from, |v: &u64| *v as u32);
    D(u32, |v| v, |v: &u32| *v);
    E(String, |v: u32| v.to_string(), |v: &String| v.parse().unwrap());
    F(u32, |v| v, |v: &u32| *v);
    G(Vec<u32>, |v| vec![v; 3], |v: &Vec<u32>| v[2]);
    H(u16, |v| v as u16, |v: &u16| u32::from(*v));
    I(Box<u32>, Box::new, |v: &u32| *v);
    K(String, |v: u32| format!("k{v}"), |v: &String| v[1..].parse().unwrap());
    L(Box<u32>, Box::new, |v: &u32| *v);
}

/// A tag: present or not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct J;
impl Value for J {
    fn make(_: u32) -> Self {
        J
    }
    fn value(&self) -> u32 {
        0
    }
}

/// Reads every component of the entities that hold all twelve; outputs the
/// sum of their values.
#[derive(Default)]
pub struct ReadAll;
/// Reads `A` of every entity that holds it; outputs the sum.
#[derive(Default)]
pub struct ReadA;
/// Reads the components of the non-contiguous storages; outputs the sum.
#[derive(Default)]
pub struct ReadSparse;

/// Spawns the bundle of the given components, each made from `v`.
macro_rules! spawn_tuple {
    ($ctx:expr, $v:expr; $($X:ident)+) => {
        $ctx.step(|p| p.spawn(($($X::make($v),)+))).expect("room")
    };
}

macro_rules! contexts {
    ($($module:ident: { $($settings:tt)* })+) => {$(
        mod $module {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { $($settings)* }
                    components {
                        A, B, C, K: contiguous;
                        D, L: sparse_set;
                        E: sparse_set;
                        F, G: hash_map;
                        (H, I): grouped;
                        J: tag;
                    }
                    systems {
                        read_all: ReadAll { read: [A, B, C, D, E, F, G, H, I, J, K, L], output: u64 }
                        read_a: ReadA { read: [A], output: u64, parallelism: split_every(3) }
                        read_sparse: ReadSparse { read: [D, F, H], output: u64 }
                    }
                }
            }

            impl System<Ctx> for ReadAll {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let mut sum = 0u64;
                    data.for_each::<(&A, &B, &C, &D, &E, &F, &G, &H, &I, &J, &K, &L)>(
                        |(a, b, c, d, e, f, g, h, i, j, k, l)| {
                            sum += [
                                a.value(), b.value(), c.value(), d.value(), e.value(), f.value(),
                                g.value(), h.value(), i.value(), j.value(), k.value(), l.value(),
                            ]
                            .iter()
                            .map(|&v| u64::from(v))
                            .sum::<u64>();
                        },
                    );
                    *data.output() = sum;
                }
            }

            impl System<Ctx> for ReadA {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let mut sum = 0u64;
                    data.for_each::<&A>(|a| sum += u64::from(a.value()));
                    *data.output() = sum;
                }
            }

            impl System<Ctx> for ReadSparse {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let mut sum = 0u64;
                    data.for_each::<(&D, &F, &H)>(|(d, f, h)| {
                        sum += u64::from(d.value() + f.value() + h.value())
                    });
                    *data.output() = sum;
                }
            }

            /// What entity `e` holds, component by component (`A` to `L`).
            pub fn held(ctx: &mut Ctx, e: Entity) -> [Option<u32>; 12] {
                ctx.step(|p| {
                    [
                        p.get::<A>(e).map(Value::value),
                        p.get::<B>(e).map(Value::value),
                        p.get::<C>(e).map(Value::value),
                        p.get::<D>(e).map(Value::value),
                        p.get::<E>(e).map(Value::value),
                        p.get::<F>(e).map(Value::value),
                        p.get::<G>(e).map(Value::value),
                        p.get::<H>(e).map(Value::value),
                        p.get::<I>(e).map(Value::value),
                        p.get::<J>(e).map(Value::value),
                        p.get::<K>(e).map(Value::value),
                        p.get::<L>(e).map(Value::value),
                    ]
                })
            }

            /// The bundle of the first `n` components (in the order `A` to
            /// `L`) made from `v`, spawned.
            pub fn spawn_prefix(ctx: &mut Ctx, n: usize, v: u32) -> Entity {
                match n {
                    1 => spawn_tuple!(ctx, v; A),
                    2 => spawn_tuple!(ctx, v; A B),
                    3 => spawn_tuple!(ctx, v; A B C),
                    4 => spawn_tuple!(ctx, v; A B C D),
                    5 => spawn_tuple!(ctx, v; A B C D E),
                    6 => spawn_tuple!(ctx, v; A B C D E F),
                    7 => spawn_tuple!(ctx, v; A B C D E F G),
                    8 => spawn_tuple!(ctx, v; A B C D E F G H),
                    9 => spawn_tuple!(ctx, v; A B C D E F G H I),
                    10 => spawn_tuple!(ctx, v; A B C D E F G H I J),
                    11 => spawn_tuple!(ctx, v; A B C D E F G H I J K),
                    12 => spawn_tuple!(ctx, v; A B C D E F G H I J K L),
                    _ => unreachable!(),
                }
            }

            /// What `held` gives for an entity spawned by `spawn_prefix(n, v)`.
            pub fn expected(n: usize, v: u32) -> [Option<u32>; 12] {
                core::array::from_fn(|c| (c < n).then_some(if c == 9 { 0 } else { v }))
            }

            #[test]
            fn every_tuple_size_spawns_exactly_what_it_names() {
                let mut ctx = Ctx::new();
                let es: Vec<Entity> = (1..=12).map(|n| spawn_prefix(&mut ctx, n, 100 + n as u32)).collect();
                for (k, &e) in es.iter().enumerate() {
                    assert_eq!(held(&mut ctx, e), expected(k + 1, 101 + k as u32), "bundle of {} components", k + 1);
                }
                ctx.step(|p| p.run_all(&()));
                // Only the 12-tuple holds all twelve; every bundle holds `A`;
                // `D`, `F` and `H` are held from 8 components on.
                let all: u64 = ctx.outputs::<ReadAll>().iter().sum();
                assert_eq!(all, 11 * 112);
                let a: u64 = ctx.outputs::<ReadA>().iter().sum();
                assert_eq!(a, (101..=112).sum::<u64>());
                let sparse: u64 = ctx.outputs::<ReadSparse>().iter().sum();
                assert_eq!(sparse, 3 * (108..=112).sum::<u64>());
                assert_eq!(ctx.subscribers::<ReadAll>().len(), 1);
                assert_eq!(ctx.subscribers::<ReadA>().len(), 12);
                assert_eq!(ctx.subscribers::<ReadSparse>().len(), 5);
            }

            #[test]
            fn spawn_batch_of_every_storage() {
                let n: u32 = if cfg!(miri) { 10 } else { 100 };
                let mut ctx = Ctx::new();
                let full: Vec<Entity> = ctx.step(|p| {
                    p.spawn_batch((0..n).map(|v| {
                        (A::make(v), B::make(v), C::make(v), D::make(v), E::make(v), F::make(v),
                         G::make(v), H::make(v), I::make(v), J::make(v), K::make(v), L::make(v))
                    }))
                    .expect("room")
                    .collect()
                });
                // One component of each storage, alone.
                let singles: Vec<Vec<Entity>> = ctx.step(|p| {
                    vec![
                        p.spawn_batch((0..n).map(|v| (A::make(v),))).unwrap().collect(),
                        p.spawn_batch((0..n).map(|v| (D::make(v),))).unwrap().collect(),
                        p.spawn_batch((0..n).map(|v| (F::make(v),))).unwrap().collect(),
                        p.spawn_batch((0..n).map(|v| (I::make(v),))).unwrap().collect(),
                        p.spawn_batch((0..n).map(|_| (J,))).unwrap().collect(),
                    ]
                });
                for (v, &e) in full.iter().enumerate() {
                    assert_eq!(held(&mut ctx, e), expected(12, v as u32));
                }
                for (k, column) in [0, 3, 5, 8, 9].into_iter().enumerate() {
                    for (v, &e) in singles[k].iter().enumerate() {
                        let mut want = [None; 12];
                        want[column] = Some(if column == 9 { 0 } else { v as u32 });
                        assert_eq!(held(&mut ctx, e), want);
                    }
                }
                ctx.step(|p| p.run_all(&()));
                let per_entity: u64 = (0..u64::from(n)).sum();
                assert_eq!(ctx.outputs::<ReadAll>().iter().sum::<u64>(), 11 * per_entity);
                assert_eq!(ctx.outputs::<ReadA>().iter().sum::<u64>(), 2 * per_entity);
                assert_eq!(ctx.outputs::<ReadSparse>().iter().sum::<u64>(), 3 * per_entity);
            }

            #[test]
            fn add_to_all_filters_of_unit_and_tuples() {
                // Many entities holding `A` only, so that both ways of
                // `add_to_all` run: entity by entity for rare filters, in
                // bulk for common ones.
                let many: u32 = if cfg!(miri) { 12 } else { 64 };
                let mut ctx = Ctx::new();
                let plain: Vec<Entity> =
                    ctx.step(|p| p.spawn_batch((0..many).map(|v| (A::make(v),))).unwrap().collect());
                let ad = ctx.step(|p| p.spawn((A::make(1), D::make(2)))).unwrap();
                let adh = ctx.step(|p| p.spawn((A::make(1), D::make(2), H::make(3)))).unwrap();
                let fj = ctx.step(|p| p.spawn((F::make(4), J))).unwrap();
                // Rare: one entity holds `D` and `H`, one `J`.
                assert_eq!(ctx.step(|p| p.add_to_all::<(D, H), _>(|_| K::make(7))), 1);
                assert_eq!(ctx.step(|p| p.add_to_all::<(J,), _>(|_| C::make(8))), 1);
                assert_eq!(held(&mut ctx, adh)[10], Some(7));
                assert_eq!(held(&mut ctx, ad)[10], None);
                assert_eq!(held(&mut ctx, fj)[2], Some(8));
                // Common: `()` is every entity, `(A,)` all but one.
                let total = plain.len() + 3;
                assert_eq!(ctx.step(|p| p.add_to_all::<(), _>(|id| G::make(id.index() as u32))), total);
                assert_eq!(ctx.step(|p| p.add_to_all::<(A,), _>(|_| L::make(9))), total - 1);
                // A filter across storages, and one naming the added
                // component itself (it replaces the value).
                assert_eq!(ctx.step(|p| p.add_to_all::<(A, G, L), _>(|_| E::make(5))), total - 1);
                assert_eq!(ctx.step(|p| p.add_to_all::<(E,), _>(|_| E::make(6))), total - 1);
                for &e in plain.iter().chain([&ad, &adh]) {
                    let h = held(&mut ctx, e);
                    assert_eq!((h[4], h[6].is_some(), h[11]), (Some(6), true, Some(9)));
                }
                assert_eq!(held(&mut ctx, fj)[11], None);
                ctx.step(|p| p.run_all(&()));
                assert_eq!(ctx.subscribers::<ReadSparse>().len(), 0);
                assert_eq!(ctx.subscribers::<ReadA>().len(), total - 1);
            }
        }
    )+};
}

contexts! {
    fixed: { entities: fixed(600), threads: 1 }
    dynamic: { entities: dynamic(2), threads: 2 }
}

/// Both traits stay nameable in bounds, so code generic over bundles and
/// sets still compiles; `bits` stays public.
fn spawn_generic<B: Bundle<fixed::Ctx>>(ctx: &mut fixed::Ctx, bundle: B) -> Entity {
    ctx.step(|p| p.spawn(bundle)).unwrap()
}

fn count_with<W: Components<fixed::Ctx>>(ctx: &mut fixed::Ctx) -> usize {
    ctx.step(|p| p.add_to_all::<W, _>(|_| B::make(0)))
}

#[test]
fn bundles_and_sets_are_nameable_in_generic_code() {
    let mut ctx = fixed::Ctx::new();
    let e = spawn_generic(&mut ctx, (A::make(3), J));
    spawn_generic(&mut ctx, (D::make(3),));
    assert_eq!(count_with::<(J,)>(&mut ctx), 1);
    assert_eq!(count_with::<()>(&mut ctx), 2);
    assert_eq!(fixed::held(&mut ctx, e)[..3], [Some(3), Some(0), None]);
    assert_eq!(
        <(A, J) as Components<fixed::Ctx>>::bits(),
        <(J, A) as Components<fixed::Ctx>>::bits()
    );
    assert_ne!(
        <(A,) as Components<fixed::Ctx>>::bits(),
        <() as Components<fixed::Ctx>>::bits()
    );
}

/// A storage that drops what it is given: it breaks `Column`'s contract
/// (an inserted id must hold its value), which debug builds catch at the
/// spawn, before the entity records the component, so nothing reads the
/// missing value.
mod forgetful {
    use ecs::storage::{Column, HashMapStorage, Storage};
    use ecs::{EntityId, EntityLimit};
    use std::ptr::NonNull;

    #[derive(Clone)]
    pub struct Lost;

    pub struct Forgetful(HashMapStorage<Lost>);

    impl Storage for Forgetful {
        fn new(limit: EntityLimit) -> Self {
            Forgetful(HashMapStorage::new(limit))
        }
    }

    // SAFETY: deliberately broken in one place: `insert` stores nothing.
    // Every other method is the wrapped storage's, which keeps the contract,
    // and the test below stops at the spawn's debug check, before any code
    // that relies on an inserted value runs.
    unsafe impl Column for Forgetful {
        type Item = Lost;
        fn insert(&mut self, _: EntityId, _: Lost) -> Option<Lost> {
            None
        }
        fn remove(&mut self, id: EntityId) -> Option<Lost> {
            self.0.remove(id)
        }
        fn contains(&self, id: EntityId) -> bool {
            self.0.contains(id)
        }
        fn get(&self, id: EntityId) -> Option<&Lost> {
            self.0.get(id)
        }
        fn get_mut(&mut self, id: EntityId) -> Option<&mut Lost> {
            self.0.get_mut(id)
        }
        fn get_ptr(&self, id: EntityId) -> Option<NonNull<Lost>> {
            self.0.get_ptr(id)
        }
        type Fetch = <HashMapStorage<Lost> as Column>::Fetch;
        fn fetch_state(&self) -> Self::Fetch {
            self.0.fetch_state()
        }
        unsafe fn fetch(state: Self::Fetch, id: EntityId) -> NonNull<Lost> {
            // SAFETY: the caller's guarantees are the wrapped storage's.
            unsafe { HashMapStorage::fetch(state, id) }
        }
    }

    ecs::declare_context! {
        pub context Ctx {
            settings { threads: 1 }
            components { Lost: custom(Forgetful); }
        }
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "its `Column` implementation breaks the trait's contract")]
    fn a_storage_that_does_not_store_is_caught_at_spawn() {
        let mut ctx = Ctx::new();
        ctx.step(|p| p.spawn((Lost,)).map(drop)).unwrap();
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "its `Column` implementation breaks the trait's contract")]
    fn a_storage_that_does_not_store_is_caught_at_spawn_batch() {
        let mut ctx = Ctx::new();
        ctx.step(|p| p.spawn_batch((0..3).map(|_| (Lost,))).map(drop)).unwrap();
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "its `Column` implementation breaks the trait's contract")]
    fn a_storage_that_does_not_store_is_caught_at_spawn_n() {
        let mut ctx = Ctx::new();
        ctx.step(|p| p.spawn_n(3, (Lost,)).map(drop)).unwrap();
    }
}
