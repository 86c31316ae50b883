//! The best-effort hand-written version: the movers' positions and
//! velocities in two dense `Vec`s of their own (what an archetype table
//! holds), moved 64 at a time, the other entities' positions apart, fillers
//! in a `Vec` per filler with a presence flag; the churn flips `F0`'s flags.

use super::*;
use crate::libs::chunked::in_chunks;
use std::hint::black_box;

/// Movers moved per chunk.
const CHUNK: usize = 64;

pub struct Frag {
    mover_pos: Vec<Pos>,
    mover_vel: Vec<Vel>,
    still_pos: Vec<Pos>,
    f0: Vec<Option<[f32; 4]>>,
    churn: bool,
}

impl Frag {
    pub fn new(churn: bool) -> Self {
        let (mut mover_pos, mut mover_vel, mut still_pos) = (Vec::new(), Vec::new(), Vec::new());
        let mut f0 = Vec::with_capacity(ENTITIES);
        for i in 0..ENTITIES {
            let s = spec(i);
            match s.vel {
                Some(v) => {
                    mover_pos.push(s.pos);
                    mover_vel.push(v);
                }
                None => still_pos.push(s.pos),
            }
            f0.push((s.fillers & 1 != 0).then(|| filler(i, 0)));
        }
        Frag {
            mover_pos,
            mover_vel,
            still_pos,
            f0,
            churn,
        }
    }

    fn iterate(&mut self) {
        if self.churn {
            for (i, f) in self.f0.iter_mut().enumerate().step_by(CHURN_STEP) {
                *f = if f.is_some() { None } else { Some(filler(i, 0)) };
            }
        }
        // In chunks: see `chunked`.
        in_chunks::<_, _, CHUNK>(&mut self.mover_pos, &self.mover_vel, advance);
    }
}

impl Bench for Frag {
    fn run(&mut self) {
        self.iterate();
        black_box(&self.mover_pos);
    }

    fn check(&mut self) -> Check {
        self.iterate();
        let with_f0 = self.f0.iter().filter(|f| f.is_some()).count();
        check(
            self.churn,
            self.mover_pos.iter().chain(&self.still_pos).copied(),
            with_f0,
        )
    }
}
