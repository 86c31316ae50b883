//! The plain baseline: one struct per entity in a `Vec`, optional
//! components as `Option`s; Move scans every entity for a velocity.

use super::*;
use std::hint::black_box;

struct Entity {
    pos: Pos,
    vel: Option<Vel>,
    fillers: [Option<[f32; 4]>; 6],
}

pub struct Frag {
    entities: Vec<Entity>,
    churn: bool,
}

impl Frag {
    pub fn new(churn: bool) -> Self {
        let entities = (0..ENTITIES)
            .map(|i| {
                let s = spec(i);
                Entity {
                    pos: s.pos,
                    vel: s.vel,
                    fillers: core::array::from_fn(|k| (s.fillers & (1 << k) != 0).then(|| filler(i, k))),
                }
            })
            .collect();
        Frag { entities, churn }
    }

    fn iterate(&mut self) {
        if self.churn {
            for (i, e) in self.entities.iter_mut().enumerate().step_by(CHURN_STEP) {
                e.fillers[0] = if e.fillers[0].is_some() {
                    None
                } else {
                    Some(filler(i, 0))
                };
            }
        }
        for e in &mut self.entities {
            if let Some(v) = &e.vel {
                advance(&mut e.pos, v);
            }
        }
    }
}

impl Bench for Frag {
    fn run(&mut self) {
        self.iterate();
        black_box(&self.entities);
    }

    fn check(&mut self) -> Check {
        self.iterate();
        let with_f0 = self.entities.iter().filter(|e| e.fillers[0].is_some()).count();
        check(self.churn, self.entities.iter().map(|e| e.pos), with_f0)
    }
}
