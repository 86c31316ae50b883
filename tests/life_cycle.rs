//! Entities, handles, components and refresh through a declared context.

use ecs::{Data, Entity, EntityId, System};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position(pub f32);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Velocity(pub f32);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Health(pub i32);
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Frozen;

#[derive(Default)]
pub struct Mover;
#[derive(Default)]
pub struct Reaper {
    pub seen: usize,
}

ecs::declare_context! {
    /// A small world.
    pub context World {
        settings { entities: dynamic(4), inner_parallelism: deny, threads: 1 }
        components {
            Position, Velocity: contiguous;
            Health: sparse_set;
            Frozen: tag;
        }
        systems {
            mover: Mover { read: [Velocity], write: [Position] }
            reaper: Reaper { write: [Health], after: [mover] }
        }
    }
}

impl System<World> for Mover {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
    }
}

impl System<World> for Reaper {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_entities::<(EntityId, &mut Health)>(|view, (id, h)| {
            h.0 -= 1;
            if h.0 <= 0 {
                view.kill(id);
            }
        });
    }
    fn after(&mut self, _: &mut [()], _: &()) {
        self.seen += 1;
    }
}

#[test]
fn create_add_get_remove() {
    let mut w = World::new();
    let e = w.step(|p| {
        let e = p.create().unwrap();
        assert_eq!(p.add(e, Position(1.0)), Ok(None));
        assert_eq!(p.add(e, Position(2.0)), Ok(Some(Position(1.0))));
        p.add(e, Velocity(0.5)).unwrap();
        assert!(p.has::<Position>(e) && !p.has::<Health>(e));
        assert_eq!(p.get::<Position>(e), Some(&Position(2.0)));
        p.get_mut::<Position>(e).unwrap().0 = 3.0;
        assert_eq!(p.component::<Position>(e), &Position(3.0));
        assert_eq!(p.remove::<Velocity>(e), Some(Velocity(0.5)));
        assert_eq!(
            p.remove::<Velocity>(e),
            None,
            "removing an absent component is harmless"
        );
        e
    });
    assert_eq!(w.len(), 1);
    assert!(w.is_alive(e));
}

#[test]
fn systems_see_matching_entities_and_run_in_order() {
    let mut w = World::new();
    let (a, b) = w.step(|p| {
        let a = p.spawn((Position(0.0), Velocity(1.0))).unwrap();
        let b = p.spawn((Position(0.0), Health(2))).unwrap();
        (a, b)
    });
    let (ia, ib) = (w.id_of(a).unwrap(), w.id_of(b).unwrap());
    assert_eq!(w.subscribers::<Mover>(), &[ia]);
    assert_eq!(w.subscribers::<Reaper>(), &[ib]);
    w.step(|p| p.run_all(&()));
    w.step(|p| {
        assert_eq!(p.get::<Position>(a), Some(&Position(1.0)));
        assert_eq!(p.get::<Health>(b), Some(&Health(1)));
        p.run_all(&());
        assert!(p.is_alive(b), "a kill from a system applies at refresh");
    });
    assert!(!w.is_alive(b), "killed by reaper and reclaimed");
    assert_eq!(w.subscribers::<Reaper>(), &[] as &[EntityId]);
    assert_eq!(w.system::<Reaper>().seen, 2);
}

#[test]
fn matching_follows_add_and_remove() {
    let mut w = World::new();
    let e = w.step(|p| p.spawn((Position(0.0),)).unwrap());
    assert!(w.subscribers::<Mover>().is_empty());
    w.step(|p| {
        p.add(e, Velocity(2.0)).unwrap();
        p.run_all(&()); // matched before systems run
        assert_eq!(p.get::<Position>(e), Some(&Position(2.0)));
        p.remove::<Velocity>(e);
        p.run_all(&()); // unmatched before systems run: no access to a missing Velocity
        assert_eq!(p.get::<Position>(e), Some(&Position(2.0)));
    });
    assert!(w.subscribers::<Mover>().is_empty());
}

#[test]
fn stale_handles_read_dead_after_id_reuse() {
    let mut w = World::new();
    let a = w.step(|p| p.spawn((Health(5),)).unwrap());
    w.step(|p| assert!(p.kill(a)));
    let b = w.step(|p| {
        assert!(!p.kill(a), "killing a dead entity is harmless");
        p.spawn((Health(7),)).unwrap()
    });
    assert_eq!(a.slot(), b.slot(), "slots are reused");
    assert_ne!(a, b);
    w.step(|p| {
        assert!(!p.is_alive(a) && p.is_alive(b));
        assert_eq!(p.get::<Health>(a), None);
        assert_eq!(p.remove::<Health>(a), None);
        assert!(p.add(a, Health(1)).is_err());
        assert_eq!(p.get::<Health>(b), Some(&Health(7)));
        assert_eq!(p.handle(p.id_of(b).unwrap()), Some(b));
    });
}

#[test]
#[should_panic(expected = "has no component `Velocity`")]
fn presence_accessor_panics_with_names() {
    let mut w = World::new();
    w.step(|p| {
        let e = p.create().unwrap();
        let _ = p.component::<Velocity>(e);
    });
}

#[test]
fn tags_mark_entities() {
    let mut w = World::new();
    w.step(|p| {
        let e = p.spawn((Frozen, Position(1.0))).unwrap();
        assert!(p.has::<Frozen>(e));
        assert_eq!(p.remove::<Frozen>(e), Some(Frozen));
        assert!(!p.has::<Frozen>(e));
    });
}

#[test]
fn deferred_and_killed_entities_are_handled_at_refresh() {
    let mut w = World::new();
    let handles: Vec<Entity> = w.step(|p| (0..10).map(|i| p.spawn((Health(i % 3),)).unwrap()).collect());
    w.step(|p| p.run_all(&()));
    // Health 0 -> -1 and 1 -> 0 die; 2 -> 1 lives.
    let alive: Vec<bool> = handles.iter().map(|&h| w.is_alive(h)).collect();
    assert_eq!(alive, (0..10).map(|i| i % 3 == 2).collect::<Vec<_>>());
    assert_eq!(w.len(), 3);
}

ecs::declare_context! {
    /// Components only: a store of entities with nothing to match.
    pub context Store {
        settings { entities: fixed(8), threads: 1 }
        components { Position, Velocity: contiguous; Health: sparse_set; }
    }
}

#[test]
fn a_context_without_systems_keeps_entities_and_reuses_ids() {
    let mut s = Store::new();
    let batch: Vec<Entity> = s.step(|p| p.spawn_batch((0..4).map(|i| (Position(i as f32),))).unwrap().collect());
    let one = s.step(|p| p.spawn((Position(9.0), Health(3))).unwrap());
    s.step(|p| {
        assert_eq!(p.add(batch[1], Velocity(1.0)).unwrap(), None);
        assert_eq!(p.remove::<Health>(one), Some(Health(3)));
        assert!(p.kill(batch[2]));
    });
    s.step(|p| {
        assert_eq!(p.len(), 4);
        assert!(!p.is_alive(batch[2]) && p.get::<Position>(batch[2]).is_none());
        assert_eq!(p.get::<Velocity>(batch[1]), Some(&Velocity(1.0)));
        assert!(!p.has::<Health>(one) && p.has::<Position>(one));
        // The reclaimed slot is handed out again, holding nothing of before.
        let again = p.spawn((Health(1),)).unwrap();
        assert_eq!(again.slot(), batch[2].slot());
        assert!(!p.has::<Position>(again));
    });
    // Full at its limit: an error, and nothing lost.
    let err = s.step(|p| {
        p.spawn_batch((0..3).map(|_| (Velocity(0.0),))).unwrap();
        p.spawn((Velocity(0.0),)).unwrap_err()
    });
    assert_eq!(err.limit, 8);
    assert_eq!(s.len(), 8);
}
