//! The best-effort hand-written version: the movers' positions and
//! velocities in two dense `Vec`s of their own (what an archetype table
//! holds), moved 64 at a time, the other entities' positions apart, fillers
//! in a `Vec` per filler with a presence flag; the churn flips `F0`'s flags.

use super::*;
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
        // Chunks of `CHUNK` movers as arrays, each moved in a loop of
        // constant count: as fast as the plain `zip` loop at its best and
        // at every placement of the code, where the plain loop took 1.8x as
        // long at 16 of 64 (`examples/move_placement.rs`).
        let mut ps = self.mover_pos.chunks_exact_mut(CHUNK);
        let mut vs = self.mover_vel.chunks_exact(CHUNK);
        for (p, v) in (&mut ps).zip(&mut vs) {
            let (p, v): (&mut [Pos; CHUNK], &[Vel; CHUNK]) =
                (p.try_into().expect("a chunk"), v.try_into().expect("a chunk"));
            for k in 0..CHUNK {
                advance(&mut p[k], &v[k]);
            }
        }
        for (p, v) in ps.into_remainder().iter_mut().zip(vs.remainder()) {
            advance(p, v);
        }
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
