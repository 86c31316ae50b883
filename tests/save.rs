//! Save and restore: a whole context's entities, components and resources
//! to serde formats and back, across every storage, with dynamic and fixed
//! contexts; handles stay valid.

use ecs::save::RestoreError;
use ecs::Entity;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Position(pub f32, pub f32);
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Velocity(pub i16);
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Color(pub u8);
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Size(pub u32);
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Name(pub String);
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Big(pub Vec<u64>);
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Frozen;
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Score(pub u64);
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Log(pub Vec<String>);

macro_rules! world {
    ($name:ident, $entities:expr) => {
        ecs::declare_context! {
            pub context $name {
                settings { entities: $entities, serde: all }
                components {
                    Position: contiguous;
                    (Velocity, Color): grouped;
                    Size, Name: sparse_set;
                    Big: hash_map;
                    Frozen: tag;
                }
                resources { Score, Log }
            }
        }
    };
}

world!(Dynamic, dynamic(4));
world!(Fixed, fixed(64));
world!(Small, fixed(4));

/// What one entity holds: one optional value per component.
#[derive(Clone, Debug, PartialEq)]
struct Holds {
    position: Option<Position>,
    grouped: Option<(Velocity, Color)>,
    size: Option<Size>,
    name: Option<Name>,
    big: Option<Big>,
    frozen: bool,
}

fn holds() -> impl Strategy<Value = Holds> {
    (
        proptest::option::of((-1e3f32..1e3, -1e3f32..1e3).prop_map(|(x, y)| Position(x, y))),
        proptest::option::of((any::<i16>(), any::<u8>()).prop_map(|(v, c)| (Velocity(v), Color(c)))),
        proptest::option::of(any::<u32>().prop_map(Size)),
        proptest::option::of("[a-z]{0,6}".prop_map(Name)),
        proptest::option::of(proptest::collection::vec(any::<u64>(), 0..4).prop_map(Big)),
        any::<bool>(),
    )
        .prop_map(|(position, grouped, size, name, big, frozen)| Holds {
            position,
            grouped,
            size,
            name,
            big,
            frozen,
        })
}

/// Runs the same script on a context type: create entities with `holds`,
/// kill those marked (so slots are freed and generations bumped), then
/// reports each handle's contents.
macro_rules! script {
    ($Cx:ty) => {
        |cx: &mut $Cx, entities: &[(Holds, bool)]| -> Vec<Entity> {
            let handles: Vec<Entity> = cx.step(|p| {
                entities
                    .iter()
                    .map(|(h, _)| {
                        let e = p.create().unwrap();
                        if let Some(v) = &h.position {
                            p.add(e, v.clone()).unwrap();
                        }
                        if let Some((v, c)) = &h.grouped {
                            p.add(e, v.clone()).unwrap();
                            p.add(e, c.clone()).unwrap();
                        }
                        if let Some(v) = &h.size {
                            p.add(e, v.clone()).unwrap();
                        }
                        if let Some(v) = &h.name {
                            p.add(e, v.clone()).unwrap();
                        }
                        if let Some(v) = &h.big {
                            p.add(e, v.clone()).unwrap();
                        }
                        if h.frozen {
                            p.add(e, Frozen).unwrap();
                        }
                        e
                    })
                    .collect()
            });
            cx.step(|p| {
                for (e, (_, kill)) in handles.iter().zip(entities) {
                    if *kill {
                        p.kill(*e);
                    }
                }
            });
            handles
        }
    };
}

macro_rules! read {
    ($cx:expr, $e:expr) => {
        $cx.step(|p| {
            p.is_alive($e).then(|| Holds {
                position: p.get::<Position>($e).cloned(),
                grouped: p.get::<Velocity>($e).cloned().zip(p.get::<Color>($e).cloned()),
                size: p.get::<Size>($e).cloned(),
                name: p.get::<Name>($e).cloned(),
                big: p.get::<Big>($e).cloned(),
                frozen: p.has::<Frozen>($e),
            })
        })
    };
}

macro_rules! round_trip {
    ($Cx:ty, $entities:expr) => {{
        let entities: &[(Holds, bool)] = $entities;
        let mut cx = <$Cx>::new();
        let handles = script!($Cx)(&mut cx, entities);
        cx.resource_mut::<Score>().0 = entities.len() as u64;
        cx.resource_mut::<Log>().0.push("saved".into());
        let json = serde_json::to_string(&cx.save()).unwrap();
        // A context that already holds entities and other resources.
        let mut loaded = <$Cx>::new();
        let _ = script!($Cx)(&mut loaded, &entities[..entities.len() / 2]);
        loaded.restore(serde_json::from_str(&json).unwrap()).unwrap();
        prop_assert_eq!(loaded.len(), cx.len());
        for (e, (h, kill)) in handles.iter().zip(entities) {
            let expected = (!kill).then(|| h.clone());
            prop_assert_eq!(read!(loaded, *e), expected.clone());
            prop_assert_eq!(read!(cx, *e), expected);
            prop_assert_eq!(loaded.id_of(*e), cx.id_of(*e));
        }
        prop_assert_eq!(loaded.resource::<Score>(), cx.resource::<Score>());
        prop_assert_eq!(loaded.resource::<Log>(), cx.resource::<Log>());
        // The same slots and generations come next in both.
        let next = cx.step(|p| p.create().unwrap());
        let next_loaded = loaded.step(|p| p.create().unwrap());
        prop_assert_eq!(next, next_loaded);
        // Saving the restored context gives the same text.
        loaded.step(|p| {
            p.kill(next_loaded);
        });
        cx.step(|p| {
            p.kill(next);
        });
        prop_assert_eq!(
            serde_json::to_string(&loaded.save()).unwrap(),
            serde_json::to_string(&cx.save()).unwrap()
        );
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 2 } else { 48 }))]

    #[test]
    fn round_trip_dynamic(entities in proptest::collection::vec((holds(), any::<bool>()), 0..40)) {
        round_trip!(Dynamic, &entities);
    }

    #[test]
    fn round_trip_fixed(entities in proptest::collection::vec((holds(), any::<bool>()), 0..40)) {
        round_trip!(Fixed, &entities);
    }
}

#[test]
fn restoring_into_a_fixed_context_too_small_fails_and_changes_nothing() {
    let mut big = Dynamic::new();
    let handles = big.step(|p| (0..6).map(|i| p.spawn((Size(i),)).unwrap()).collect::<Vec<_>>());
    let json = serde_json::to_string(&big.save()).unwrap();
    let mut small = Small::new();
    let kept = small.step(|p| p.spawn((Size(99), Frozen)).unwrap());
    small.resource_mut::<Score>().0 = 5;
    let err = small.restore(serde_json::from_str(&json).unwrap()).unwrap_err();
    assert_eq!(err, RestoreError::TooManyEntities { slots: 6, limit: 4 });
    assert_eq!(small.len(), 1);
    assert_eq!(small.step(|p| p.get::<Size>(kept).cloned()), Some(Size(99)));
    assert!(small.step(|p| p.has::<Frozen>(kept)));
    assert_eq!(small.resource::<Score>().0, 5);
    assert!(!small.is_alive(handles[5]) || small.id_of(handles[5]).is_none());
}

#[test]
fn a_malformed_snapshot_is_an_error_and_changes_nothing() {
    let mut cx = Dynamic::new();
    let e = cx.step(|p| p.spawn((Size(1),)).unwrap());
    let good = serde_json::to_string(&cx.save()).unwrap();
    let table = r#""generation_runs":[0,1],"slot_runs":[0,1]"#;
    let size = r#""Size":{"ids":[0,1],"values":[1]}"#;
    for bad in [
        // Two ids in one slot.
        good.replace(table, r#""generation_runs":[0,2],"slot_runs":[0,1,0,1]"#),
        // More ids than slots.
        good.replace(table, r#""generation_runs":[0,1],"slot_runs":[0,2]"#),
        // A run of ids too long to expand: rejected before allocating.
        good.replace(table, r#""generation_runs":[0,1],"slot_runs":[0,4294967295]"#),
        // A slot out of range.
        good.replace(table, r#""generation_runs":[0,1],"slot_runs":[3,1]"#),
        // Runs of generations that are not pairs, empty, or longer than a
        // dynamic context saves (a few bytes asking for billions of slots).
        good.replace(table, r#""generation_runs":[0,1,0],"slot_runs":[0,1]"#),
        good.replace(table, r#""generation_runs":[0,0,0,1],"slot_runs":[0,1]"#),
        good.replace(table, r#""generation_runs":[0,65],"slot_runs":[0,1]"#),
        good.replace(table, r#""generation_runs":[0,4294967295],"slot_runs":[0,1]"#),
        // Runs of slots that are not pairs, or empty.
        good.replace(table, r#""generation_runs":[0,1],"slot_runs":[0,1,0]"#),
        good.replace(table, r#""generation_runs":[0,1],"slot_runs":[0,0,0,1]"#),
        // A value for an id no entity has.
        good.replace(size, r#""Size":{"ids":[0,1,7,1],"values":[1,2]}"#),
        // A run past the last id, ids not pairs, an empty run.
        good.replace(size, r#""Size":{"ids":[0,2],"values":[1,2]}"#),
        good.replace(size, r#""Size":{"ids":[0,1,1],"values":[1]}"#),
        good.replace(size, r#""Size":{"ids":[0,0,0,1],"values":[1]}"#),
        // More values than ids, fewer.
        good.replace(size, r#""Size":{"ids":[0,1],"values":[1,2]}"#),
        good.replace(size, r#""Size":{"ids":[0,1],"values":[]}"#),
    ] {
        assert_ne!(bad, good, "the replacement applies");
        let err = cx.restore(serde_json::from_str(&bad).unwrap()).unwrap_err();
        assert!(matches!(err, RestoreError::Malformed(_)), "{bad}: {err:?}");
        assert_eq!(cx.len(), 1);
        assert_eq!(cx.step(|p| p.get::<Size>(e).cloned()), Some(Size(1)));
    }
}

#[test]
fn overlapping_or_descending_runs_of_ids_are_malformed() {
    let mut cx = Dynamic::new();
    let es = cx.step(|p| (0..3).map(|i| p.spawn((Size(i),)).unwrap()).collect::<Vec<_>>());
    let good = serde_json::to_string(&cx.save()).unwrap();
    let size = r#""Size":{"ids":[0,3],"values":[0,1,2]}"#;
    for bad in [
        good.replace(size, r#""Size":{"ids":[0,2,1,1],"values":[0,1,2]}"#),
        good.replace(size, r#""Size":{"ids":[2,1,0,2],"values":[0,1,2]}"#),
    ] {
        assert_ne!(bad, good, "the replacement applies");
        let err = cx.restore(serde_json::from_str(&bad).unwrap()).unwrap_err();
        assert!(matches!(err, RestoreError::Malformed(_)), "{bad}: {err:?}");
    }
    // Runs apart, in order, are what a context with holes saves.
    let fine = good.replace(size, r#""Size":{"ids":[0,1,2,1],"values":[0,2]}"#);
    cx.restore(serde_json::from_str(&fine).unwrap()).unwrap();
    let read = cx.step(|p| es.iter().map(|&e| p.get::<Size>(e).cloned()).collect::<Vec<_>>());
    assert_eq!(read, [Some(Size(0)), None, Some(Size(2))]);
    assert_eq!(cx.len(), 3);
}

/// A dynamic context saves the generations in runs of at most 64 slots
/// (a fixed one in runs of any length, up to its limit); either restores
/// the same handles, dead or alive, and the same next slots.
#[test]
fn generations_save_as_runs_of_bounded_length() {
    let mut cx = Dynamic::new();
    let handles = cx.step(|p| (0..150u32).map(|i| p.spawn((Size(i),)).unwrap()).collect::<Vec<_>>());
    cx.step(|p| {
        for e in handles.iter().step_by(7) {
            p.kill(*e);
        }
    });
    // Reclaimed: those slots are free, one generation on.
    cx.step(|_| ());
    let snapshot = serde_json::to_value(cx.save()).unwrap();
    let runs: Vec<u32> = serde_json::from_value(snapshot["entities"]["generation_runs"].clone()).unwrap();
    assert!(runs.chunks(2).all(|r| r[1] >= 1 && r[1] <= 64), "{runs:?}");
    assert_eq!(runs.chunks(2).map(|r| r[1]).sum::<u32>(), 150);
    let mut loaded = Dynamic::new();
    loaded.restore(serde_json::from_value(snapshot).unwrap()).unwrap();
    for (i, &e) in handles.iter().enumerate() {
        let want = (i % 7 != 0).then_some(Size(i as u32));
        assert_eq!(loaded.step(|p| p.get::<Size>(e).cloned()), want, "entity {i}");
    }
    let next = cx.step(|p| p.create().unwrap());
    assert_eq!(loaded.step(|p| p.create().unwrap()), next);

    let mut fixed = Fixed::new();
    fixed
        .step(|p| p.spawn_batch((0..64).map(|i| (Size(i),))).map(drop))
        .unwrap();
    let json = serde_json::to_string(&fixed.save()).unwrap();
    assert!(json.contains(r#""generation_runs":[0,64]"#), "{json}");
    // More slots than a fixed context's limit, in one run: refused before
    // anything is allocated.
    let mut small = Small::new();
    let hostile = json.replace(r#""generation_runs":[0,64]"#, r#""generation_runs":[0,4294967295]"#);
    let err = small.restore(serde_json::from_str(&hostile).unwrap()).unwrap_err();
    assert_eq!(
        err,
        RestoreError::TooManyEntities {
            slots: 4294967295,
            limit: 4
        }
    );
}

/// A batch's ids and slots are single runs: the snapshot holds little
/// beside the values.
#[test]
fn a_batch_saves_as_runs() {
    let mut cx = Dynamic::new();
    cx.step(|p| p.spawn_batch((0..5).map(|i| (Size(i), Frozen))).map(drop))
        .unwrap();
    let json = serde_json::to_string(&cx.save()).unwrap();
    assert!(json.contains(r#""slot_runs":[0,5]"#), "{json}");
    assert!(json.contains(r#""Size":{"ids":[0,5],"values":[0,1,2,3,4]}"#), "{json}");
    assert!(
        json.contains(r#""Frozen":{"ids":[0,5],"values":[null,null,null,null,null]}"#),
        "{json}"
    );
}

/// Systems process the restored entities from their next run.
mod with_systems {
    use super::{Position, Score};
    use ecs::{Data, System};

    #[derive(Default)]
    pub struct Sum;
    ecs::declare_context! {
        pub context Summed {
            settings { serde: all, threads: 2 }
            components { Position: contiguous; }
            resources { Score }
            systems { sum: Sum { read: [Position], write: [Score] } }
        }
    }
    impl System<Summed> for Sum {
        fn process(&self, data: &mut Data<'_, Summed, Self>, _: &()) {
            let mut total = 0.0;
            data.for_each::<&Position>(|p| total += p.0);
            data.resource_mut::<Score>().0 = total as u64;
        }
    }

    #[test]
    fn restored_entities_are_matched_to_systems() {
        let mut a = Summed::new();
        a.step(|p| p.spawn_batch((0..10).map(|i| (Position(i as f32, 0.0),))).map(drop))
            .unwrap();
        let json = serde_json::to_string(&a.save()).unwrap();
        let mut b = Summed::new();
        b.step(|p| p.spawn((Position(1000.0, 0.0),)).map(drop)).unwrap();
        b.step(|p| p.run_all(&()));
        assert_eq!(b.resource::<Score>().0, 1000);
        b.restore(serde_json::from_str(&json).unwrap()).unwrap();
        b.step(|p| p.run_all(&()));
        assert_eq!(b.resource::<Score>().0, 45);
        assert_eq!(b.subscribers::<Sum>().len(), 10);
    }
}

/// Hostile or broken input: a deserializer failing at every point, and a
/// component whose `Deserialize` panics at every value, leak and drop
/// nothing twice, and leave the context as it was.
mod hostile {
    use super::Frozen;
    use ecs::Entity;
    use serde::{Deserialize, Deserializer, Serialize};
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering::SeqCst};

    /// Values alive; a double drop makes it fall below what it should be.
    static LIVE: AtomicIsize = AtomicIsize::new(0);
    /// Values left to deserialize before one panics (`usize::MAX`: never).
    static PANIC_IN: AtomicUsize = AtomicUsize::new(usize::MAX);

    #[derive(Serialize, Debug, PartialEq)]
    pub struct Counted(pub u32);
    impl Counted {
        fn new(v: u32) -> Self {
            LIVE.fetch_add(1, SeqCst);
            Counted(v)
        }
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, SeqCst);
        }
    }
    impl<'de> Deserialize<'de> for Counted {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let v = u32::deserialize(d)?;
            if PANIC_IN.fetch_sub(1, SeqCst) == 0 {
                panic!("Counted::deserialize");
            }
            Ok(Counted::new(v))
        }
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    pub struct Other(pub Counted);

    ecs::declare_context! {
        pub context Counting {
            settings { serde: all }
            components { Counted: contiguous; Other: sparse_set; Frozen: tag; }
        }
    }

    fn filled(n: u32) -> (Counting, Vec<Entity>) {
        let mut cx = Counting::new();
        let handles = cx.step(|p| {
            (0..n)
                .map(|i| {
                    let e = p.spawn((Counted::new(i),)).unwrap();
                    if i % 2 == 0 {
                        p.add(e, Other(Counted::new(100 + i))).unwrap();
                        p.add(e, Frozen).unwrap();
                    }
                    e
                })
                .collect()
        });
        (cx, handles)
    }

    fn values(cx: &mut Counting, handles: &[Entity]) -> Vec<(Option<u32>, Option<u32>, bool)> {
        cx.step(|p| {
            handles
                .iter()
                .map(|&e| {
                    (
                        p.get::<Counted>(e).map(|c| c.0),
                        p.get::<Other>(e).map(|o| o.0 .0),
                        p.has::<Frozen>(e),
                    )
                })
                .collect()
        })
    }

    #[test]
    fn hostile_input_leaks_nothing_and_changes_nothing() {
        let (saved, six) = filled(6);
        let json = serde_json::to_string(&saved.save()).unwrap();
        let expected = values(&mut { saved }, &six);
        let (mut cx, three) = filled(3);
        let before = values(&mut cx, &three);
        let live = LIVE.load(SeqCst);
        // Cut short at every byte: the deserializer fails at every point.
        for end in 0..json.len() {
            let cut = &json[..end];
            assert!(
                serde_json::from_str::<ecs::save::Snapshot<Counting>>(cut).is_err(),
                "{cut}"
            );
            assert_eq!(LIVE.load(SeqCst), live, "{cut}");
        }
        // A panic at every value deserialized (9 in all).
        for k in 0..9 {
            PANIC_IN.store(k, SeqCst);
            let r = catch_unwind(AssertUnwindSafe(|| {
                serde_json::from_str::<ecs::save::Snapshot<Counting>>(&json)
            }));
            PANIC_IN.store(usize::MAX, SeqCst);
            assert!(r.is_err(), "value {k} panics");
            assert_eq!(LIVE.load(SeqCst), live, "after a panic at value {k}");
        }
        assert_eq!(values(&mut cx, &three), before);
        // The whole snapshot restores, dropping the context's values once.
        cx.restore(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(LIVE.load(SeqCst), live - 5 + 9);
        assert_eq!(values(&mut cx, &six), expected);
        assert_eq!(expected[0], (Some(0), Some(100), true));
        assert_eq!(LIVE.load(SeqCst), live - 5 + 9);
        drop(cx);
        assert_eq!(LIVE.load(SeqCst), live - 5);
    }
}

/// `restore_column` (reachable by safe code through `__private` and a
/// context's `DerefMut`) keeps the context sound whatever it is given:
/// overlapping and out-of-range runs, ids already holding the component.
#[test]
fn restore_column_given_anything_keeps_bits_and_values_agreeing() {
    let mut cx = Dynamic::new();
    let es = cx.step(|p| (0..6).map(|i| p.spawn((Size(i),)).unwrap()).collect::<Vec<_>>());
    cx.step(|p| p.add(es[1], Position(-1.0, 0.0)).map(drop)).unwrap();
    let column: ecs::__private::LoadColumn<Position> =
        serde_json::from_str(r#"{"ids":[0,3,2,3,1,1,4,9],"values":[[0,0],[1,0],[2,0],[3,0],[4,0],[5,0],[6,0]]}"#)
            .unwrap();
    ecs::__private::restore_column::<Dynamic, Position>(&mut cx, column);
    // Twice: every id holds a value now, so the second goes one by one.
    let column: ecs::__private::LoadColumn<Position> =
        serde_json::from_str(r#"{"ids":[4,2],"values":[[40,0],[50,0]]}"#).unwrap();
    ecs::__private::restore_column::<Dynamic, Position>(&mut cx, column);
    let read = cx.step(|p| {
        es.iter()
            .map(|&e| (p.get::<Position>(e).map(|v| v.0), p.get::<Size>(e).map(|s| s.0)))
            .collect::<Vec<_>>()
    });
    let expected = [0.0, 1.0, 2.0, 3.0, 40.0, 50.0].iter().enumerate();
    assert_eq!(
        read,
        expected.map(|(i, &x)| (Some(x), Some(i as u32))).collect::<Vec<_>>()
    );
    // The step proxy's queries see exactly the entities whose bit is set.
    let seen = cx.step(|p| {
        let mut seen = 0;
        p.for_each::<&Position>(|_| seen += 1);
        seen
    });
    assert_eq!(seen, 6);
}

/// Runs with a gap, over a column of fixed places (`contiguous`, written
/// and read a run at a time) and others: what is saved restores exactly.
/// Small enough for Miri.
#[test]
fn runs_with_gaps_round_trip() {
    let mut cx = Fixed::new();
    let es = cx.step(|p| {
        (0..6u32)
            .map(|i| p.spawn((Position(i as f32, -(i as f32)), Size(i))).unwrap())
            .collect::<Vec<_>>()
    });
    cx.step(|p| {
        p.kill(es[2]);
        p.remove::<Position>(es[1]);
    });
    let json = serde_json::to_string(&cx.save()).unwrap();
    // Two runs: the ids are packed after the kill, but `es[1]` has no
    // `Position`.
    let saved: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        saved["components"]["Position"]["ids"].as_array().map(Vec::len),
        Some(4),
        "{json}"
    );
    let mut loaded = Fixed::new();
    loaded.restore(serde_json::from_str(&json).unwrap()).unwrap();
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(read!(loaded, e), read!(cx, e), "entity {i}");
    }
    assert_eq!(serde_json::to_string(&loaded.save()).unwrap(), json);
}

ecs::declare_context! {
    /// An earlier declaration of `Dynamic`: two of its components, its
    /// resources.
    pub context Older {
        settings { serde: all }
        components {
            Position: contiguous;
            Size: sparse_set;
        }
        resources { Score, Log }
    }
}

/// A snapshot begins with its format's number; one of another format is
/// refused when that number is read, with an error naming both formats.
#[test]
fn a_snapshot_of_another_format_is_refused_naming_both_formats() {
    let mut cx = Dynamic::new();
    cx.step(|p| p.spawn((Size(3),)).map(drop)).unwrap();
    let json = serde_json::to_string(&cx.save()).unwrap();
    let ours = format!(r#"{{"format":{},"#, ecs::save::SNAPSHOT_FORMAT);
    assert!(json.starts_with(&ours), "{json}");
    let other = json.replacen(&ours, r#"{"format":7,"#, 1);
    let err = serde_json::from_str::<ecs::save::Snapshot<Dynamic>>(&other)
        .err()
        .expect("a snapshot of format 7 is refused")
        .to_string();
    assert!(
        err.contains("the snapshot is of format 7, and this build of ecs reads format 1 only"),
        "{err}"
    );
    // Read first: a snapshot of another format whose contents this build
    // cannot parse at all still gets the format's error.
    let garbled = r#"{"format":7,"entities":"not a table"}"#;
    let err = serde_json::from_str::<ecs::save::Snapshot<Dynamic>>(garbled)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("of format 7"), "{err}");
    // Without a format (written before snapshots had one): refused too.
    let unnumbered = json.replacen(&ours, "{", 1);
    let err = serde_json::from_str::<ecs::save::Snapshot<Dynamic>>(&unnumbered)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("missing field `format`"), "{err}");
}

/// A component declared since a snapshot was saved restores with no
/// values; a snapshot naming a component or resource the context does not
/// declare is refused rather than losing its values.
#[test]
fn components_are_matched_by_declared_name() {
    let mut older = Older::new();
    let e = older.step(|p| p.spawn((Position(1.0, 2.0), Size(5))).unwrap());
    older.resource_mut::<Score>().0 = 9;
    let json = serde_json::to_string(&older.save()).unwrap();

    let mut newer = Dynamic::new();
    newer.restore(serde_json::from_str(&json).unwrap()).unwrap();
    let mut want = Holds {
        position: Some(Position(1.0, 2.0)),
        grouped: None,
        size: Some(Size(5)),
        name: None,
        big: None,
        frozen: false,
    };
    assert_eq!(read!(newer, e), Some(want.clone()));
    assert_eq!(newer.resource::<Score>().0, 9);
    // And the restored context works as any other.
    newer.step(|p| p.add(e, Frozen)).unwrap();
    want.frozen = true;
    assert_eq!(read!(newer, e), Some(want));

    // The other way: `Older` does not declare `Velocity` (nor the others).
    let json = serde_json::to_string(&newer.save()).unwrap();
    let err = serde_json::from_str::<ecs::save::Snapshot<Older>>(&json)
        .err()
        .expect("a snapshot with components `Older` lacks is refused")
        .to_string();
    assert!(err.contains("unknown field `Velocity`"), "{err}");

    // A resource the context does not declare, likewise.
    let mut value: serde_json::Value = serde_json::from_str(&serde_json::to_string(&older.save()).unwrap()).unwrap();
    value["resources"]["Lives"] = serde_json::json!(3);
    let err = serde_json::from_value::<ecs::save::Snapshot<Older>>(value)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("unknown field `Lives`"), "{err}");
}
