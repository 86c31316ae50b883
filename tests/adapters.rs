//! Execution adapters: per-system closures capturing arguments, and the
//! detailed form (before, per subtask, after with every output) used by the
//! particle simulation's spatial partition.

use ecs::{Adapters, EntityId, Step};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vel(pub f32);

#[derive(Default)]
pub struct Move;
/// Cells of width 10 holding entity ids.
#[derive(Default)]
pub struct Grid {
    pub cells: Vec<Vec<EntityId>>,
    pub cleared: usize,
}
#[derive(Default)]
pub struct Neighbours {
    pub pairs: usize,
}

ecs::declare_context! {
    pub context Sim {
        settings { threads: 2 }
        components { Pos, Vel: contiguous; }
        systems {
            movement: Move { read: [Vel], write: [Pos], parallelism: split_every(16) }
            grid: Grid { read: [Pos], after: [movement], output: Vec<(EntityId, usize)>, parallelism: split_every(16) }
            neighbours: Neighbours { read: [Pos], after: [grid], output: usize, parallelism: split_every(16) }
        }
    }
}

fn step(p: &mut Step<'_, Sim>, dt: f32) {
    p.run_adapted(
        &Adapters::new()
            .system::<Move>(move |_, data| data.for_each::<(&mut Pos, &Vel)>(|(p, v)| p.0 += v.0 * dt))
            .detailed::<Grid>(
                |grid| {
                    grid.cells.iter_mut().for_each(Vec::clear);
                    grid.cleared += 1;
                },
                |_, data| {
                    data.for_entities::<(EntityId, &Pos)>(|view, (id, p)| {
                        let cell = (p.0 / 10.0).clamp(0.0, 9.0) as usize;
                        view.output().push((id, cell));
                    })
                },
                |grid, outputs| {
                    grid.cells.resize(10, Vec::new());
                    for (id, cell) in outputs.iter().flatten() {
                        grid.cells[*cell].push(*id);
                    }
                },
            )
            .detailed::<Neighbours>(
                |_| {},
                |_, data| {
                    let grid = data.system::<Grid>();
                    let mut pairs = 0;
                    for &id in data.entities() {
                        let cell = (data.get::<Pos>(id).unwrap().0 / 10.0).clamp(0.0, 9.0) as usize;
                        pairs += grid.cells[cell].iter().filter(|&&other| other > id).count();
                    }
                    *data.output() = pairs;
                },
                |n, outputs| n.pairs = outputs.iter().sum(),
            ),
    );
}

#[test]
fn closures_capture_arguments_and_detailed_adapters_gather_outputs() {
    let mut sim = Sim::new();
    sim.step(|p| {
        for i in 0..100 {
            p.spawn((Pos(i as f32), Vel(if i % 2 == 0 { 1.0 } else { -1.0 })))
                .unwrap();
        }
    });
    sim.step(|p| step(p, 0.5));
    let grid = sim.system::<Grid>();
    assert_eq!(grid.cleared, 1);
    assert_eq!(
        grid.cells.iter().map(Vec::len).sum::<usize>(),
        100,
        "every entity was entered once"
    );
    // Positions moved by ±0.5: entity i sits in cell (i ± 0.5) / 10.
    let expected_pairs: usize = grid.cells.iter().map(|c| c.len() * (c.len() - 1) / 2).sum();
    assert_eq!(sim.system::<Neighbours>().pairs, expected_pairs);
    assert_eq!(sim.outputs::<Grid>().len(), 7, "split_every(16) over 100 entities");
    sim.step(|p| step(p, 0.5));
    assert_eq!(sim.system::<Grid>().cleared, 2);
}

#[test]
fn systems_without_code_do_not_run() {
    let mut sim = Sim::new();
    let e = sim.step(|p| p.spawn((Pos(0.0), Vel(1.0))).unwrap());
    sim.step(|p| p.run_adapted(&Adapters::new().detailed::<Grid>(|g| g.cleared += 1, |_, _| {}, |_, _| {})));
    assert_eq!(sim.system::<Grid>().cleared, 1);
    sim.step(|p| assert_eq!(p.get::<Pos>(e), Some(&Pos(0.0)), "movement had no code: it did not run"));
}

#[test]
fn a_system_without_code_still_orders_the_systems_around_it() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::sync::Mutex;
    // `movement` writes Pos and `neighbours` reads it; the declaration orders
    // them through `grid`. Without code for `grid`, `neighbours` must still
    // start after `movement` has ended, or the two would race on Pos.
    let mut sim = Sim::new();
    sim.step(|p| {
        for i in 0..64 {
            p.spawn((Pos(i as f32), Vel(1.0))).unwrap();
        }
    });
    let tick = AtomicUsize::new(0);
    let movement_ends = Mutex::new(Vec::new());
    let neighbours_starts = Mutex::new(Vec::new());
    for _ in 0..50 {
        sim.step(|p| {
            p.run_adapted(
                &Adapters::new()
                    .system::<Move>(|_, data| {
                        // Long enough that a wrongly started `neighbours`
                        // would begin before this ends.
                        let until = std::time::Instant::now() + std::time::Duration::from_micros(300);
                        while std::time::Instant::now() < until {
                            std::hint::spin_loop();
                        }
                        data.for_each::<(&mut Pos, &Vel)>(|(p, v)| p.0 += v.0);
                        movement_ends.lock().unwrap().push(tick.fetch_add(1, SeqCst));
                    })
                    .system::<Neighbours>(|_, data| {
                        neighbours_starts.lock().unwrap().push(tick.fetch_add(1, SeqCst));
                        data.for_each::<&Pos>(|p| {
                            std::hint::black_box(p);
                        });
                    }),
            )
        });
        let last_end = movement_ends.lock().unwrap().drain(..).max().unwrap();
        let first_start = neighbours_starts.lock().unwrap().drain(..).min().unwrap();
        assert!(first_start > last_end, "neighbours started before movement ended");
    }
}
