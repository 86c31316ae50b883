//! The plain baseline: one `Vec` per component, three loops in the order
//! of the systems (seed 002's hand-written "Benchmark").

use super::*;
use crate::expect::{self, Check};
use std::hint::black_box;

pub struct Frame {
    positions: Vec<Pos2>,
    velocities: Vec<Vel2>,
    extents: Vec<Extent>,
}

impl Frame {
    pub fn new() -> Self {
        let (mut positions, mut velocities, mut extents) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..ENTITIES {
            let (p, v, e) = initial(i);
            positions.push(p);
            velocities.push(v);
            extents.push(e);
        }
        Frame {
            positions,
            velocities,
            extents,
        }
    }

    fn frame(&mut self) -> (u32, u64) {
        for (p, v) in self.positions.iter_mut().zip(&self.velocities) {
            advance(p, v);
        }
        let mut count = 0;
        for (p, e) in self.positions.iter().zip(&self.extents) {
            if hits(p, e) == 1 {
                count += 1;
            }
        }
        let mut checksum = 0u64;
        for p in &self.positions {
            checksum = checksum.wrapping_add(ink(p));
        }
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
