//! `ecs`, used as its README teaches: one `declare_context!` per workload,
//! systems with declared access run by `step` and `run_all`, entities made
//! and changed through the step proxy.

mod add_remove;
mod frag_iter;
mod heavy_compute;
mod schedule;
mod simple_insert;
mod simple_iter;

use crate::harness::Bench;
use crate::workload::Workload;

pub fn make(w: Workload) -> Box<dyn Bench> {
    match w {
        Workload::SimpleInsert => Box::new(simple_insert::SimpleInsert),
        Workload::SimpleIter => Box::new(simple_iter::SimpleIter::new(true)),
        Workload::FragIter => Box::new(frag_iter::FragIter::new(true)),
        Workload::HeavyCompute => Box::new(heavy_compute::HeavyCompute::new()),
        Workload::AddRemove => Box::new(add_remove::AddRemove::new(add_remove::Mode::BULK)),
        Workload::Schedule => Box::new(schedule::split::Schedule::new()),
        Workload::MoveCollideRender
        | Workload::Save
        | Workload::Load
        | Workload::Fragmented
        | Workload::FragmentedChurn => {
            unreachable!("set up by libs::move_collide_render, libs::save_load and libs::fragmented")
        }
    }
}

/// Other ways to write ecs's implementation of `w`, measured beside it in
/// the same run: what the table's figure leaves out or gains from.
pub fn variants(w: Workload) -> Vec<(&'static str, Box<dyn Bench>)> {
    use add_remove::{AddRemove, Mode};
    match w {
        Workload::AddRemove => vec![
            (
                "`add` / `remove` per handle, `run_all` in each step (the change visible to the system)",
                Box::new(AddRemove::new(Mode { each: true, run: true })) as Box<dyn Bench>,
            ),
            (
                "`add_to_all` / `remove_from_all` with no system run (the change not yet matched: not comparable)",
                Box::new(AddRemove::new(Mode {
                    each: false,
                    run: false,
                })),
            ),
        ],
        Workload::HeavyCompute => vec![(
            "`split_every(10)` instead of 50: shorter subtasks, a shorter tail when one core finishes first",
            Box::new(heavy_compute::every_10::HeavyCompute::new()) as Box<dyn Bench>,
        )],
        Workload::Schedule => vec![(
            "`ab` unsplit (`parallelism: none`): on one thread, beside `cd` then `ce` on the other",
            Box::new(schedule::whole::Schedule::new()) as Box<dyn Bench>,
        )],
        Workload::SimpleIter => vec![(
            "the query in a system (`read: [Velocity], write: [Position]`), run by `step(|p| p.run_all(&()))`",
            Box::new(simple_iter::SimpleIter::new(false)) as Box<dyn Bench>,
        )],
        Workload::FragIter => vec![(
            "the query in a system (`write: [Data]`), run by `step(|p| p.run_all(&()))`",
            Box::new(frag_iter::FragIter::new(false)) as Box<dyn Bench>,
        )],
        _ => Vec::new(),
    }
}

pub const NOTES: &str = "one `declare_context!` per workload, every component `contiguous`, \
`entities: fixed(N)` (storage for exactly the entities, allocated once). simple_insert: a context with no \
systems, `threads: 1`, created and filled by one `spawn_batch` of 10 000 four-component bundles inside one \
`step`, then dropped, all timed. simple_iter / frag_iter: a `PreparedQuery` (`(&mut Position, &Velocity)` / \
`&mut Data`) made once and kept, iterated with `for_each` from the step proxy in one `step` per iteration, on \
`threads: 1`: the peers' code is a prepared query run once per iteration with no scheduler (bevy's `QueryState`, \
hecs's `PreparedQuery`), and this is what an ecs user writes for that; the same query in a system \
(`read: [Velocity], write: [Position]` / `write: [Data]`) run by `step(|p| p.run_all(&()))` is measured beside it \
as a variant. Both queries write one component and ask for no id; the entities are one run of ids, which simple_iter's query (reading \
`Velocity`) walks in blocks of 8 whose written values sit on the stack, and frag_iter's (reading nothing) walks \
in place, its column like a slice. heavy_compute: \
one system `write: [Matrix4, Position]`, `parallelism: split_every(50)` (20 subtasks; `split_evenly_per_core` \
measured the same here, 1.27 ms against 1.26 ms, and 4-7% slower on an earlier AMD machine), `threads: auto`. add_remove: one `step` with `add_to_all::<(A,), _>(|_| B(0.0))` then \
`run_all(&())`, a second with `remove_from_all::<B>()` then `run_all(&())`, the README's way to change many \
entities; `run_all` matches the changed entities to the system `read: [A, B]`, which then reads `A` and `B` of \
each entity it processes (10 000, then none); the variants below give `add`/`remove` per handle, and the bulk \
calls with no system run. schedule: systems `ab` (`write: [A, B]`, 40 000 \
entities, `parallelism: split_every(10_000)`), `cd` (`write: [C, D]`), `ce` (`write: [C, E], after: [cd]`), \
`run_all` on `threads: auto`: the caller of `step` takes `ab`'s subtasks from the last while a helper runs \
`cd`, `ce`, then `ab`'s subtasks from the first, which gives each thread the same columns every step (`ab` \
unsplit is measured beside it as a variant; subtasks of 5 000 and 20 000 entities measured slower, 1.13-1.25x \
and 1.25-1.35x of the best effort against 1.12-1.20x). Set-ups (not timed) spawn with `spawn` or `spawn_batch`.";
