//! `spawn` and `spawn_batch` of an iterator of unknown length (collected,
//! then stored bundle by bundle) with a value in every storage
//! (`contiguous`, `sparse_set`, `hash_map`, `tag` and both members of a
//! group): the values land on their entities, every value is
//! dropped exactly once (with its entity, or when the context is full and
//! the bundles are refused, a panicking `drop` among them stopping none of
//! the others), and systems match the new entities.

use ecs::{Data, Entity, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

#[path = "support/tracked.rs"]
mod tracked;
use tracked::{tracked, Ledger};

tracked!(InSlot, InSparse, InMap, GroupA, GroupB);

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marked;

/// Counts the entities holding every component, each step.
#[derive(Default)]
pub struct Count {
    pub seen: Mutex<usize>,
}

ecs::declare_context! {
    pub context Every {
        settings { entities: fixed(6), threads: 1 }
        components {
            InSlot: contiguous;
            InSparse: sparse_set;
            InMap: hash_map;
            Marked: tag;
            (GroupA, GroupB): grouped;
        }
        systems { count: Count { read: [InSlot, InSparse, InMap, Marked, GroupA, GroupB] } }
    }
}

impl System<Every> for Count {
    fn process(&self, data: &mut Data<'_, Every, Self>, _: &()) {
        let mut n = 0;
        data.for_each::<(&InSlot, &InSparse, &InMap, &Marked, &GroupA, &GroupB)>(|_| n += 1);
        *self.seen.lock().unwrap() = n;
    }
}

type Full = (InSlot, InSparse, InMap, Marked, GroupA, GroupB);

/// The numbers of bundle `i`'s values, one per component that holds data.
fn numbers(i: u32) -> [u32; 5] {
    [i * 10, i * 10 + 1, i * 10 + 2, i * 10 + 3, i * 10 + 4]
}

/// Bundle `i`, whose `InMap` value's drop panics when `bomb`.
fn bundle(i: u32, bomb: bool, ledger: &Ledger) -> Full {
    let [a, b, c, d, e] = numbers(i);
    let l = || ledger.clone();
    (
        InSlot {
            n: a,
            bomb: false,
            ledger: l(),
        },
        InSparse {
            n: b,
            bomb: false,
            ledger: l(),
        },
        InMap {
            n: c,
            bomb,
            ledger: l(),
        },
        Marked,
        GroupA {
            n: d,
            bomb: false,
            ledger: l(),
        },
        GroupB {
            n: e,
            bomb: false,
            ledger: l(),
        },
    )
}

fn dropped(ledger: &Ledger) -> Vec<u32> {
    let mut d = ledger.lock().unwrap().clone();
    d.sort_unstable();
    d
}

fn all_numbers(bundles: core::ops::Range<u32>) -> Vec<u32> {
    let mut all: Vec<u32> = bundles.flat_map(numbers).collect();
    all.sort_unstable();
    all
}

/// Each entity of `es` holds bundle `first + k`'s values, and the system
/// sees all `alive` entities.
fn check_values(cx: &mut Every, es: &[Entity], first: u32, alive: usize) {
    cx.step(|p| {
        for (k, &e) in es.iter().enumerate() {
            let [a, b, c, d, g] = numbers(first + k as u32);
            assert_eq!(p.get::<InSlot>(e).map(|v| v.n), Some(a));
            assert_eq!(p.get::<InSparse>(e).map(|v| v.n), Some(b));
            assert_eq!(p.get::<InMap>(e).map(|v| v.n), Some(c));
            assert!(p.has::<Marked>(e));
            assert_eq!(p.get::<GroupA>(e).map(|v| v.n), Some(d));
            assert_eq!(p.get::<GroupB>(e).map(|v| v.n), Some(g));
        }
        p.run_all(&());
    });
    assert_eq!(*cx.system::<Count>().seen.lock().unwrap(), alive);
}

#[test]
fn spawn_stores_a_value_in_every_storage_and_each_is_dropped_once() {
    let ledger = Ledger::default();
    let mut cx = Every::new();
    let es: Vec<Entity> = cx.step(|p| (0..3).map(|i| p.spawn(bundle(i, false, &ledger)).unwrap()).collect());
    assert!(dropped(&ledger).is_empty());
    check_values(&mut cx, &es, 0, 3);
    // Killed: their values are dropped once; the freed slots take the next
    // spawns, which hold their own values.
    cx.step(|p| assert!(p.kill(es[1])));
    cx.step(|_| {});
    assert_eq!(dropped(&ledger), numbers(1).to_vec());
    let again = cx.step(|p| p.spawn(bundle(7, false, &ledger)).unwrap());
    check_values(&mut cx, &[again], 7, 3);
    drop(cx);
    let mut all = all_numbers(0..3);
    all.extend(numbers(7));
    all.sort_unstable();
    assert_eq!(dropped(&ledger), all);
}

#[test]
fn a_full_context_refuses_a_spawn_and_drops_its_bundle_once() {
    let ledger = Ledger::default();
    let mut cx = Every::new();
    cx.step(|p| {
        for i in 0..6 {
            p.spawn(bundle(i, false, &ledger)).unwrap();
        }
        assert!(p.spawn(bundle(9, false, &ledger)).is_err());
    });
    assert_eq!(dropped(&ledger), numbers(9).to_vec());
    assert_eq!(cx.len(), 6);
}

#[test]
fn a_batch_of_unknown_length_stores_a_value_in_every_storage() {
    let ledger = Ledger::default();
    let mut cx = Every::new();
    let first = cx.step(|p| p.spawn(bundle(0, false, &ledger)).unwrap());
    let es: Vec<Entity> = cx.step(|p| {
        let bundles = (1..5).map(|i| bundle(i, false, &ledger)).filter(|_| true);
        p.spawn_batch(bundles).unwrap().collect()
    });
    assert_eq!(es.len(), 4);
    assert!(dropped(&ledger).is_empty());
    let mut all = vec![first];
    all.extend(&es);
    check_values(&mut cx, &all, 0, all.len());
    drop(cx);
    assert_eq!(dropped(&ledger), all_numbers(0..5));
}

#[test]
fn a_batch_of_unknown_length_that_does_not_fit_drops_every_bundle_once() {
    let ledger = Ledger::default();
    let mut cx = Every::new();
    let first = cx.step(|p| p.spawn(bundle(0, false, &ledger)).unwrap());
    // Six bundles for five free places: refused, all dropped, the third's
    // panicking drop stopping none of the others.
    let result = catch_unwind(AssertUnwindSafe(|| {
        cx.step(|p| {
            let bundles = (1..7).map(|i| bundle(i, i == 3, &ledger)).filter(|_| true);
            p.spawn_batch(bundles).map(|s| s.len())
        })
    }));
    assert!(result.is_err(), "the panicking drop reaches the caller");
    assert_eq!(dropped(&ledger), all_numbers(1..7));
    assert_eq!(cx.len(), 1);
    // Nothing left behind: the next batch of unknown length fills the
    // context with its own values.
    ledger.lock().unwrap().clear();
    let es: Vec<Entity> = cx.step(|p| {
        let bundles = (1..6).map(|i| bundle(i, false, &ledger)).filter(|_| true);
        p.spawn_batch(bundles).unwrap().collect()
    });
    assert!(dropped(&ledger).is_empty());
    let mut all = vec![first];
    all.extend(&es);
    check_values(&mut cx, &all, 0, all.len());
}

#[test]
fn a_batch_of_unknown_length_whose_iterator_panics_makes_nothing() {
    let ledger = Ledger::default();
    let mut cx = Every::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        cx.step(|p| {
            let bundles = (0..4).map(|i| {
                assert!(i < 2, "the iterator fails");
                bundle(i, false, &ledger)
            });
            p.spawn_batch(bundles.filter(|_| true)).map(|s| s.len())
        })
    }));
    assert!(result.is_err());
    assert_eq!(dropped(&ledger), all_numbers(0..2));
    assert_eq!(cx.len(), 0);
    ledger.lock().unwrap().clear();
    let es: Vec<Entity> = cx.step(|p| {
        p.spawn_batch((0..6).map(|i| bundle(i, false, &ledger)).filter(|_| true))
            .unwrap()
            .collect()
    });
    assert!(dropped(&ledger).is_empty());
    check_values(&mut cx, &es, 0, 6);
}
