//! The best-effort hand-written version: one `Vec` per component and the
//! three systems as three passes (the workload's Move, then Collision,
//! then Render), each written so that the compiler vectorises it: Move
//! stages 8 positions in a local array (as `simple_iter`'s best effort),
//! Collision sums the branch-free 0/1 of each entity, Render sums the bits.
//! (Fusing the three passes into one would be another workload: the
//! systems are separate.)

use super::*;
use crate::expect::{self, Check};
use std::hint::black_box;

pub struct Frame {
    positions: Vec<Pos2>,
    velocities: Vec<Vel2>,
    extents: Vec<Extent>,
}

/// Entities moved together.
const LANES: usize = 8;

impl Frame {
    pub fn new() -> Self {
        Frame {
            positions: (0..ENTITIES).map(|i| initial(i).0).collect(),
            velocities: (0..ENTITIES).map(|i| initial(i).1).collect(),
            extents: (0..ENTITIES).map(|i| initial(i).2).collect(),
        }
    }

    fn frame(&mut self) -> (u32, u64) {
        let mut ps = self.positions.chunks_exact_mut(LANES);
        let mut vs = self.velocities.chunks_exact(LANES);
        for (p, v) in (&mut ps).zip(&mut vs) {
            let mut staged: [Pos2; LANES] = core::array::from_fn(|i| p[i]);
            for (p, v) in staged.iter_mut().zip(v) {
                advance(p, v);
            }
            p.copy_from_slice(&staged);
        }
        for (p, v) in ps.into_remainder().iter_mut().zip(vs.remainder()) {
            advance(p, v);
        }
        let count = self.positions.iter().zip(&self.extents).map(|(p, e)| hits(p, e)).sum();
        let checksum = self.positions.iter().fold(0u64, |s, p| s.wrapping_add(ink(p)));
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
