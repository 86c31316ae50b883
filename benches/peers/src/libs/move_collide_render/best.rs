//! The best-effort hand-written version: one `Vec` per component and the
//! three systems as three passes (the workload's Move, then Collision,
//! then Render), each the fastest of the loops tried (timed one by one in
//! `examples/mcr_passes.rs`, 2 000 passes each, minimum):
//! - Move goes in chunks of 64 entities as arrays (`chunked`): the plain
//!   `zip` it was took 1.8x as long at a quarter of the placements of its
//!   code (`examples/move_placement.rs`, stop 50); in stop 50's first run
//!   the best effort read 51.8 µs against the plain baseline's 46.6. (Staging 8 positions
//!   in a local array, as `simple_iter`'s best effort does, was slower
//!   for these 8-byte positions: 21.7 against 20.7 µs.)
//! - Collision sums the branch-free 0/1 of each entity; the compiler
//!   vectorises it (4 lanes, 8 entities a turn, `objdump`). Counting with an
//!   `if`, or in 8 lanes by hand, was no faster (37.2-44.9 µs).
//! - Render is [`render`]: the bits summed in 8 independent lanes. One
//!   running sum is one long chain of dependent 64-bit adds that the
//!   compiler does not vectorise (26.2 µs); 8 lanes are (10.5 µs).
//!
//! (Fusing the three passes into one would be another workload: the
//! systems are separate.)

use super::*;
use crate::expect::{self, Check};
use crate::libs::chunked::in_chunks;
use std::hint::black_box;

/// Entities moved per chunk (`chunked`).
const MOVE_CHUNK: usize = 64;

pub struct Frame {
    positions: Vec<Pos2>,
    velocities: Vec<Vel2>,
    extents: Vec<Extent>,
}

impl Frame {
    pub fn new() -> Self {
        Frame {
            positions: (0..ENTITIES).map(|i| initial(i).0).collect(),
            velocities: (0..ENTITIES).map(|i| initial(i).1).collect(),
            extents: (0..ENTITIES).map(|i| initial(i).2).collect(),
        }
    }

    fn frame(&mut self) -> (u32, u64) {
        in_chunks::<_, _, MOVE_CHUNK>(&mut self.positions, &self.velocities, advance);
        let count = self.positions.iter().zip(&self.extents).map(|(p, e)| hits(p, e)).sum();
        (count, render(&self.positions))
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
