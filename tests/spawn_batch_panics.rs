//! `spawn_batch` when the iterator panics midway: no entity is made, every
//! value it gave is dropped exactly once, whichever storage holds it (values
//! written straight into `contiguous` slots as well as those stored one by
//! one), a panicking `drop` among them stops none of the others, and the
//! next batch takes the same ids with nothing left over. Small enough for
//! Miri (`.ci/miri` runs it).

use ecs::Entity;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[path = "support/tracked.rs"]
mod tracked;
use tracked::{tracked, Ledger};

tracked!(InSlot, AlsoInSlot, InSparse, InMap);

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position(pub u32);

ecs::declare_context! {
    pub context Fixed {
        settings { entities: fixed(12), threads: 1 }
        components {
            InSlot, AlsoInSlot, Position: contiguous;
            InSparse: sparse_set;
            InMap: hash_map;
        }
        systems {}
    }
}

ecs::declare_context! {
    pub context Growing {
        settings { entities: dynamic(2), threads: 1 }
        components {
            InSlot, AlsoInSlot, Position: contiguous;
            InSparse: sparse_set;
            InMap: hash_map;
        }
        systems {}
    }
}

/// The numbers of the values a bundle `i` gives: one per component.
fn numbers(i: u32) -> [u32; 4] {
    [i * 10, i * 10 + 1, i * 10 + 2, i * 10 + 3]
}

type Full = (InSlot, AlsoInSlot, InSparse, InMap, Position);

/// Bundle `i`, whose `InSlot` value's drop panics when `bomb`.
fn bundle(i: u32, bomb: bool, ledger: &Ledger) -> Full {
    let [a, b, c, d] = numbers(i);
    let l = || ledger.clone();
    (
        InSlot {
            n: a,
            bomb,
            ledger: l(),
        },
        AlsoInSlot {
            n: b,
            bomb: false,
            ledger: l(),
        },
        InSparse {
            n: c,
            bomb: false,
            ledger: l(),
        },
        InMap {
            n: d,
            bomb: false,
            ledger: l(),
        },
        Position(i),
    )
}

/// The ledger's numbers, sorted.
fn dropped(ledger: &Ledger) -> Vec<u32> {
    let mut v = ledger.lock().unwrap().clone();
    v.sort_unstable();
    v
}

/// A batch of `len` bundles whose iterator panics before giving bundle
/// `fail` (bundle `bomb`'s `InSlot` panics when dropped), in a context
/// holding one entity already; then checks the context and the ledger, and
/// spawns again.
macro_rules! failing_batch {
    // `keep`, when given, filters the bundles: an iterator of unknown
    // length, collected first, then stored bundle by bundle.
    ($Cx:ident, $len:expr, $fail:expr, $bomb:expr $(, $keep:expr)?) => {{
        let (len, fail, bomb): (u32, u32, Option<u32>) = ($len, $fail, $bomb);
        let ledger = Ledger::default();
        let mut cx = $Cx::new();
        let first: Vec<Entity> = cx.step(|p| p.spawn_batch([(Position(99),)]).unwrap().collect());
        let l = ledger.clone();
        let bundles = (0..len).map(move |i| {
            if i == fail {
                panic!("the iterator fails");
            }
            bundle(i, Some(i) == bomb, &l)
        });
        $(let bundles = bundles.filter($keep);)?
        let r = catch_unwind(AssertUnwindSafe(|| {
            cx.step(|p| p.spawn_batch(bundles).map(|s| s.count()))
        }));
        assert!(r.is_err(), "the iterator's panic reaches the caller");
        // Every value given so far was dropped, once each (a panicking drop
        // stopped none of the others).
        let expected: Vec<u32> = (0..fail).flat_map(numbers).collect();
        let mut expected_sorted = expected.clone();
        expected_sorted.sort_unstable();
        assert_eq!(dropped(&ledger), expected_sorted, "dropped once each");
        // No entity was made.
        assert_eq!(cx.len(), 1);
        // The next batch takes the ids after the first entity, with nothing
        // left over from the failed one.
        let next: Vec<Entity> = cx.step(|p| p.spawn_batch((0..4).map(|i| (Position(100 + i),))).unwrap().collect());
        let ids: Vec<u32> = next.iter().map(|&e| cx.id_of(e).unwrap().to_bits()).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        cx.step(|p| {
            for (k, &e) in next.iter().enumerate() {
                assert_eq!(p.get::<Position>(e), Some(&Position(100 + k as u32)));
                assert!(
                    !p.has::<InSlot>(e) && !p.has::<AlsoInSlot>(e),
                    "no slot value left over"
                );
                assert!(!p.has::<InSparse>(e) && !p.has::<InMap>(e), "no stored value left over");
            }
            assert_eq!(p.get::<Position>(first[0]), Some(&Position(99)));
        });
        drop(cx);
        assert_eq!(
            dropped(&ledger),
            expected_sorted,
            "nothing dropped twice by the context"
        );
    }};
}

#[test]
fn fixed_a_panic_before_the_first_bundle_drops_nothing() {
    failing_batch!(Fixed, 5, 0, None);
}

#[test]
fn fixed_a_panic_midway_drops_every_value_given_once() {
    failing_batch!(Fixed, 5, 3, None);
}

#[test]
fn fixed_a_panic_at_the_last_bundle_drops_every_value_given_once() {
    failing_batch!(Fixed, 5, 4, None);
}

#[test]
fn growing_a_panic_midway_drops_every_value_given_once() {
    failing_batch!(Growing, 6, 4, None);
}

#[test]
fn fixed_a_panicking_drop_during_the_cleanup_stops_no_other_drop() {
    failing_batch!(Fixed, 5, 3, Some(1));
}

#[test]
fn growing_a_panicking_drop_during_the_cleanup_stops_no_other_drop() {
    failing_batch!(Growing, 5, 3, Some(0));
}

#[test]
fn unknown_length_a_panic_midway_drops_every_value_given_once() {
    // (Without a panicking drop: one while the collected bundles are
    // dropped during the iterator's unwinding aborts, in `Vec`'s drop.)
    failing_batch!(Fixed, 5, 3, None, |_: &Full| true);
    failing_batch!(Growing, 6, 4, None, |_: &Full| true);
}

#[test]
fn a_full_batch_holds_every_value_and_drops_each_once() {
    full_batch(false);
}

/// As above, through an iterator of unknown length (`filter`): collected,
/// then stored bundle by bundle.
#[test]
fn a_full_batch_of_unknown_length_holds_every_value_and_drops_each_once() {
    full_batch(true);
}

fn full_batch(unknown_length: bool) {
    let ledger = Ledger::default();
    let mut cx = Fixed::new();
    let es: Vec<Entity> = cx.step(|p| {
        let bundles = (0..12).map(|i| bundle(i, false, &ledger));
        if unknown_length {
            p.spawn_batch(bundles.filter(|_| true)).unwrap().collect()
        } else {
            p.spawn_batch(bundles).unwrap().collect()
        }
    });
    assert_eq!(cx.len(), 12);
    assert!(dropped(&ledger).is_empty());
    cx.step(|p| {
        for (i, &e) in es.iter().enumerate() {
            let [a, b, c, d] = numbers(i as u32);
            assert_eq!(p.get::<InSlot>(e).map(|v| v.n), Some(a));
            assert_eq!(p.get::<AlsoInSlot>(e).map(|v| v.n), Some(b));
            assert_eq!(p.get::<InSparse>(e).map(|v| v.n), Some(c));
            assert_eq!(p.get::<InMap>(e).map(|v| v.n), Some(d));
            assert_eq!(p.get::<Position>(e), Some(&Position(i as u32)));
        }
    });
    drop(cx);
    let mut all: Vec<u32> = (0..12).flat_map(numbers).collect();
    all.sort_unstable();
    assert_eq!(dropped(&ledger), all);
}
