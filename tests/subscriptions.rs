//! Systems that process the same entities share one subscriber set until an
//! entity is matched differently for one of them; then that one gets its own
//! copy. Whatever the sharing, each system sees exactly its entities, in
//! the order they were matched, and subscription events fire per system.

use ecs::{Data, Entity, EntityId, RefreshEvents, System};
use std::cell::RefCell;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct A(pub u32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct B(pub u32);

#[derive(Default)]
pub struct OnA;
#[derive(Default)]
pub struct OnAb;
#[derive(Default)]
pub struct AlsoOnA;

ecs::declare_context! {
    pub context Ctx {
        settings { threads: 1 }
        components { A, B: contiguous; }
        systems {
            on_a: OnA { read: [A] }
            on_ab: OnAb { read: [A, B] }
            also_on_a: AlsoOnA { write: [A], after: [on_a, on_ab] }
        }
    }
}

impl System<Ctx> for OnA {
    fn process(&self, _: &mut Data<'_, Ctx, Self>, _: &()) {}
}
impl System<Ctx> for OnAb {
    fn process(&self, _: &mut Data<'_, Ctx, Self>, _: &()) {}
}
impl System<Ctx> for AlsoOnA {
    fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
        data.for_each::<&mut A>(|a| a.0 += 1);
    }
}

fn ids(set: &[EntityId]) -> Vec<u32> {
    set.iter().map(|id| id.index() as u32).collect()
}

#[test]
fn shared_sets_split_when_systems_disagree() {
    let mut ctx = Ctx::new();
    // Every entity holds A and B: the three systems process the same ones.
    let es: Vec<Entity> = ctx.step(|p| p.spawn_batch((0..6).map(|i| (A(i), B(i)))).unwrap().collect());
    for s in [
        ids(ctx.subscribers::<OnA>()),
        ids(ctx.subscribers::<OnAb>()),
        ids(ctx.subscribers::<AlsoOnA>()),
    ] {
        assert_eq!(s, [0, 1, 2, 3, 4, 5]);
    }

    // In one refresh: two deaths leave holes in the shared set, then one
    // entity loses B, which only `on_ab` cares about.
    let log = RefCell::new(Vec::new());
    let mut events = RefreshEvents::<Ctx>::new()
        .on_unsubscribe::<OnA>(|e| log.borrow_mut().push(format!("-on_a {}", e.slot())))
        .on_unsubscribe::<OnAb>(|e| log.borrow_mut().push(format!("-on_ab {}", e.slot())))
        .on_unsubscribe::<AlsoOnA>(|e| log.borrow_mut().push(format!("-also {}", e.slot())))
        .on_subscribe::<OnAb>(|e| log.borrow_mut().push(format!("+on_ab {}", e.slot())));
    ctx.step_with(&mut events, |p| {
        p.kill(es[1]);
        p.kill(es[4]);
        p.remove::<B>(es[2]).unwrap();
    });
    drop(events);
    // Reclaiming packs the ids: 5 moves into 4's id, then (the last now)
    // into 1's, as a `swap_remove` from the back would.
    let id = |e: Entity| ctx.id_of(e).unwrap().to_bits();
    assert_eq!([0, 2, 3, 5].map(|i| id(es[i])), [0, 2, 3, 1]);
    // A set holding every entity is in id order again; the split-off one
    // keeps its order, the moved entity in its place.
    assert_eq!(ids(ctx.subscribers::<OnA>()), [0, 1, 2, 3]);
    assert_eq!(ids(ctx.subscribers::<AlsoOnA>()), [0, 1, 2, 3]);
    assert_eq!(ids(ctx.subscribers::<OnAb>()), [0, 3, 1]);
    assert_eq!(
        log.take(),
        ["-on_a 1", "-on_ab 1", "-also 1", "-on_a 4", "-on_ab 4", "-also 4", "-on_ab 2"],
        "each system hears of its own changes only"
    );

    // The split-off set and the still shared one evolve apart.
    let mut events = RefreshEvents::<Ctx>::new()
        .on_subscribe::<OnA>(|e| log.borrow_mut().push(format!("+on_a {}", e.slot())))
        .on_subscribe::<OnAb>(|e| log.borrow_mut().push(format!("+on_ab {}", e.slot())))
        .on_subscribe::<AlsoOnA>(|e| log.borrow_mut().push(format!("+also {}", e.slot())));
    let late = ctx.step_with(&mut events, |p| {
        p.add(es[2], B(20)).unwrap();
        p.spawn((A(9),)).unwrap()
    });
    drop(events);
    assert_eq!(late.slot(), 1, "the lowest freed slot comes back first");
    assert_eq!(ctx.id_of(late).unwrap().to_bits(), 4, "and the next id");
    // (Sets keep the order of matching: a new match joins at the end.)
    assert_eq!(ids(ctx.subscribers::<OnA>()), [0, 1, 2, 3, 4]);
    assert_eq!(ids(ctx.subscribers::<AlsoOnA>()), [0, 1, 2, 3, 4]);
    assert_eq!(ids(ctx.subscribers::<OnAb>()), [0, 3, 1, 2]);
    assert_eq!(log.take(), ["+on_ab 2", "+on_a 1", "+also 1"]);

    // Systems run over their own sets.
    ctx.step(|p| p.run_all(&()));
    ctx.step(|p| {
        assert_eq!(p.get::<A>(late), Some(&A(10)));
        assert_eq!(p.get::<A>(es[2]), Some(&A(3)));
    });
}

/// Steps that run no system leave matching to the next run (or to
/// `subscribers`), which matches their changes once; a step given event
/// handlers still hears of exactly its own subscriptions.
#[test]
fn steps_without_runs_are_matched_once_and_events_stay_per_step() {
    let mut ctx = Ctx::new();
    let es: Vec<Entity> = ctx.step(|p| p.spawn_batch((0..4).map(|i| (A(i),))).unwrap().collect());
    ctx.step(|p| {
        p.add(es[0], B(0)).unwrap();
        p.add(es[1], B(1)).unwrap();
    });
    ctx.step(|p| {
        p.remove::<B>(es[1]).unwrap();
        p.kill(es[2]);
    });
    let brief = ctx.step(|p| p.spawn((A(7), B(7))).unwrap());
    ctx.step(|p| p.kill(brief));

    let log = RefCell::new(Vec::new());
    let mut events = RefreshEvents::<Ctx>::new()
        .on_subscribe::<OnAb>(|e| log.borrow_mut().push(format!("+on_ab {}", e.slot())))
        .on_unsubscribe::<OnAb>(|e| log.borrow_mut().push(format!("-on_ab {}", e.slot())))
        .on_subscribe::<OnA>(|e| log.borrow_mut().push(format!("+on_a {}", e.slot())))
        .on_unsubscribe::<OnA>(|e| log.borrow_mut().push(format!("-on_a {}", e.slot())));
    ctx.step_with(&mut events, |p| {
        p.add(es[3], B(3)).unwrap();
        p.remove::<B>(es[0]).unwrap();
    });
    drop(events);
    assert_eq!(
        log.take(),
        ["+on_ab 3", "-on_ab 0"],
        "only this step's changes: the earlier steps' were matched silently first"
    );

    // Entity 3 moved into the id entity 2 left.
    let id = |ctx: &Ctx, e: Entity| ctx.id_of(e).unwrap().to_bits();
    let (i0, i1, i3) = (id(&ctx, es[0]), id(&ctx, es[1]), id(&ctx, es[3]));
    assert_eq!(ids(ctx.subscribers::<OnAb>()), [i3]);
    let mut on_a = ids(ctx.subscribers::<OnA>());
    on_a.sort_unstable();
    assert_eq!(on_a, [i0, i1, i3]);

    // Changes that cancel between runs leave the sets as they were.
    ctx.step(|p| p.add(es[1], B(1)).unwrap());
    ctx.step(|p| p.remove::<B>(es[1]).unwrap());
    ctx.step(|p| p.run_all(&()));
    assert_eq!(ids(ctx.subscribers::<OnAb>()), [i3]);
    ctx.step(|p| {
        for (e, a) in [(es[0], 1), (es[1], 2), (es[3], 4)] {
            assert_eq!(
                p.get::<A>(e),
                Some(&A(a)),
                "also_on_a ran once over every entity with A"
            );
        }
    });
}

/// A batch of new entities is matched as one run (each set takes it whole),
/// with the same sets and events as matching them one by one: entity by
/// entity, each system in order; a run whose entities some set already
/// holds is matched one by one.
#[test]
fn batches_are_matched_whole_with_the_events_of_one_by_one() {
    let mut ctx = Ctx::new();
    let log = RefCell::new(Vec::new());
    let mut events = RefreshEvents::<Ctx>::new()
        .on_subscribe::<OnA>(|e| log.borrow_mut().push(format!("+on_a {}", e.slot())))
        .on_subscribe::<OnAb>(|e| log.borrow_mut().push(format!("+on_ab {}", e.slot())))
        .on_subscribe::<AlsoOnA>(|e| log.borrow_mut().push(format!("+also {}", e.slot())));
    let (only_a, both) = ctx.step_with(&mut events, |p| {
        let only_a: Vec<Entity> = p.spawn_n(3, (A(1),)).unwrap().collect();
        let both: Vec<Entity> = p.spawn_batch((0..2).map(|i| (A(i), B(i)))).unwrap().collect();
        (only_a, both)
    });
    drop(events);
    assert_eq!(
        log.take(),
        [
            "+on_a 0", "+also 0", "+on_a 1", "+also 1", "+on_a 2", "+also 2", "+on_a 3", "+on_ab 3", "+also 3",
            "+on_a 4", "+on_ab 4", "+also 4",
        ]
    );
    assert_eq!(ids(ctx.subscribers::<OnA>()), [0, 1, 2, 3, 4]);
    assert_eq!(ids(ctx.subscribers::<AlsoOnA>()), [0, 1, 2, 3, 4]);
    assert_eq!(ids(ctx.subscribers::<OnAb>()), [3, 4]);

    // Entities alike, queued in order, that the sets hold already: one by
    // one, each change once.
    let mut events = RefreshEvents::<Ctx>::new()
        .on_subscribe::<OnA>(|e| log.borrow_mut().push(format!("+on_a {}", e.slot())))
        .on_subscribe::<OnAb>(|e| log.borrow_mut().push(format!("+on_ab {}", e.slot())))
        .on_subscribe::<AlsoOnA>(|e| log.borrow_mut().push(format!("+also {}", e.slot())))
        .on_unsubscribe::<OnAb>(|e| log.borrow_mut().push(format!("-on_ab {}", e.slot())));
    ctx.step_with(&mut events, |p| {
        for &e in &only_a {
            p.add(e, B(7)).unwrap();
        }
        p.remove::<B>(both[0]).unwrap();
        p.remove::<B>(both[1]).unwrap();
    });
    drop(events);
    assert_eq!(log.take(), ["+on_ab 0", "+on_ab 1", "+on_ab 2", "-on_ab 3", "-on_ab 4"]);
    assert_eq!(ids(ctx.subscribers::<OnAb>()), [0, 1, 2]);

    // Freed slots reused by a batch (generation 1), then fresh ones: two
    // runs, every entity matched once.
    ctx.step(|p| {
        p.kill(only_a[1]);
        p.kill(only_a[2]);
    });
    let late: Vec<Entity> = ctx.step(|p| p.spawn_n(3, (A(100), B(0))).unwrap().collect());
    assert_eq!(
        late.iter().map(|e| (e.slot(), e.generation())).collect::<Vec<_>>(),
        [(1, 1), (2, 1), (5, 0)]
    );
    ctx.step(|p| p.run_all(&()));
    ctx.step(|p| {
        for &e in &late {
            assert_eq!(p.get::<A>(e), Some(&A(101)), "also_on_a ran once over each new entity");
        }
        assert_eq!(p.get::<A>(only_a[0]), Some(&A(2)));
        assert_eq!(p.get::<A>(both[1]), Some(&A(2)));
    });
    let mut on_ab = ids(ctx.subscribers::<OnAb>());
    on_ab.sort_unstable();
    assert_eq!(on_ab.len(), 4, "only_a[0] and the three new ones");
    let mut on_a = ids(ctx.subscribers::<OnA>());
    on_a.sort_unstable();
    assert_eq!(on_a, [0, 1, 2, 3, 4, 5]);
}
