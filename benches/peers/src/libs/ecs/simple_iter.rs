//! `simple_iter`: a prepared query writing `Position` and reading
//! `Velocity`, run from the step proxy; or (the variant) the same query in
//! a system, run by `run_all` on the caller's thread.

use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::N;
use ecs::{Data, Entity, PreparedQuery, System};

/// Moves every entity by its velocity.
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context Iter {
        settings { entities: fixed(10_000), threads: 1 }
        components { Transform, Position, Rotation, Velocity: contiguous; }
        systems { movement: Move { read: [Velocity], write: [Position] } }
    }
}

impl System<Iter> for Move {
    fn process(&self, data: &mut Data<'_, Iter, Self>, _: &()) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| advance(p, v));
    }
}

pub struct SimpleIter {
    world: Iter,
    entities: Vec<Entity>,
    /// `Some`: the table's ecs, a query made once and kept, run from the
    /// step proxy (what the peers run: a prepared query, no scheduler);
    /// `None`: the variant, the query in a system run by `run_all`.
    prepared: Option<PreparedQuery<Iter, (&'static mut Position, &'static Velocity)>>,
}

impl SimpleIter {
    /// With `prepared`, iterated with a [`PreparedQuery`]; otherwise by the
    /// system, run with `step(|p| p.run_all(&()))`.
    pub fn new(prepared: bool) -> Self {
        let mut world = Iter::new();
        let entities = world.step(|p| {
            (0..N)
                .map(|_| {
                    p.spawn((transform(), position(), rotation(), velocity()))
                        .expect("room")
                })
                .collect()
        });
        SimpleIter {
            world,
            entities,
            prepared: prepared.then(PreparedQuery::new),
        }
    }
}

impl Bench for SimpleIter {
    fn run(&mut self) {
        match &mut self.prepared {
            Some(q) => self.world.step(|p| q.for_each(p, |(p, v)| advance(p, v))),
            None => self.world.step(|p| p.run_all(&())),
        }
    }

    fn check(&mut self) -> Check {
        self.run();
        let es = &self.entities;
        let positions: Vec<Position> = self
            .world
            .step(|p| es.iter().filter_map(|&e| p.get::<Position>(e).copied()).collect());
        expect::simple_iter(positions)
    }
}
