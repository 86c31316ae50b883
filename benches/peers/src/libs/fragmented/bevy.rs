//! bevy_ecs: entities spawned with their whole set (table storage, a table
//! per set), one `QueryState<(&mut Pos, &Vel)>`, kept; the churn toggles
//! `F0` with `EntityWorldMut::take` / `insert` (each a table move).

use super::*;
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryState;
use std::hint::black_box;

pub struct Frag {
    world: World,
    movement: QueryState<(&'static mut Pos, &'static Vel)>,
    churned: Vec<(usize, Entity)>,
    churn: bool,
}

impl Frag {
    pub fn new(churn: bool) -> Self {
        let mut world = World::new();
        let mut churned = Vec::new();
        for i in 0..ENTITIES {
            let s = spec(i);
            let mut e = world.spawn(s.pos);
            if let Some(v) = s.vel {
                e.insert(v);
            }
            let m = s.fillers;
            if m & 1 != 0 {
                e.insert(F0(filler(i, 0)));
            }
            if m & 2 != 0 {
                e.insert(F1(filler(i, 1)));
            }
            if m & 4 != 0 {
                e.insert(F2(filler(i, 2)));
            }
            if m & 8 != 0 {
                e.insert(F3(filler(i, 3)));
            }
            if m & 16 != 0 {
                e.insert(F4(filler(i, 4)));
            }
            if m & 32 != 0 {
                e.insert(F5(filler(i, 5)));
            }
            if is_churned(i) {
                churned.push((i, e.id()));
            }
        }
        Frag {
            movement: world.query(),
            world,
            churned,
            churn,
        }
    }

    fn iterate(&mut self) {
        if self.churn {
            for &(i, e) in &self.churned {
                let mut e = self.world.entity_mut(e);
                if e.take::<F0>().is_none() {
                    e.insert(F0(filler(i, 0)));
                }
            }
        }
        self.movement
            .iter_mut(&mut self.world)
            .for_each(|(mut p, v)| advance(&mut p, v));
    }
}

impl Bench for Frag {
    fn run(&mut self) {
        self.iterate();
        black_box(&self.world);
    }

    fn check(&mut self) -> Check {
        self.iterate();
        let positions: Vec<Pos> = self.world.query::<&Pos>().iter(&self.world).copied().collect();
        let with_f0 = self.world.query::<&F0>().iter(&self.world).count();
        check(self.churn, positions, with_f0)
    }
}
