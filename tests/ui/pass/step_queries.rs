//! Queries on the step proxy, from a crate outside the workspace: every
//! form, after systems ran, beside a kill.
use ecs::{Data, Entity, EntityId, System};

#[derive(Debug, PartialEq)]
pub struct Position(pub f32);
pub struct Velocity(pub f32);
pub struct Frozen;

#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { Position, Velocity: contiguous; Frozen: tag; }
        systems { movement: Move { read: [Velocity], write: [Position] } }
    }
}

impl System<World> for Move {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
    }
}

fn main() {
    let mut w = World::new();
    let (a, b) = w.step(|p| {
        let a = p.spawn((Position(0.0), Velocity(1.0))).unwrap();
        let b = p.spawn((Position(0.0), Velocity(2.0), Frozen)).unwrap();
        (a, b)
    });
    w.step(|p| {
        p.run_all(&());
        // Read-only: beside other shared calls.
        for (e, (x, v)) in p.query::<(&Position, &Velocity)>() {
            assert_eq!(p.get::<Position>(e), Some(x));
            assert!(x.0 == v.0);
        }
        // Any query, every live entity holding the components.
        let mut frozen: Vec<EntityId> = Vec::new();
        p.for_each::<(EntityId, &mut Position, &Frozen)>(|(id, x, _)| {
            x.0 = 0.0;
            frozen.push(id);
        });
        assert_eq!(frozen.len(), 1);
        let handles: Vec<Entity> = p.query_mut::<(&mut Velocity,)>().map(|(e, (v,))| {
            v.0 *= 2.0;
            e
        }).collect();
        assert_eq!(handles, [a, b]);
        assert_eq!(p.query_one::<&Position>(b), Some(&Position(0.0)));
        p.kill(b);
        assert!(p.query_one_mut::<&mut Position>(b).is_none());
        assert_eq!(p.query::<EntityId>().count(), 1);
    });
}
