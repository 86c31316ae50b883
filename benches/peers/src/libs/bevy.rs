//! bevy_ecs, as its docs recommend for speed: `spawn_batch`, cached
//! `QueryState`s, `par_iter_mut` on the compute task pool, `insert_batch`,
//! and a `Schedule` on the multi-threaded executor.

use crate::components::letters::*;
use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::{Workload, FRAG_PER_TYPE, HEAVY, N};
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryState;
use bevy_tasks::{ComputeTaskPool, TaskPool};
use std::hint::black_box;

pub const NOTES: &str = "`World::spawn_batch` (simple_insert, set-ups); a `QueryState` made once per \
workload and kept (`iter_mut().for_each`); heavy_compute: `QueryState::par_iter_mut` on the `ComputeTaskPool` \
(one thread per core); add_remove: `World::insert_batch` of `B`, then `entity_mut(e).remove::<B>()` per entity \
(bevy has no batch remove); schedule: a `Schedule` with `ab`, `cd`, `ce.after(cd)` on the default \
multi-threaded executor.";

pub fn make(w: Workload) -> Box<dyn Bench> {
    ComputeTaskPool::get_or_init(TaskPool::new);
    match w {
        Workload::SimpleInsert => Box::new(SimpleInsert),
        Workload::SimpleIter => Box::new(SimpleIter::new()),
        Workload::FragIter => Box::new(FragIter::new()),
        Workload::HeavyCompute => Box::new(HeavyCompute::new()),
        Workload::AddRemove => Box::new(AddRemove::new()),
        Workload::Schedule => Box::new(Schedule::new()),
        Workload::MoveCollideRender
        | Workload::Save
        | Workload::Load
        | Workload::Fragmented
        | Workload::FragmentedChurn => {
            unreachable!("set up by libs::move_collide_render and libs::save_load")
        }
    }
}

fn bodies(n: usize) -> impl Iterator<Item = (Transform, Position, Rotation, Velocity)> {
    (0..n).map(|_| (transform(), position(), rotation(), velocity()))
}

struct SimpleInsert;

fn fill() -> World {
    let mut world = World::new();
    world.spawn_batch(bodies(N));
    world
}

impl Bench for SimpleInsert {
    fn run(&mut self) {
        drop(black_box(fill()));
    }

    fn check(&mut self) -> Check {
        let mut world = fill();
        let mut q = world.query::<(&Transform, &Position, &Rotation, &Velocity)>();
        expect::simple_insert(q.iter(&world).count())
    }
}

struct SimpleIter {
    world: World,
    query: QueryState<(&'static mut Position, &'static Velocity)>,
}

impl SimpleIter {
    fn new() -> Self {
        let mut world = fill();
        let query = world.query();
        SimpleIter { world, query }
    }
}

impl Bench for SimpleIter {
    fn run(&mut self) {
        self.query
            .iter_mut(&mut self.world)
            .for_each(|(mut p, v)| advance(&mut p, v));
    }

    fn check(&mut self) -> Check {
        self.run();
        let mut q = self.world.query::<&Position>();
        expect::simple_iter(q.iter(&self.world).copied())
    }
}

struct FragIter {
    world: World,
    query: QueryState<&'static mut frag::Data>,
}

/// Spawns `FRAG_PER_TYPE` entities with `Data` and each marker in turn.
macro_rules! spawn_groups {
    ($world:expr, $($m:ident),+) => {$(
        $world.spawn_batch((0..FRAG_PER_TYPE).map(|_| (frag::$m(1.0), frag::Data(1.0))));
    )+};
}

impl FragIter {
    fn new() -> Self {
        let mut world = World::new();
        spawn_groups!(world, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        let query = world.query();
        FragIter { world, query }
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        self.query.iter_mut(&mut self.world).for_each(|mut d| d.0 *= 2.0);
    }

    fn check(&mut self) -> Check {
        self.run();
        let mut q = self.world.query::<&frag::Data>();
        expect::frag_iter(q.iter(&self.world).map(|d| d.0))
    }
}

struct HeavyCompute {
    world: World,
    query: QueryState<(&'static mut Matrix4, &'static mut Position)>,
}

impl HeavyCompute {
    fn new() -> Self {
        let mut world = World::new();
        world.spawn_batch((0..HEAVY).map(|_| (matrix4(), heavy_position(), rotation(), velocity())));
        let query = world.query();
        HeavyCompute { world, query }
    }
}

impl Bench for HeavyCompute {
    fn run(&mut self) {
        self.query
            .par_iter_mut(&mut self.world)
            .for_each(|(mut m, mut p)| heavy(&mut m, &mut p));
    }

    fn check(&mut self) -> Check {
        self.run();
        let mut q = self.world.query::<&Position>();
        expect::heavy_compute(q.iter(&self.world).copied())
    }
}

struct AddRemove {
    world: World,
    entities: Vec<Entity>,
    system: QueryState<(&'static A, &'static B)>,
}

impl AddRemove {
    fn new() -> Self {
        let mut world = World::new();
        let entities = world.spawn_batch((0..N).map(|_| A(0.0))).collect();
        let system = world.query();
        AddRemove {
            world,
            entities,
            system,
        }
    }

    fn add(&mut self) {
        self.world.insert_batch(self.entities.iter().map(|&e| (e, B(0.0))));
    }

    fn remove(&mut self) {
        for &e in &self.entities {
            self.world.entity_mut(e).remove::<B>();
        }
    }

    /// The system reading `A` and `B`, run after each change: how many
    /// entities it saw.
    fn system(&mut self) -> usize {
        let (mut seen, mut sum) = (0, 0.0);
        for (a, b) in self.system.iter(&self.world) {
            seen += 1;
            sum += read_ab(a, b);
        }
        black_box(sum);
        seen
    }

    fn count<T: Component>(&mut self) -> usize {
        self.world.query::<&T>().iter(&self.world).count()
    }
}

impl Bench for AddRemove {
    fn run(&mut self) {
        self.add();
        black_box(self.system());
        self.remove();
        black_box(self.system());
    }

    fn check(&mut self) -> Check {
        self.add();
        let added = self.system();
        self.remove();
        let left = self.system();
        expect::add_remove(self.count::<A>(), added, left)
    }
}

fn ab(mut q: Query<(&mut A, &mut B)>) {
    for (mut a, mut b) in &mut q {
        swap(&mut a.0, &mut b.0);
    }
}

fn cd(mut q: Query<(&mut C, &mut D)>) {
    for (mut c, mut d) in &mut q {
        swap(&mut c.0, &mut d.0);
    }
}

fn ce(mut q: Query<(&mut C, &mut E)>) {
    for (mut c, mut e) in &mut q {
        swap(&mut c.0, &mut e.0);
    }
}

struct Schedule {
    world: World,
    schedule: bevy_ecs::schedule::Schedule,
}

impl Schedule {
    fn new() -> Self {
        let mut world = World::new();
        let (a, b, c, d, e) = letters();
        world.spawn_batch((0..N).map(|_| (a, b)));
        world.spawn_batch((0..N).map(|_| (a, b, c)));
        world.spawn_batch((0..N).map(|_| (a, b, c, d)));
        world.spawn_batch((0..N).map(|_| (a, b, c, e)));
        let mut schedule = bevy_ecs::schedule::Schedule::default();
        schedule.add_systems((ab, cd, ce.after(cd)));
        // Build the schedule before timing.
        schedule.initialize(&mut world).expect("the schedule builds");
        Schedule { world, schedule }
    }
}

impl Bench for Schedule {
    fn run(&mut self) {
        self.schedule.run(&mut self.world);
    }

    fn check(&mut self) -> Check {
        self.run();
        let w = &mut self.world;
        let s = expect::Schedule {
            ab: w.query::<(&A, &B)>().iter(w).map(|(a, b)| (a.0, b.0)).collect(),
            cd: w.query::<(&C, &D)>().iter(w).map(|(c, d)| (c.0, d.0)).collect(),
            ce: w.query::<(&C, &E)>().iter(w).map(|(c, e)| (c.0, e.0)).collect(),
            c: w.query::<&C>().iter(w).map(|c| c.0).collect(),
        };
        expect::schedule(s)
    }
}
