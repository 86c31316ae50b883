//! `add_to_all` and `remove_from_all`: the right entities change, values
//! are dropped exactly once, systems see the change when they next run
//! (whether it was queued entity by entity or in bulk), systems sharing a
//! subscriber set part ways when a bulk change treats them differently, and
//! event handlers hear every change.

use ecs::{Data, Entity, EntityId, RefreshEvents, System};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Health(pub u32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Armor(pub u32);
/// Counts its clones, to check that every value is dropped once.
#[derive(Clone, Debug)]
pub struct Hit(pub Arc<()>);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Regen(pub u32);
/// As `Hit`, in a column whose runs are written in place.
#[derive(Clone, Debug)]
pub struct Mark(pub Arc<()>);

/// Processes entities holding `Health`.
#[derive(Default)]
pub struct Living;
/// Processes entities holding `Health` and `Hit`.
#[derive(Default)]
pub struct Wounded;
/// Processes entities holding `Health`, `Hit` and `Armor`.
#[derive(Default)]
pub struct Shielded;
/// Processes entities holding `Regen`.
#[derive(Default)]
pub struct Healing;
/// Processes entities holding `Mark`.
#[derive(Default)]
pub struct Marked;

macro_rules! impl_noop {
    ($($S:ident),+) => {$(
        impl System<Ctx> for $S {
            fn process(&self, _: &mut Data<'_, Ctx, Self>, _: &()) {}
        }
    )+};
}

ecs::declare_context! {
    pub context Ctx {
        settings { entities: dynamic(8), threads: 1 }
        components { Health, Armor, Mark: contiguous; Hit: sparse_set; Regen: hash_map; }
        systems {
            living: Living { read: [Health] }
            wounded: Wounded { read: [Health, Hit] }
            shielded: Shielded { read: [Health, Hit, Armor] }
            healing: Healing { read: [Regen] }
            marked: Marked { read: [Mark] }
        }
    }
}
impl_noop!(Living, Wounded, Shielded, Healing, Marked);

/// Enough entities for long runs and many bitset words; fewer under Miri,
/// which interprets every instruction.
const MANY: u32 = if cfg!(miri) { 150 } else { 1000 };

/// The ids of the entities (in `es`) for which `f` holds, as systems see
/// them.
fn ids(ctx: &Ctx, es: &[Entity], f: impl Fn(usize) -> bool) -> Vec<EntityId> {
    let mut v: Vec<EntityId> = (0..es.len())
        .filter(|&k| f(k))
        .map(|k| ctx.id_of(es[k]).unwrap())
        .collect();
    v.sort();
    v
}

fn sorted(ids: &[EntityId]) -> Vec<EntityId> {
    let mut v = ids.to_vec();
    v.sort();
    v
}

/// `n` entities with `Health`; every third with `Armor`.
fn world(n: u32) -> (Ctx, Vec<Entity>) {
    let mut ctx = Ctx::new();
    let es = ctx.step(|p| {
        (0..n)
            .map(|i| {
                let e = p.spawn((Health(i),)).unwrap();
                if i % 3 == 0 {
                    p.add(e, Armor(i)).unwrap();
                }
                e
            })
            .collect::<Vec<_>>()
    });
    ctx.step(|p| p.run_all(&()));
    (ctx, es)
}

#[test]
fn add_to_all_gives_the_component_to_every_holder_and_replaces_old_values() {
    // Many entities: long runs for the bulk path; 3 for the one-by-one path.
    for n in [3, MANY] {
        let (mut ctx, es) = world(n);
        let hit = Arc::new(());
        let added = ctx.step(|p| p.add_to_all::<(Armor,), _>(|_| Hit(hit.clone())));
        let armored = |k: usize| k.is_multiple_of(3);
        assert_eq!(added, es.iter().enumerate().filter(|&(k, _)| armored(k)).count());
        assert_eq!(Arc::strong_count(&hit), added + 1);
        assert_eq!(sorted(ctx.subscribers::<Wounded>()), ids(&ctx, &es, armored), "{n}");
        assert_eq!(sorted(ctx.subscribers::<Shielded>()), ids(&ctx, &es, armored), "{n}");
        // Every entity now: those with a `Hit` drop the old one.
        let again = Arc::new(());
        let added = ctx.step(|p| p.add_to_all::<(Health,), _>(|_| Hit(again.clone())));
        assert_eq!(added, es.len());
        assert_eq!(Arc::strong_count(&hit), 1, "{n}: replaced values dropped");
        assert_eq!(sorted(ctx.subscribers::<Wounded>()), ids(&ctx, &es, |_| true), "{n}");
        assert_eq!(sorted(ctx.subscribers::<Living>()), ids(&ctx, &es, |_| true), "{n}");
        // Values come from the closure, by id.
        let given = ctx.step(|p| p.add_to_all::<(), _>(|id| Regen(id.to_bits() * 2)));
        assert_eq!(given, es.len());
        ctx.step(|p| {
            for &e in &es {
                let id = p.id_of(e).unwrap();
                assert_eq!(p.get::<Regen>(e), Some(&Regen(id.to_bits() * 2)));
            }
        });
        drop(ctx);
        assert_eq!(Arc::strong_count(&again), 1, "{n}: the context drops what it holds");
    }
}

#[test]
fn add_to_all_skips_entities_killed_in_the_same_step() {
    for n in [4, MANY] {
        let (mut ctx, es) = world(n);
        let added = ctx.step(|p| {
            p.kill(es[1]);
            p.kill(es[n as usize - 1]);
            p.add_to_all::<(Health,), _>(|_| Regen(1))
        });
        assert_eq!(added, n as usize - 2);
        assert_eq!(ctx.subscribers::<Healing>().len(), n as usize - 2);
        ctx.step(|p| {
            assert!(es.iter().filter(|&&e| p.is_alive(e)).all(|&e| p.has::<Regen>(e)));
        });
    }
}

#[test]
fn remove_from_all_empties_the_component_and_its_systems() {
    for n in [5, MANY] {
        let (mut ctx, es) = world(n);
        let hit = Arc::new(());
        // A few holders (one by one) or many (in bulk).
        let holders = if n == 5 { 1 } else { n as usize * 9 / 10 };
        ctx.step(|p| {
            for &e in &es[..holders] {
                p.add(e, Hit(hit.clone())).unwrap();
            }
        });
        assert_eq!(ctx.subscribers::<Wounded>().len(), holders);
        let removed = ctx.step(|p| p.remove_from_all::<Hit>());
        assert_eq!(removed, holders);
        assert_eq!(Arc::strong_count(&hit), 1, "{n}: every value dropped");
        assert!(ctx.subscribers::<Wounded>().is_empty() && ctx.subscribers::<Shielded>().is_empty());
        assert_eq!(
            ctx.subscribers::<Living>().len(),
            es.len(),
            "{n}: other systems keep theirs"
        );
        assert_eq!(ctx.step(|p| p.remove_from_all::<Hit>()), 0);
        ctx.step(|p| assert!(es.iter().all(|&e| !p.has::<Hit>(e))));
    }
}

#[test]
fn remove_from_all_drops_values_kept_in_place() {
    let (mut ctx, es) = world(MANY);
    let mark = Arc::new(());
    assert_eq!(ctx.step(|p| p.add_to_all::<(), _>(|_| Mark(mark.clone()))), es.len());
    assert_eq!(ctx.subscribers::<Marked>().len(), es.len());
    assert_eq!(ctx.step(|p| p.remove_from_all::<Mark>()), es.len());
    assert_eq!(Arc::strong_count(&mark), 1, "every value dropped once");
    assert!(ctx.subscribers::<Marked>().is_empty());
    // The column takes values again at the same ids.
    assert_eq!(
        ctx.step(|p| p.add_to_all::<(Armor,), _>(|_| Mark(mark.clone()))),
        es.len().div_ceil(3)
    );
    drop(ctx);
    assert_eq!(Arc::strong_count(&mark), 1);
}

#[test]
fn systems_sharing_a_set_part_when_a_bulk_change_treats_them_differently() {
    // Spawned holding all three components, the entities match `living`,
    // `wounded` and `shielded` alike: the three share one set until a bulk
    // change tells them apart.
    let mut ctx = Ctx::new();
    ctx.step(|p| {
        p.spawn_batch((0..MANY).map(|i| (Health(i), Hit(Arc::new(())), Armor(i))))
            .unwrap()
            .count()
    });
    ctx.step(|p| p.run_all(&()));
    assert_eq!(ctx.subscribers::<Shielded>().len(), MANY as usize);
    assert_eq!(ctx.step(|p| p.remove_from_all::<Armor>()), MANY as usize);
    assert!(ctx.subscribers::<Shielded>().is_empty());
    assert_eq!(ctx.subscribers::<Wounded>().len(), MANY as usize);
    assert_eq!(ctx.subscribers::<Living>().len(), MANY as usize);
    assert_eq!(ctx.step(|p| p.remove_from_all::<Hit>()), MANY as usize);
    assert!(ctx.subscribers::<Shielded>().is_empty() && ctx.subscribers::<Wounded>().is_empty());
    assert_eq!(ctx.subscribers::<Living>().len(), MANY as usize);
    // And back: each system's set follows its own components.
    assert_eq!(
        ctx.step(|p| p.add_to_all::<(), _>(|_| Hit(Arc::new(())))),
        MANY as usize
    );
    assert_eq!(ctx.subscribers::<Wounded>().len(), MANY as usize);
    assert!(ctx.subscribers::<Shielded>().is_empty());
    assert_eq!(ctx.subscribers::<Living>().len(), MANY as usize);
}

#[test]
fn event_handlers_hear_every_change_of_a_bulk_step() {
    for n in [4, MANY] {
        let (mut ctx, es) = world(n);
        let heard = RefCell::new(Vec::new());
        let mut events = RefreshEvents::<Ctx>::new()
            .on_subscribe::<Wounded>(|e| heard.borrow_mut().push(("wounded+", e)))
            .on_unsubscribe::<Wounded>(|e| heard.borrow_mut().push(("wounded-", e)))
            .on_subscribe::<Shielded>(|e| heard.borrow_mut().push(("shielded+", e)))
            .on_unsubscribe::<Shielded>(|e| heard.borrow_mut().push(("shielded-", e)));
        ctx.step_with(&mut events, |p| p.add_to_all::<(), _>(|_| Hit(Arc::new(()))));
        let count = |kind: &str| heard.borrow().iter().filter(|(k, _)| *k == kind).count();
        let armored = es.iter().step_by(3).count();
        assert_eq!(count("wounded+"), es.len(), "{n}");
        assert_eq!(count("shielded+"), armored, "{n}");
        heard.borrow_mut().clear();
        ctx.step_with(&mut events, |p| p.remove_from_all::<Hit>());
        assert_eq!((count("wounded-"), count("shielded-")), (es.len(), armored), "{n}");
        assert_eq!(heard.borrow().len(), es.len() + armored);
    }
}

/// `add_to_all` of `C` whose value panics at entity `MANY * 3 / 5`; `processing`
/// counts the entities of the system that reads `C`.
fn panic_halfway<C: ecs::traits::Component<Ctx>>(make: impl Fn(Arc<()>) -> C, processing: fn(&mut Ctx) -> usize) {
    let (mut ctx, es) = world(MANY);
    let counted = Arc::new(());
    let r = catch_unwind(AssertUnwindSafe(|| {
        ctx.step(|p| {
            p.add_to_all::<(), _>(|id| {
                assert!(id.to_bits() != MANY * 3 / 5, "no value for this entity");
                make(counted.clone())
            })
        })
    }));
    assert!(r.is_err());
    let holders: Vec<u32> = ctx.step(|p| {
        es.iter()
            .filter(|&&e| p.has::<C>(e))
            .map(|&e| p.id_of(e).unwrap().to_bits())
            .collect()
    });
    let stored = MANY as usize * 3 / 5;
    assert_eq!(holders, (0..stored as u32).collect::<Vec<_>>());
    assert_eq!(Arc::strong_count(&counted), stored + 1, "no value leaked or lost");
    assert_eq!(processing(&mut ctx), stored, "systems see what was stored");
    drop(ctx);
    assert_eq!(Arc::strong_count(&counted), 1);
}

#[test]
fn a_panicking_value_leaves_the_entities_before_it_changed_and_the_rest_alone() {
    // Stored one by one (a sparse set), and written in place (contiguous).
    panic_halfway(Hit, |ctx| ctx.subscribers::<Wounded>().len());
    panic_halfway(Mark, |ctx| ctx.subscribers::<Marked>().len());
}
