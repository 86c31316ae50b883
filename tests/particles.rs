//! The particle simulation example (`examples/particles`): the same seed gives
//! the same state, and the library's contexts compute the same simulation as
//! the hand-written version, whatever the settings.

#[path = "../examples/particles/sim.rs"]
#[expect(dead_code, reason = "the example's module serves more than these tests use")]
mod sim;

#[path = "../examples/particles/handwritten.rs"]
mod handwritten;

#[path = "../examples/particles/run.rs"]
#[expect(dead_code, reason = "these tests use the benchmark's statistics only")]
mod run;

use handwritten::Handwritten;
use sim::*;

particle_context! {
    /// One thread: systems run in topological order on the caller's thread.
    pub context Serial { entities: fixed(10_000), inner_parallelism: allow, threads: 1 }
}

particle_context! {
    /// Growing storage, no inner parallelism, one thread.
    pub context SerialDynamic { entities: dynamic(1_000), inner_parallelism: deny, threads: 1 }
}

particle_context! {
    /// Two threads, systems split in two.
    pub context Parallel { entities: fixed(10_000), inner_parallelism: allow, threads: 2 }
}

/// Runs a wave of `count` particles for `steps` steps (or until none is left),
/// returning the number alive after each step.
fn run(sim: &mut dyn Simulation, count: usize, seed: u64, steps: usize) -> Vec<usize> {
    sim.spawn(&wave(count, seed)).expect("room for the wave");
    let mut alive = Vec::new();
    while sim.alive() > 0 && alive.len() < steps {
        sim.step();
        alive.push(sim.alive());
    }
    alive
}

/// The state after `steps` steps of a wave.
fn state_after(sim: &mut dyn Simulation, count: usize, seed: u64, steps: usize) -> Vec<Particle> {
    run(sim, count, seed, steps);
    sim.particles()
}

/// Asserts two states are the same, naming the first particle that differs.
fn assert_same(a: &[Particle], b: &[Particle], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: particle counts differ");
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!("{what}: particle {i} differs:\n{:?}\n{:?}", a[i], b[i]);
    }
}

#[test]
fn same_seed_gives_the_same_state_run_after_run() {
    // 200 steps: past the first deaths (life >= 5 lasts 125 steps).
    let (count, steps) = (2_000, 200);
    let ecs = || state_after(&mut Ecs::<Serial>::default(), count, 7, steps);
    let hand = || state_after(&mut Handwritten::new(1, true), count, 7, steps);
    let first = ecs();
    assert!(
        first.len() < count && !first.is_empty(),
        "some particles died, some live"
    );
    assert_same(&first, &ecs(), "ecs, two runs");
    assert_same(&hand(), &hand(), "hand-written, two runs");
    let other_seed = state_after(&mut Ecs::<Serial>::default(), count, 8, steps);
    assert_ne!(first, other_seed, "another seed gives another state");
}

#[test]
fn ecs_and_handwritten_positions_match_after_100_steps() {
    let (count, steps) = (5_000, 100);
    let mut ecs = Ecs::<Serial>::default();
    let mut hand = Handwritten::new(1, false);
    let a = state_after(&mut ecs, count, 0, steps);
    let b = state_after(&mut hand, count, 0, steps);
    assert_eq!(a.len(), count, "nobody dies in the first 100 steps");
    let initial = wave(count, 0);
    assert!(
        a.iter().zip(&initial).all(|(a, q)| a.position != q.position),
        "every particle moved"
    );
    assert!(ecs.contacts() > 0, "particles collide");
    assert_eq!(ecs.contacts(), hand.contacts());
    for (i, (a, b)) in a.iter().zip(&b).enumerate() {
        assert_eq!(a.position, b.position, "position of particle {i}");
    }
    assert_same(&a, &b, "ecs against hand-written");
}

#[test]
fn ecs_and_handwritten_compute_the_same_whole_wave() {
    // The library packs entity ids as particles die, moving the last into
    // each hole from the back, which is what the hand-written version's
    // `swap_remove` does: ids, iteration order, contacts and so every
    // particle stay the same to the last step, deaths included.
    let count = 1_500;
    let mut ecs = Ecs::<Serial>::default();
    let mut hand = Handwritten::new(1, false);
    for sim in [&mut ecs as &mut dyn Simulation, &mut hand] {
        sim.spawn(&wave(count, 4)).expect("room for the wave");
    }
    let mut step = 0;
    while ecs.alive() > 0 {
        ecs.step();
        hand.step();
        assert_eq!(ecs.contacts(), hand.contacts(), "contacts of step {step}");
        assert_same(&ecs.particles(), &hand.particles(), &format!("step {step}"));
        step += 1;
    }
    assert_eq!(hand.alive(), 0);
    assert!(step > 125, "the wave ran past the first deaths");
}

#[test]
fn alive_counts_match_after_every_step_of_a_wave() {
    let count = 5_000;
    let ecs = run(&mut Ecs::<Serial>::default(), count, 0, usize::MAX);
    let hand = run(&mut Handwritten::new(1, false), count, 0, usize::MAX);
    assert_eq!(ecs, hand);
    assert_eq!(ecs.last(), Some(&0), "the wave ends with no particle left");
    assert!(ecs.len() <= MAX_STEPS, "life < 25 lasts at most 625 steps");
    assert_eq!(ecs[124], count, "life >= 5 lasts 125 steps");
    assert!(ecs[300] < count && ecs[300] > 0);
}

#[test]
fn settings_and_threads_do_not_change_the_result() {
    // Subtasks' outputs are read in subtask order, so splitting systems
    // across threads computes the same contacts in the same order.
    let (count, steps) = (2_000, 150);
    let mut reference = Ecs::<Serial>::default();
    let mut parallel = Ecs::<Parallel>::default();
    let mut dynamic = Ecs::<SerialDynamic>::default();
    let sims: [&mut dyn Simulation; 3] = [&mut reference, &mut parallel, &mut dynamic];
    for sim in sims {
        sim.spawn(&wave(count, 3)).expect("room for the wave");
    }
    // Compared after every step, so a difference names the step it appeared in.
    for step in 0..steps {
        let mut states = [&mut reference as &mut dyn Simulation, &mut parallel, &mut dynamic].map(|sim| {
            sim.step();
            sim.particles()
        });
        let [first, rest @ ..] = &mut states;
        for (state, what) in rest.iter().zip([
            "two threads, inner parallelism",
            "dynamic storage, no inner parallelism",
        ]) {
            assert_same(first, state, &format!("{what}, step {step}"));
        }
    }
    // The hand-written version on two threads computes the same too, deaths
    // included (ids are packed the way it packs its arrays).
    let hand = state_after(&mut Handwritten::new(2, true), count, 3, steps);
    assert_same(&reference.particles(), &hand, "hand-written on two threads");
}

#[test]
fn collision_runs_in_blocks_and_keeps_the_contact_order() {
    // Two blocks (8 192 and 1 808 particles), run by two threads in either
    // order: their contacts, read back in block order, are those of one
    // thread, and so are the particles after each step.
    let count = 10_000;
    let (mut serial, mut parallel) = (Ecs::<Serial>::default(), Ecs::<Parallel>::default());
    for sim in [&mut serial as &mut dyn Simulation, &mut parallel] {
        sim.spawn(&wave(count, 5)).expect("room for the wave");
    }
    for step in 0..3 {
        serial.step();
        parallel.step();
        let blocks = parallel.ctx.outputs::<Collision>();
        assert_eq!(
            blocks.len(),
            count.div_ceil(COLLISION_BLOCK),
            "the declaration splits by COLLISION_BLOCK"
        );
        assert!(
            blocks.iter().all(|b| !b.is_empty()),
            "step {step}: every block finds contacts"
        );
        let contacts: Vec<_> = blocks.iter().flatten().copied().collect();
        assert_eq!(contacts, serial.ctx.outputs::<Collision>().concat(), "step {step}");
        assert_same(&serial.particles(), &parallel.particles(), &format!("step {step}"));
    }
}

#[test]
fn later_waves_reuse_the_context() {
    let mut ecs = Ecs::<Serial>::default();
    let mut hand = Handwritten::new(1, true);
    for (count, seed) in [(300, 1), (600, 2)] {
        assert_eq!(
            run(&mut ecs, count, seed, usize::MAX),
            run(&mut hand, count, seed, usize::MAX)
        );
        assert_eq!((ecs.alive(), hand.alive()), (0, 0));
    }
}

#[test]
fn a_particle_is_entered_in_the_cells_around_it() {
    // x from trunc(97/8) = 12 to trunc(103/8) + 1 = 13, y from trunc(57/8) =
    // 7 to trunc(63/8) + 1 = 8, plus the 2 padding cells.
    let mut cells = Vec::new();
    cells_of(&Position { x: 100.0, y: 60.0 }, &Circle { radius: 3.0 }, |c| {
        cells.push(c as usize)
    });
    let expected: Vec<usize> = (14..=15)
        .flat_map(|x| (9..=10).map(move |y| y * GRID_WIDTH + x))
        .collect();
    assert_eq!(cells, expected);
    assert_eq!((GRID_WIDTH, GRID_HEIGHT), (184, 116));
    // Against the far walls, the last cell is still inside the grid.
    let mut last = 0;
    cells_of(
        &Position {
            x: WIDTH - 0.5,
            y: HEIGHT - 0.5,
        },
        &Circle { radius: 0.5 },
        |c| last = c as usize,
    );
    assert!(last < GRID_WIDTH * GRID_HEIGHT);
}

#[test]
fn the_grid_lists_each_cells_particles_in_the_order_they_were_entered() {
    let at = |x: f32, y: f32| Position { x, y };
    let cell = |p: &Position| {
        let mut first = None;
        cells_of(p, &Circle { radius: 0.0 }, |c| {
            first.get_or_insert(c);
        });
        first.unwrap()
    };
    let (a, b) = (at(100.0, 60.0), at(500.0, 300.0));
    let entry = |id, p: &Position| CellEntry { id, cell: cell(p) };
    let batches = vec![
        vec![entry(7u32, &a), entry(3, &b)],
        vec![],
        vec![entry(1, &a), entry(9, &a), entry(4, &b)],
    ];
    let mut grid = Grid::default();
    for round in 0..2 {
        grid.clear();
        grid.fill(&batches);
        assert_eq!(grid.cell_at(&a), [7, 1, 9], "round {round}");
        assert_eq!(grid.cell_at(&b), [3, 4], "round {round}");
        assert_eq!(grid.cell_at(&at(900.0, 800.0)), [0u32; 0], "round {round}");
    }
    grid.clear();
    assert_eq!(grid.cell_at(&a), [0u32; 0], "cleared");
}

#[test]
fn contacts_swap_velocities_and_push_apart() {
    let (mut p0, mut v0, c0) = (
        Position { x: 10.0, y: 10.0 },
        Velocity { x: 1.0, y: 0.0 },
        Circle { radius: 2.0 },
    );
    let (mut p1, mut v1, c1) = (
        Position { x: 13.0, y: 10.0 },
        Velocity { x: -1.0, y: 2.0 },
        Circle { radius: 2.0 },
    );
    let dist = touching(&p0, &c0, &p1, &c1).expect("3 apart, radii 2 and 2");
    solve(dist, (&mut p0, &mut v0, &c0), (&mut p1, &mut v1, &c1));
    assert_eq!((v0, v1), (Velocity { x: -1.0, y: 2.0 }, Velocity { x: 1.0, y: 0.0 }));
    // Overlap 1, pushed 0.6 each way along x.
    assert!((p0.x - 9.4).abs() < 1e-6 && (p1.x - 13.6).abs() < 1e-6 && p0.y == 10.0);
    // Coincident centres: velocities swap, positions stay (no NaN).
    let (mut q0, mut q1) = (p0, p0);
    solve(0.0, (&mut q0, &mut v0, &c0), (&mut q1, &mut v1, &c1));
    assert_eq!((q0, q1), (p0, p0));
}

#[test]
fn walls_bounce_and_life_fades() {
    let (mut p, mut v) = (Position { x: -1.0, y: 899.5 }, Velocity { x: -2.0, y: 3.0 });
    keep_in_bounds(&mut p, &mut v, &Circle { radius: 1.0 });
    assert_eq!((p, v), (Position { x: 1.0, y: 899.0 }, Velocity { x: 2.0, y: -3.0 }));
    let mut color = Color {
        r: 1,
        g: 2,
        b: 3,
        a: 255,
    };
    fade(&mut color, &Life(12.5));
    assert_eq!(color.a, 125);
    fade(&mut color, &Life(-0.01));
    assert_eq!(color.a, 0);
    let mut life = Life(0.05);
    assert!(!age(&mut life, DT) && age(&mut life, DT));
}

#[test]
fn fan_appends_five_triangles_of_centre_and_two_neighbouring_corners() {
    let (p, c) = (Position { x: 10.0, y: 20.0 }, Circle { radius: 2.0 });
    let color = Color { r: 1, g: 2, b: 3, a: 4 };
    let table = fan_table();
    let mut out = vec![Vertex::default()];
    fan(table, &p, &c, &color, &mut out);
    assert_eq!(out.len(), 1 + VERTICES_PER_PARTICLE, "appended after what was there");
    assert_eq!(out[0], Vertex::default());
    let corner = |i: usize| Vertex {
        position: Position {
            x: c.radius * table[i].0 + p.x,
            y: c.radius * table[i].1 + p.y,
        },
        color,
    };
    let centre = Vertex { position: p, color };
    for (t, triangle) in out[1..].chunks(3).enumerate() {
        assert_eq!(triangle, [centre, corner(t), corner(t + 1)], "triangle {t}");
    }
    assert_ne!(corner(0), corner(1), "the corners differ");
}

/// The benchmark's ratio pairs each run's times: a slow phase that moves both
/// times of one run, or a pair out of line, leaves the median of the ratios
/// where the ratio of the medians would follow it.
#[test]
fn the_benchmark_ratio_pairs_runs() {
    // Runs 0 and 1 with a core taken from both subjects; run 3 out of line.
    let ecs = [1092.0, 1080.0, 733.0, 820.0, 760.0];
    let hand = [1115.0, 1120.0, 740.0, 750.0, 750.0];
    let paired = run::median_of_ratios(&ecs, &hand);
    assert!((paired - 733.0 / 740.0).abs() < 1e-12, "{paired}");
    // The ratio of the medians pairs ecs's run 3 with hand's run 2.
    assert!((run::median(&ecs) / run::median(&hand) - 820.0 / 750.0).abs() < 1e-12);
    assert_eq!(run::median_of_ratios(&[2.0, 9.0], &[1.0]), 2.0);
    assert_eq!(run::median_of_ratios(&[], &[]), 0.0);
    assert_eq!(run::median_of_ratios(&[3.0, 1.0], &[1.0, 1.0]), 2.0);
}
