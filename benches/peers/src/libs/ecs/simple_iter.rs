//! `simple_iter`: one system reading `Velocity` and writing `Position`,
//! run by `run_all` on the caller's thread.

use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::N;
use ecs::{Data, Entity, System};

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
}

impl SimpleIter {
    pub fn new() -> Self {
        let mut world = Iter::new();
        let entities = world.step(|p| {
            (0..N)
                .map(|_| {
                    p.spawn((transform(), position(), rotation(), velocity()))
                        .expect("room")
                })
                .collect()
        });
        SimpleIter { world, entities }
    }
}

impl Bench for SimpleIter {
    fn run(&mut self) {
        self.world.step(|p| p.run_all(&()));
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
