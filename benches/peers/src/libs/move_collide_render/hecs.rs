//! hecs: one `PreparedQuery` per system, kept, iterated with `query_mut`
//! in the order of the systems.

use super::*;
use crate::expect::{self, Check};
use ::hecs::{PreparedQuery, World};
use std::hint::black_box;

pub struct Frame {
    world: World,
    movement: PreparedQuery<(&'static mut Pos2, &'static Vel2)>,
    collision: PreparedQuery<(&'static Pos2, &'static Extent)>,
    render: PreparedQuery<&'static Pos2>,
}

impl Frame {
    pub fn new() -> Self {
        let mut world = World::new();
        world.spawn_batch((0..ENTITIES).map(initial));
        Frame {
            world,
            movement: PreparedQuery::new(),
            collision: PreparedQuery::new(),
            render: PreparedQuery::new(),
        }
    }

    fn frame(&mut self) -> (u32, u64) {
        for (p, v) in self.movement.query_mut(&mut self.world) {
            advance(p, v);
        }
        let count = self.collision.query_mut(&mut self.world).map(|(p, e)| hits(p, e)).sum();
        let checksum = self
            .render
            .query_mut(&mut self.world)
            .fold(0u64, |s, p| s.wrapping_add(ink(p)));
        (count, checksum)
    }
}

impl Bench for Frame {
    fn run(&mut self) {
        black_box(self.frame());
    }

    fn check(&mut self) -> Check {
        let (count, checksum) = self.frame();
        expect::move_collide_render(count, checksum)
    }
}
