//! hecs: entities spawned with their whole set (an archetype each), one
//! `PreparedQuery<(&mut Pos, &Vel)>`, kept; the churn toggles `F0` with
//! `remove_one` / `insert_one` (each an archetype move).

use super::*;
use ::hecs::{Entity, EntityBuilder, PreparedQuery, World};
use std::hint::black_box;

pub struct Frag {
    world: World,
    movement: PreparedQuery<(&'static mut Pos, &'static Vel)>,
    churned: Vec<(usize, Entity)>,
    churn: bool,
}

impl Frag {
    pub fn new(churn: bool) -> Self {
        let mut world = World::new();
        let mut churned = Vec::new();
        let mut b = EntityBuilder::new();
        for i in 0..ENTITIES {
            let s = spec(i);
            b.add(s.pos);
            if let Some(v) = s.vel {
                b.add(v);
            }
            let m = s.fillers;
            if m & 1 != 0 {
                b.add(F0(filler(i, 0)));
            }
            if m & 2 != 0 {
                b.add(F1(filler(i, 1)));
            }
            if m & 4 != 0 {
                b.add(F2(filler(i, 2)));
            }
            if m & 8 != 0 {
                b.add(F3(filler(i, 3)));
            }
            if m & 16 != 0 {
                b.add(F4(filler(i, 4)));
            }
            if m & 32 != 0 {
                b.add(F5(filler(i, 5)));
            }
            let e = world.spawn(b.build());
            if is_churned(i) {
                churned.push((i, e));
            }
        }
        Frag {
            world,
            movement: PreparedQuery::new(),
            churned,
            churn,
        }
    }

    fn iterate(&mut self) {
        if self.churn {
            for &(i, e) in &self.churned {
                if self.world.remove_one::<F0>(e).is_err() {
                    self.world.insert_one(e, F0(filler(i, 0))).expect("alive");
                }
            }
        }
        for (p, v) in self.movement.query_mut(&mut self.world) {
            advance(p, v);
        }
    }
}

impl Bench for Frag {
    fn run(&mut self) {
        self.iterate();
        black_box(&self.world);
    }

    fn check(&mut self) -> Check {
        self.iterate();
        let positions: Vec<Pos> = self.world.query_mut::<&Pos>().into_iter().copied().collect();
        let with_f0 = self.world.query_mut::<&F0>().into_iter().count();
        check(self.churn, positions, with_f0)
    }
}
