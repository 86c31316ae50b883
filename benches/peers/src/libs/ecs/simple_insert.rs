//! `simple_insert`: a context of four components and no systems, created,
//! filled by `spawn_n` (every entity holds the same four values) in one
//! step, and dropped, all inside the timed part.

use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::N;
use ecs::EntityId;
use std::hint::black_box;

ecs::declare_context! {
    /// Room for exactly the entities inserted, allocated once.
    pub context Insert {
        settings { entities: fixed(10_000), threads: 1 }
        components { Transform, Position, Rotation, Velocity: contiguous; }
    }
}

pub struct SimpleInsert;

fn fill() -> Insert {
    let mut world = Insert::new();
    world.step(|p| {
        p.spawn_n(N, (transform(), position(), rotation(), velocity()))
            .expect("the context has room for N entities");
    });
    world
}

impl Bench for SimpleInsert {
    fn run(&mut self) {
        drop(black_box(fill()));
    }

    fn check(&mut self) -> Check {
        let mut world = fill();
        // Every id the context handed out, with its four components.
        let complete = world.step(|p| {
            (0..N as u32)
                .filter_map(|i| p.handle(EntityId::from_bits(i)))
                .filter(|&e| {
                    p.has::<Transform>(e) && p.has::<Position>(e) && p.has::<Rotation>(e) && p.has::<Velocity>(e)
                })
                .count()
        });
        expect::simple_insert(complete)?;
        expect::count("live entities", world.len(), N)
    }
}
