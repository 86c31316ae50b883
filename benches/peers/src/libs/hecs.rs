//! hecs, as its docs recommend for speed: `spawn_batch`, `PreparedQuery`
//! with `query_mut`, and `iter_batched` batches handed to rayon for
//! `heavy_compute`. hecs has no scheduler: `schedule` runs the three
//! queries in sequence.

use crate::components::letters::*;
use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::{Workload, FRAG_PER_TYPE, HEAVY, N};
use hecs::{Entity, PreparedQuery, World};
use rayon::prelude::*;
use std::hint::black_box;

pub const NOTES: &str = "`World::spawn_batch` (simple_insert, set-ups); `PreparedQuery` kept per workload, \
iterated with `query_mut`; heavy_compute: `query::<..>().iter_batched(64)` bridged to rayon (`par_bridge`), \
as ecs_bench_suite does; add_remove: `insert_one` / `remove_one` per entity; schedule: hecs has no scheduler, \
so the three prepared queries run in sequence on one thread.";

pub fn make(w: Workload) -> Box<dyn Bench> {
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

fn fill() -> World {
    let mut world = World::new();
    world.spawn_batch((0..N).map(|_| (transform(), position(), rotation(), velocity())));
    world
}

struct SimpleInsert;

impl Bench for SimpleInsert {
    fn run(&mut self) {
        drop(black_box(fill()));
    }

    fn check(&mut self) -> Check {
        let mut world = fill();
        let n = world
            .query_mut::<(&Transform, &Position, &Rotation, &Velocity)>()
            .into_iter()
            .count();
        expect::simple_insert(n)
    }
}

struct SimpleIter {
    world: World,
    query: PreparedQuery<(&'static mut Position, &'static Velocity)>,
}

impl SimpleIter {
    fn new() -> Self {
        SimpleIter {
            world: fill(),
            query: PreparedQuery::new(),
        }
    }
}

impl Bench for SimpleIter {
    fn run(&mut self) {
        self.query.query_mut(&mut self.world).for_each(|(p, v)| advance(p, v));
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::simple_iter(self.world.query_mut::<&Position>().into_iter().copied())
    }
}

struct FragIter {
    world: World,
    query: PreparedQuery<&'static mut frag::Data>,
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
        FragIter {
            world,
            query: PreparedQuery::new(),
        }
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        self.query.query_mut(&mut self.world).for_each(|d| d.0 *= 2.0);
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::frag_iter(self.world.query_mut::<&frag::Data>().into_iter().map(|d| d.0))
    }
}

struct HeavyCompute(World);

impl HeavyCompute {
    fn new() -> Self {
        let mut world = World::new();
        world.spawn_batch((0..HEAVY).map(|_| (matrix4(), heavy_position(), rotation(), velocity())));
        HeavyCompute(world)
    }
}

impl Bench for HeavyCompute {
    fn run(&mut self) {
        self.0
            .query::<(&mut Matrix4, &mut Position)>()
            .iter_batched(64)
            .par_bridge()
            .for_each(|batch| {
                for (m, p) in batch {
                    heavy(m, p);
                }
            });
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::heavy_compute(self.0.query_mut::<&Position>().into_iter().copied())
    }
}

struct AddRemove {
    world: World,
    entities: Vec<Entity>,
    system: PreparedQuery<(&'static A, &'static B)>,
}

impl AddRemove {
    fn new() -> Self {
        let mut world = World::new();
        let entities = world.spawn_batch((0..N).map(|_| (A(0.0),))).collect();
        AddRemove {
            world,
            entities,
            system: PreparedQuery::new(),
        }
    }

    fn add(&mut self) {
        for &e in &self.entities {
            self.world.insert_one(e, B(0.0)).expect("alive");
        }
    }

    fn remove(&mut self) {
        for &e in &self.entities {
            self.world.remove_one::<B>(e).expect("has B");
        }
    }

    /// The system reading `A` and `B`, run after each change: how many
    /// entities it saw.
    fn system(&mut self) -> usize {
        let (mut seen, mut sum) = (0, 0.0);
        for (a, b) in self.system.query_mut(&mut self.world) {
            seen += 1;
            sum += read_ab(a, b);
        }
        black_box(sum);
        seen
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
        expect::add_remove(self.world.query_mut::<&A>().into_iter().count(), added, left)
    }
}

struct Schedule {
    world: World,
    ab: PreparedQuery<(&'static mut A, &'static mut B)>,
    cd: PreparedQuery<(&'static mut C, &'static mut D)>,
    ce: PreparedQuery<(&'static mut C, &'static mut E)>,
}

impl Schedule {
    fn new() -> Self {
        let mut world = World::new();
        let (a, b, c, d, e) = letters();
        world.spawn_batch((0..N).map(|_| (a, b)));
        world.spawn_batch((0..N).map(|_| (a, b, c)));
        world.spawn_batch((0..N).map(|_| (a, b, c, d)));
        world.spawn_batch((0..N).map(|_| (a, b, c, e)));
        Schedule {
            world,
            ab: PreparedQuery::new(),
            cd: PreparedQuery::new(),
            ce: PreparedQuery::new(),
        }
    }
}

impl Bench for Schedule {
    fn run(&mut self) {
        self.ab
            .query_mut(&mut self.world)
            .for_each(|(a, b)| swap(&mut a.0, &mut b.0));
        self.cd
            .query_mut(&mut self.world)
            .for_each(|(c, d)| swap(&mut c.0, &mut d.0));
        self.ce
            .query_mut(&mut self.world)
            .for_each(|(c, e)| swap(&mut c.0, &mut e.0));
    }

    fn check(&mut self) -> Check {
        self.run();
        let w = &mut self.world;
        let s = expect::Schedule {
            ab: w.query_mut::<(&A, &B)>().into_iter().map(|(a, b)| (a.0, b.0)).collect(),
            cd: w.query_mut::<(&C, &D)>().into_iter().map(|(c, d)| (c.0, d.0)).collect(),
            ce: w.query_mut::<(&C, &E)>().into_iter().map(|(c, e)| (c.0, e.0)).collect(),
            c: w.query_mut::<&C>().into_iter().map(|c| c.0).collect(),
        };
        expect::schedule(s)
    }
}
