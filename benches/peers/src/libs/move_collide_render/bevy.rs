//! bevy_ecs: one `QueryState` per system, made once and kept, iterated in
//! the order of the systems.

use super::*;
use crate::expect::{self, Check};
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryState;
use std::hint::black_box;

pub struct Frame {
    world: World,
    movement: QueryState<(&'static mut Pos2, &'static Vel2)>,
    collision: QueryState<(&'static Pos2, &'static Extent)>,
    render: QueryState<&'static Pos2>,
}

impl Frame {
    pub fn new() -> Self {
        let mut world = World::new();
        world.spawn_batch((0..ENTITIES).map(initial));
        Frame {
            movement: world.query(),
            collision: world.query(),
            render: world.query(),
            world,
        }
    }

    fn frame(&mut self) -> (u32, u64) {
        self.movement
            .iter_mut(&mut self.world)
            .for_each(|(mut p, v)| advance(&mut p, v));
        let count = self.collision.iter(&self.world).map(|(p, e)| hits(p, e)).sum();
        let checksum = self.render.iter(&self.world).fold(0u64, |s, p| s.wrapping_add(ink(p)));
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
