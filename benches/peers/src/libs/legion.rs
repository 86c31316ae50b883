//! legion, as its docs recommend for speed: `extend` with struct-of-arrays
//! data (`into_soa`), cached `Query`s iterated with `for_each_mut`,
//! `par_for_each_mut` for `heavy_compute`, and a `Schedule` of
//! `#[system(for_each)]` systems.

use crate::components::letters::*;
use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::{Workload, FRAG_PER_TYPE, HEAVY, N};
use legion::storage::IntoSoa;
use legion::{system, Entity, IntoQuery, Query, Read, Resources, World, Write};
use std::hint::black_box;

pub const NOTES: &str = "`World::extend` with struct-of-arrays columns (`into_soa`, which its docs call faster \
than tuples; building the four columns is timed too) for simple_insert, `extend` for set-ups; a `Query` made once \
per workload and kept, iterated with `for_each_mut`; heavy_compute: `par_for_each_mut` (rayon, one thread per \
core); add_remove: `entry(e).add_component` / `remove_component` per entity; schedule: a `Schedule` of three \
`#[system(for_each)]` systems in the order `ab`, `cd`, `ce` (legion orders conflicting systems as added), on \
rayon.";

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
    let mut world = World::default();
    world.extend(
        (
            vec![transform(); N],
            vec![position(); N],
            vec![rotation(); N],
            vec![velocity(); N],
        )
            .into_soa(),
    );
    world
}

struct SimpleInsert;

impl Bench for SimpleInsert {
    fn run(&mut self) {
        drop(black_box(fill()));
    }

    fn check(&mut self) -> Check {
        let world = fill();
        let n = <(&Transform, &Position, &Rotation, &Velocity)>::query()
            .iter(&world)
            .count();
        expect::simple_insert(n)
    }
}

struct SimpleIter {
    world: World,
    query: Query<(Write<Position>, Read<Velocity>)>,
}

impl SimpleIter {
    fn new() -> Self {
        SimpleIter {
            world: fill(),
            query: <(Write<Position>, Read<Velocity>)>::query(),
        }
    }
}

impl Bench for SimpleIter {
    fn run(&mut self) {
        self.query.for_each_mut(&mut self.world, |(p, v)| advance(p, v));
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::simple_iter(<&Position>::query().iter(&self.world).copied())
    }
}

struct FragIter {
    world: World,
    query: Query<Write<frag::Data>>,
}

/// Adds `FRAG_PER_TYPE` entities with `Data` and each marker in turn.
macro_rules! spawn_groups {
    ($world:expr, $($m:ident),+) => {$(
        $world.extend((0..FRAG_PER_TYPE).map(|_| (frag::$m(1.0), frag::Data(1.0))));
    )+};
}

impl FragIter {
    fn new() -> Self {
        let mut world = World::default();
        spawn_groups!(world, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        FragIter {
            world,
            query: Write::<frag::Data>::query(),
        }
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        self.query.for_each_mut(&mut self.world, |d| d.0 *= 2.0);
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::frag_iter(<&frag::Data>::query().iter(&self.world).map(|d| d.0))
    }
}

struct HeavyCompute {
    world: World,
    query: Query<(Write<Matrix4>, Write<Position>)>,
}

impl HeavyCompute {
    fn new() -> Self {
        let mut world = World::default();
        world.extend((0..HEAVY).map(|_| (matrix4(), heavy_position(), rotation(), velocity())));
        HeavyCompute {
            world,
            query: <(Write<Matrix4>, Write<Position>)>::query(),
        }
    }
}

impl Bench for HeavyCompute {
    fn run(&mut self) {
        self.query.par_for_each_mut(&mut self.world, |(m, p)| heavy(m, p));
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::heavy_compute(<&Position>::query().iter(&self.world).copied())
    }
}

struct AddRemove {
    world: World,
    entities: Vec<Entity>,
    system: Query<(Read<A>, Read<B>)>,
}

impl AddRemove {
    fn new() -> Self {
        let mut world = World::default();
        let entities = world.extend((0..N).map(|_| (A(0.0),))).to_vec();
        AddRemove {
            world,
            entities,
            system: <(Read<A>, Read<B>)>::query(),
        }
    }

    fn add(&mut self) {
        for &e in &self.entities {
            self.world.entry(e).expect("alive").add_component(B(0.0));
        }
    }

    fn remove(&mut self) {
        for &e in &self.entities {
            self.world.entry(e).expect("alive").remove_component::<B>();
        }
    }

    /// The system reading `A` and `B`, run after each change: how many
    /// entities it saw.
    fn system(&mut self) -> usize {
        let (mut seen, mut sum) = (0, 0.0);
        self.system.for_each(&self.world, |(a, b)| {
            seen += 1;
            sum += read_ab(a, b);
        });
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
        expect::add_remove(<&A>::query().iter(&self.world).count(), added, left)
    }
}

#[system(for_each)]
fn ab(a: &mut A, b: &mut B) {
    swap(&mut a.0, &mut b.0);
}

#[system(for_each)]
fn cd(c: &mut C, d: &mut D) {
    swap(&mut c.0, &mut d.0);
}

#[system(for_each)]
fn ce(c: &mut C, e: &mut E) {
    swap(&mut c.0, &mut e.0);
}

struct Schedule {
    world: World,
    resources: Resources,
    schedule: legion::Schedule,
}

impl Schedule {
    fn new() -> Self {
        let mut world = World::default();
        let (a, b, c, d, e) = letters();
        world.extend((0..N).map(|_| (a, b)));
        world.extend((0..N).map(|_| (a, b, c)));
        world.extend((0..N).map(|_| (a, b, c, d)));
        world.extend((0..N).map(|_| (a, b, c, e)));
        let schedule = legion::Schedule::builder()
            .add_system(ab_system())
            .add_system(cd_system())
            .add_system(ce_system())
            .build();
        Schedule {
            world,
            resources: Resources::default(),
            schedule,
        }
    }
}

impl Bench for Schedule {
    fn run(&mut self) {
        self.schedule.execute(&mut self.world, &mut self.resources);
    }

    fn check(&mut self) -> Check {
        self.run();
        let w = &self.world;
        let s = expect::Schedule {
            ab: <(&A, &B)>::query().iter(w).map(|(a, b)| (a.0, b.0)).collect(),
            cd: <(&C, &D)>::query().iter(w).map(|(c, d)| (c.0, d.0)).collect(),
            ce: <(&C, &E)>::query().iter(w).map(|(c, e)| (c.0, e.0)).collect(),
            c: <&C>::query().iter(w).map(|c| c.0).collect(),
        };
        expect::schedule(s)
    }
}
