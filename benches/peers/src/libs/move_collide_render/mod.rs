//! `move_collide_render`, seed 002's benchmark (Milligan's data-oriented
//! ECS report): 65 535 entities, each with a position, a velocity and a
//! rectangle's size; one iteration runs Move (position += velocity), then
//! Collision (each entity's rectangle against one fixed rectangle,
//! counting intersections), then Render (every position folded into a
//! checksum instead of drawn). Every implementation hands back the count
//! and the checksum; `expect::move_collide_render` checks them against a
//! plain computation from the initial values.
//!
//! The peers compared are bevy_ecs and hecs (the "at least");
//! legion, specs, shipyard and gecs are not set up for it.

mod baseline;
mod best;
mod bevy;
mod ecs;
mod hecs;

use crate::components::components;
use crate::harness::Bench;
use crate::workload::Lib;

/// Entities: seed 002's `UINT16_MAX`.
pub const ENTITIES: usize = 65_535;

components! {
    /// A 2D position, 8 bytes.
    Pos2([f32; 2]);
    /// A 2D velocity, 8 bytes.
    Vel2([f32; 2]);
    /// The width and height of the entity's rectangle, whose corner is its
    /// position: 8 bytes.
    Extent([f32; 2]);
}

/// The fixed rectangle Collision tests against: `[min_x, min_y, max_x, max_y)`.
pub const WALL: [f32; 4] = [200.0, 100.0, 500.0, 400.0];

/// Entity `i`'s initial values: a 256-wide grid 3 units apart, velocities
/// from -1.5 to 1.5, sizes 2 to 5.
pub fn initial(i: usize) -> (Pos2, Vel2, Extent) {
    let i = i as u32;
    (
        Pos2([(i % 256) as f32 * 3.0, (i / 256) as f32 * 3.0]),
        Vel2([((i % 7) as f32 - 3.0) * 0.5, ((i % 5) as f32 - 2.0) * 0.5]),
        Extent([2.0 + (i % 3) as f32, 2.0 + (i % 4) as f32]),
    )
}

/// Move: one entity.
#[inline(always)]
pub fn advance(p: &mut Pos2, v: &Vel2) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
}

/// Collision: 1 when the entity's rectangle meets [`WALL`], else 0. The
/// four comparisons are combined with `&`, not `&&`: no branch.
#[inline(always)]
pub fn hits(p: &Pos2, e: &Extent) -> u32 {
    let [x, y] = p.0;
    u32::from((x < WALL[2]) & (x + e.0[0] > WALL[0]) & (y < WALL[3]) & (y + e.0[1] > WALL[1]))
}

/// Render: one position's contribution to the checksum, a wrapping sum (so
/// the order the entities are visited in does not matter) of each
/// position's bits, x in the high half.
#[inline(always)]
pub fn ink(p: &Pos2) -> u64 {
    (u64::from(p.0[0].to_bits()) << 32) | u64::from(p.0[1].to_bits())
}

/// Render's independent running sums in [`render`].
const RENDER_LANES: usize = 8;

/// Render over a slice of positions, as the best-effort version and ecs's
/// column step run it: the wrapping sum of their bits, in
/// [`RENDER_LANES`] independent sums folded at the end (the sum wraps, so the
/// order does not change it).
pub fn render(positions: &[Pos2]) -> u64 {
    let mut lanes = [0u64; RENDER_LANES];
    let mut chunks = positions.chunks_exact(RENDER_LANES);
    for chunk in &mut chunks {
        for (lane, p) in lanes.iter_mut().zip(chunk) {
            *lane = lane.wrapping_add(ink(p));
        }
    }
    let rest = chunks.remainder().iter().fold(0u64, |s, p| s.wrapping_add(ink(p)));
    lanes.iter().fold(rest, |s, &lane| s.wrapping_add(lane))
}

/// Other ways to write ecs's implementation, measured beside it.
pub fn variants() -> Vec<(&'static str, Box<dyn Bench>)> {
    vec![(
        "Render as an entity system, `for_each` folding one running sum (the plain baseline's loop) instead of a column step",
        Box::new(ecs::FrameEach::new()),
    )]
}

/// The implementation `lib` of the workload, set up; `None` for the peers
/// not set up for it.
pub fn make(lib: Lib) -> Option<Box<dyn Bench>> {
    match lib {
        Lib::Baseline => Some(Box::new(baseline::Frame::new())),
        Lib::Best => Some(Box::new(best::Frame::new())),
        Lib::Ecs => Some(Box::new(ecs::Frame::new())),
        Lib::Bevy => Some(Box::new(bevy::Frame::new())),
        Lib::Hecs => Some(Box::new(hecs::Frame::new())),
        Lib::Legion | Lib::Specs | Lib::Shipyard | Lib::Gecs => None,
    }
}
