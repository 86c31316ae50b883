//! shipyard, as its docs recommend for speed: `bulk_add_entity`, systems
//! borrowing views and iterating them (`iter`, `par_iter` for
//! `heavy_compute`), and a `Workload` for `schedule`.

use crate::components::letters::*;
use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::{Workload, FRAG_PER_TYPE, HEAVY, N};
use rayon::prelude::*;
use shipyard::scheduler::ScheduledWorkload;
use shipyard::{EntitiesView, EntityId, IntoIter, Remove, View, ViewMut, World};
use std::hint::black_box;

pub const NOTES: &str = "`World::bulk_add_entity` (simple_insert, set-ups); systems as closures given to \
`World::run`, borrowing `View`/`ViewMut` and iterating them with `iter()`; heavy_compute: `par_iter()` (rayon); \
add_remove: `EntitiesView::add_component(e, &mut ViewMut<B>, ..)` then `ViewMut<B>::remove(e)` per entity, each \
phase in one `run`; schedule: a `Workload` of `ab`, `cd`, `ce` (shipyard orders conflicting systems as added), \
built once and run with `run_with_world`.";

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
    world.bulk_add_entity((0..N).map(|_| (transform(), position(), rotation(), velocity())));
    world
}

struct SimpleInsert;

impl Bench for SimpleInsert {
    fn run(&mut self) {
        drop(black_box(fill()));
    }

    fn check(&mut self) -> Check {
        let world = fill();
        let n = world.run(
            |t: View<Transform>, p: View<Position>, r: View<Rotation>, v: View<Velocity>| {
                (&t, &p, &r, &v).iter().count()
            },
        );
        expect::simple_insert(n)
    }
}

struct SimpleIter(World);

impl SimpleIter {
    fn new() -> Self {
        SimpleIter(fill())
    }
}

impl Bench for SimpleIter {
    fn run(&mut self) {
        self.0.run(|mut p: ViewMut<Position>, v: View<Velocity>| {
            (&mut p, &v).iter().for_each(|(p, v)| advance(p, v));
        });
    }

    fn check(&mut self) -> Check {
        self.run();
        let positions: Vec<Position> = self.0.run(|p: View<Position>| p.iter().copied().collect());
        expect::simple_iter(positions)
    }
}

struct FragIter(World);

/// Adds `FRAG_PER_TYPE` entities with `Data` and each marker in turn.
macro_rules! spawn_groups {
    ($world:expr, $($m:ident),+) => {$(
        $world.bulk_add_entity((0..FRAG_PER_TYPE).map(|_| (frag::$m(1.0), frag::Data(1.0))));
    )+};
}

impl FragIter {
    fn new() -> Self {
        let mut world = World::new();
        spawn_groups!(world, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        FragIter(world)
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        self.0.run(|mut d: ViewMut<frag::Data>| {
            (&mut d).iter().for_each(|d| d.0 *= 2.0);
        });
    }

    fn check(&mut self) -> Check {
        self.run();
        let data: Vec<f32> = self.0.run(|d: View<frag::Data>| d.iter().map(|d| d.0).collect());
        expect::frag_iter(data)
    }
}

struct HeavyCompute(World);

impl HeavyCompute {
    fn new() -> Self {
        let mut world = World::new();
        world.bulk_add_entity((0..HEAVY).map(|_| (matrix4(), heavy_position(), rotation(), velocity())));
        HeavyCompute(world)
    }
}

impl Bench for HeavyCompute {
    fn run(&mut self) {
        self.0.run(|mut m: ViewMut<Matrix4>, mut p: ViewMut<Position>| {
            (&mut m, &mut p).par_iter().for_each(|(m, p)| heavy(m, p));
        });
    }

    fn check(&mut self) -> Check {
        self.run();
        let positions: Vec<Position> = self.0.run(|p: View<Position>| p.iter().copied().collect());
        expect::heavy_compute(positions)
    }
}

struct AddRemove {
    world: World,
    entities: Vec<EntityId>,
}

impl AddRemove {
    fn new() -> Self {
        let mut world = World::new();
        let entities = world.bulk_add_entity((0..N).map(|_| (A(0.0),))).collect();
        AddRemove { world, entities }
    }

    fn add(&mut self) {
        let es = &self.entities;
        self.world.run(|entities: EntitiesView, mut b: ViewMut<B>| {
            for &e in es {
                entities.add_component(e, &mut b, B(0.0));
            }
        });
    }

    fn remove(&mut self) {
        let es = &self.entities;
        self.world.run(|mut b: ViewMut<B>| {
            for &e in es {
                b.remove(e);
            }
        });
    }

    /// The system reading `A` and `B`, run after each change: how many
    /// entities it saw.
    fn system(&mut self) -> usize {
        self.world.run(|a: View<A>, b: View<B>| {
            let (mut seen, mut sum) = (0, 0.0);
            (&a, &b).iter().for_each(|(a, b)| {
                seen += 1;
                sum += read_ab(a, b);
            });
            black_box(sum);
            seen
        })
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
        let with_a = self.world.run(|a: View<A>| a.iter().count());
        expect::add_remove(with_a, added, left)
    }
}

fn ab(mut a: ViewMut<A>, mut b: ViewMut<B>) {
    (&mut a, &mut b).iter().for_each(|(a, b)| swap(&mut a.0, &mut b.0));
}

fn cd(mut c: ViewMut<C>, mut d: ViewMut<D>) {
    (&mut c, &mut d).iter().for_each(|(c, d)| swap(&mut c.0, &mut d.0));
}

fn ce(mut c: ViewMut<C>, mut e: ViewMut<E>) {
    (&mut c, &mut e).iter().for_each(|(c, e)| swap(&mut c.0, &mut e.0));
}

struct Schedule {
    world: World,
    workload: ScheduledWorkload,
}

impl Schedule {
    fn new() -> Self {
        let mut world = World::new();
        let (a, b, c, d, e) = letters();
        world.bulk_add_entity((0..N).map(|_| (a, b)));
        world.bulk_add_entity((0..N).map(|_| (a, b, c)));
        world.bulk_add_entity((0..N).map(|_| (a, b, c, d)));
        world.bulk_add_entity((0..N).map(|_| (a, b, c, e)));
        let (workload, _) = shipyard::Workload::new("schedule")
            .with_system(ab)
            .with_system(cd)
            .with_system(ce)
            .build()
            .expect("the workload builds");
        Schedule { world, workload }
    }
}

impl Bench for Schedule {
    fn run(&mut self) {
        self.workload.run_with_world(&self.world).expect("the workload runs");
    }

    fn check(&mut self) -> Check {
        self.run();
        let s = self.world.run(
            |a: View<A>, b: View<B>, c: View<C>, d: View<D>, e: View<E>| expect::Schedule {
                ab: (&a, &b).iter().map(|(a, b)| (a.0, b.0)).collect(),
                cd: (&c, &d).iter().map(|(c, d)| (c.0, d.0)).collect(),
                ce: (&c, &e).iter().map(|(c, e)| (c.0, e.0)).collect(),
                c: c.iter().map(|c| c.0).collect(),
            },
        );
        expect::schedule(s)
    }
}
