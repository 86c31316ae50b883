//! The implementations: the plain baseline, the best-effort hand-written
//! version, ecs, and the peers, each a module
//! with a `make` function that sets a workload up.

mod baseline;
mod best;
mod bevy;
mod chunked;
mod ecs;
pub mod fragmented;
mod gecs;
mod hecs;
mod legion;
pub mod move_collide_render;
pub mod save_load;
mod shipyard;
mod specs;

use crate::harness::Bench;
use crate::workload::{Lib, Workload};

/// The implementation `lib` of workload `w`, set up; `None` when the crate
/// cannot express the workload.
pub fn make(w: Workload, lib: Lib) -> Option<Box<dyn Bench>> {
    // Seed 002's workload keeps every implementation in its own module.
    if w == Workload::MoveCollideRender {
        return move_collide_render::make(lib);
    }
    // Issue 25's fragmented workloads likewise.
    if matches!(w, Workload::Fragmented | Workload::FragmentedChurn) {
        return fragmented::make(w, lib);
    }
    // Issue 26's save and load likewise, with hecs as the only peer.
    if matches!(w, Workload::Save | Workload::Load) {
        return save_load::make(w, lib);
    }
    match lib {
        Lib::Baseline => Some(baseline::make(w)),
        Lib::Best => Some(best::make(w)),
        Lib::Ecs => Some(ecs::make(w)),
        Lib::Bevy => Some(bevy::make(w)),
        Lib::Hecs => Some(hecs::make(w)),
        Lib::Legion => Some(legion::make(w)),
        Lib::Specs => Some(specs::make(w)),
        Lib::Shipyard => Some(shipyard::make(w)),
        Lib::Gecs => gecs::make(w),
    }
}

/// Other ways to write ecs's implementation of `w`, each with what it
/// shows; measured beside the implementations in the same run.
pub fn ecs_variants(w: Workload) -> Vec<(&'static str, Box<dyn Bench>)> {
    if matches!(w, Workload::Save | Workload::Load) {
        return save_load::variants(w);
    }
    if matches!(w, Workload::Fragmented | Workload::FragmentedChurn) {
        return fragmented::variants(w);
    }
    if w == Workload::MoveCollideRender {
        return move_collide_render::variants();
    }
    ecs::variants(w)
}

/// How the report describes the use of `lib`.
pub fn notes(lib: Lib) -> &'static str {
    match lib {
        Lib::Baseline => baseline::NOTES,
        Lib::Best => best::NOTES,
        Lib::Ecs => ecs::NOTES,
        Lib::Bevy => bevy::NOTES,
        Lib::Hecs => hecs::NOTES,
        Lib::Legion => legion::NOTES,
        Lib::Specs => specs::NOTES,
        Lib::Shipyard => shipyard::NOTES,
        Lib::Gecs => gecs::NOTES,
    }
}
