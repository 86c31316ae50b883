//! `fragmented` and `fragmented_churn` (issue 25, archetype chunks): 100 000
//! entities spread over 128 component sets, every one with a position, a
//! tenth of them (scattered through creation order) with a velocity, and
//! each with a pseudo-random subset of six 16-byte filler components. One
//! iteration of `fragmented` runs Move (position += velocity) over the
//! tenth; one of `fragmented_churn` first toggles filler `F0` on 1 000
//! entities (every hundredth: each changes set), then runs Move.
//!
//! What it measures: how a layout serves a system that matches a scattered
//! minority. Under ecs's `layout: ids` the movers keep their creation ids,
//! one in ten, so Move walks the position and velocity columns with gaps;
//! under `layout: archetypes` each set is a run of ids; bevy_ecs and hecs
//! keep a table per set. Churn shows what keeping sets together costs.
//!
//! Every implementation hands back, after one iteration from a fresh
//! set-up, every position and the number of entities holding `F0`, which
//! `expect::fragmented` checks against a plain computation.

mod baseline;
mod best;
mod bevy;
mod ecs;
mod hecs;
mod values;

use crate::components::components;
use crate::expect::Check;
use crate::harness::Bench;
use crate::workload::{Lib, Workload};
use values::spec_values;
pub use values::{filler, CHURN_STEP, ENTITIES};

components! {
    /// A 2D position, 8 bytes: every entity.
    Pos([f32; 2]);
    /// A 2D velocity, 8 bytes: a tenth of the entities.
    Vel([f32; 2]);
    /// A filler, 16 bytes.
    F0([f32; 4]);
    /// A filler, 16 bytes.
    F1([f32; 4]);
    /// A filler, 16 bytes.
    F2([f32; 4]);
    /// A filler, 16 bytes.
    F3([f32; 4]);
    /// A filler, 16 bytes.
    F4([f32; 4]);
    /// A filler, 16 bytes.
    F5([f32; 4]);
}

/// What entity `i` holds: its position, its velocity (one entity in ten,
/// scattered), and the fillers of the mask's six low bits.
pub struct Spec {
    pub pos: Pos,
    pub vel: Option<Vel>,
    pub fillers: u8,
}

/// Entity `i`'s initial values.
pub fn spec(i: usize) -> Spec {
    let (pos, vel, fillers) = spec_values(i);
    Spec {
        pos: Pos(pos),
        vel: vel.map(Vel),
        fillers,
    }
}

/// Move: one entity.
#[inline(always)]
pub fn advance(p: &mut Pos, v: &Vel) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
}

/// Whether an iteration toggles `F0` of entity `i`.
pub fn is_churned(i: usize) -> bool {
    i.is_multiple_of(CHURN_STEP)
}

/// The implementation `lib` of workload `w`; `None` for the peers not set
/// up for it.
pub fn make(w: Workload, lib: Lib) -> Option<Box<dyn Bench>> {
    let churn = w == Workload::FragmentedChurn;
    match lib {
        Lib::Baseline => Some(Box::new(baseline::Frag::new(churn))),
        Lib::Best => Some(Box::new(best::Frag::new(churn))),
        Lib::Ecs => Some(Box::new(ecs::archetypes::Frag::new(churn))),
        Lib::Bevy => Some(Box::new(bevy::Frag::new(churn))),
        Lib::Hecs => Some(Box::new(hecs::Frag::new(churn))),
        Lib::Legion | Lib::Specs | Lib::Shipyard | Lib::Gecs => None,
    }
}

/// ecs with today's layout, measured beside.
pub fn variants(w: Workload) -> Vec<(&'static str, Box<dyn Bench>)> {
    let churn = w == Workload::FragmentedChurn;
    vec![(
        "`layout: ids` (the default): the movers keep their creation ids, one in ten",
        Box::new(ecs::ids::Frag::new(churn)) as Box<dyn Bench>,
    )]
}

/// Checks what an implementation read back after one iteration.
pub fn check(churn: bool, positions: impl IntoIterator<Item = Pos>, with_f0: usize) -> Check {
    crate::expect::fragmented(churn, positions, with_f0)
}
