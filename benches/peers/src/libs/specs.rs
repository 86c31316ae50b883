//! specs, as its docs recommend for speed: `VecStorage` for every component,
//! systems joining storages (`join`, `par_join` for `heavy_compute`), entities
//! built against fetched storages, and a `Dispatcher` for `schedule`.

use crate::components::letters::*;
use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::{Workload, FRAG_PER_TYPE, HEAVY, N};
use specs::prelude::*;
use std::hint::black_box;

pub const NOTES: &str = "`VecStorage` for every component; simple_insert: a world with the four storages \
registered, entities built with `Entities::build_entity().with(value, &mut storage)` against storages fetched \
once (the systems' way, cheaper than `World::create_entity` per entity); simple_iter / frag_iter: a `System` run \
with `run_now`, joining the storages (`join`); heavy_compute: `par_join` (rayon); add_remove: `insert` / \
`remove` on the fetched `B` storage per entity; schedule: a `Dispatcher` with `ab`, `cd`, `ce` (after `cd`) on \
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

type Bodies<'a> = (
    Entities<'a>,
    WriteStorage<'a, Transform>,
    WriteStorage<'a, Position>,
    WriteStorage<'a, Rotation>,
    WriteStorage<'a, Velocity>,
);

fn fill() -> World {
    let mut world = World::new();
    world.register::<Transform>();
    world.register::<Position>();
    world.register::<Rotation>();
    world.register::<Velocity>();
    {
        let (entities, mut t, mut p, mut r, mut v) = world.system_data::<Bodies>();
        for _ in 0..N {
            entities
                .build_entity()
                .with(transform(), &mut t)
                .with(position(), &mut p)
                .with(rotation(), &mut r)
                .with(velocity(), &mut v)
                .build();
        }
    }
    world
}

struct SimpleInsert;

impl Bench for SimpleInsert {
    fn run(&mut self) {
        drop(black_box(fill()));
    }

    fn check(&mut self) -> Check {
        let world = fill();
        let (_, t, p, r, v) = world.system_data::<Bodies>();
        expect::simple_insert((&t, &p, &r, &v).join().count())
    }
}

struct Move;

impl<'a> System<'a> for Move {
    type SystemData = (WriteStorage<'a, Position>, ReadStorage<'a, Velocity>);

    fn run(&mut self, (mut p, v): Self::SystemData) {
        for (p, v) in (&mut p, &v).join() {
            advance(p, v);
        }
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
        Move.run_now(&self.0);
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::simple_iter(self.0.read_storage::<Position>().join().copied())
    }
}

struct Double;

impl<'a> System<'a> for Double {
    type SystemData = WriteStorage<'a, frag::Data>;

    fn run(&mut self, mut data: Self::SystemData) {
        for d in (&mut data).join() {
            d.0 *= 2.0;
        }
    }
}

struct FragIter(World);

/// Registers every marker and builds `FRAG_PER_TYPE` entities with `Data`
/// and each marker in turn.
macro_rules! spawn_groups {
    ($world:expr, $($m:ident),+) => {$(
        $world.register::<frag::$m>();
        for _ in 0..FRAG_PER_TYPE {
            $world.create_entity().with(frag::$m(1.0)).with(frag::Data(1.0)).build();
        }
    )+};
}

impl FragIter {
    fn new() -> Self {
        let mut world = World::new();
        world.register::<frag::Data>();
        spawn_groups!(world, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        FragIter(world)
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        Double.run_now(&self.0);
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::frag_iter(self.0.read_storage::<frag::Data>().join().map(|d| d.0))
    }
}

struct Heavy;

impl<'a> System<'a> for Heavy {
    type SystemData = (WriteStorage<'a, Matrix4>, WriteStorage<'a, Position>);

    fn run(&mut self, (mut m, mut p): Self::SystemData) {
        (&mut m, &mut p).par_join().for_each(|(m, p)| heavy(m, p));
    }
}

struct HeavyCompute(World);

impl HeavyCompute {
    fn new() -> Self {
        let mut world = World::new();
        world.register::<Matrix4>();
        world.register::<Position>();
        world.register::<Rotation>();
        world.register::<Velocity>();
        for _ in 0..HEAVY {
            world
                .create_entity()
                .with(matrix4())
                .with(heavy_position())
                .with(rotation())
                .with(velocity())
                .build();
        }
        HeavyCompute(world)
    }
}

impl Bench for HeavyCompute {
    fn run(&mut self) {
        Heavy.run_now(&self.0);
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::heavy_compute(self.0.read_storage::<Position>().join().copied())
    }
}

struct AddRemove {
    world: World,
    entities: Vec<Entity>,
}

impl AddRemove {
    fn new() -> Self {
        let mut world = World::new();
        world.register::<A>();
        world.register::<B>();
        let entities = (0..N).map(|_| world.create_entity().with(A(0.0)).build()).collect();
        AddRemove { world, entities }
    }

    fn add(&mut self) {
        let mut bs = self.world.write_storage::<B>();
        for &e in &self.entities {
            bs.insert(e, B(0.0)).expect("alive");
        }
    }

    fn remove(&mut self) {
        let mut bs = self.world.write_storage::<B>();
        for &e in &self.entities {
            bs.remove(e);
        }
    }

    /// The system reading `A` and `B`, run after each change: how many
    /// entities it saw.
    fn system(&mut self) -> usize {
        let (mut seen, mut sum) = (0, 0.0);
        let (a, b) = (self.world.read_storage::<A>(), self.world.read_storage::<B>());
        for (a, b) in (&a, &b).join() {
            seen += 1;
            sum += read_ab(a, b);
        }
        black_box(sum);
        seen
    }

    fn count<T: Component>(&self) -> usize {
        self.world.read_storage::<T>().join().count()
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

/// Declares a system swapping components `$x` and `$y` of every entity
/// holding both.
macro_rules! swap_system {
    ($name:ident, $x:ident, $y:ident) => {
        struct $name;

        impl<'a> System<'a> for $name {
            type SystemData = (WriteStorage<'a, $x>, WriteStorage<'a, $y>);

            fn run(&mut self, (mut x, mut y): Self::SystemData) {
                for (x, y) in (&mut x, &mut y).join() {
                    swap(&mut x.0, &mut y.0);
                }
            }
        }
    };
}
swap_system!(SwapAb, A, B);
swap_system!(SwapCd, C, D);
swap_system!(SwapCe, C, E);

struct Schedule {
    world: World,
    dispatcher: Dispatcher<'static, 'static>,
}

impl Schedule {
    fn new() -> Self {
        let mut world = World::new();
        let (a, b, c, d, e) = letters();
        let mut dispatcher = DispatcherBuilder::new()
            .with(SwapAb, "ab", &[])
            .with(SwapCd, "cd", &[])
            .with(SwapCe, "ce", &["cd"])
            .build();
        dispatcher.setup(&mut world);
        for _ in 0..N {
            world.create_entity().with(a).with(b).build();
        }
        for _ in 0..N {
            world.create_entity().with(a).with(b).with(c).build();
        }
        for _ in 0..N {
            world.create_entity().with(a).with(b).with(c).with(d).build();
        }
        for _ in 0..N {
            world.create_entity().with(a).with(b).with(c).with(e).build();
        }
        Schedule { world, dispatcher }
    }
}

impl Bench for Schedule {
    fn run(&mut self) {
        self.dispatcher.dispatch(&self.world);
    }

    fn check(&mut self) -> Check {
        self.run();
        let (a, b, c, d, e) = self.world.system_data::<(
            ReadStorage<A>,
            ReadStorage<B>,
            ReadStorage<C>,
            ReadStorage<D>,
            ReadStorage<E>,
        )>();
        let s = expect::Schedule {
            ab: (&a, &b).join().map(|(a, b)| (a.0, b.0)).collect(),
            cd: (&c, &d).join().map(|(c, d)| (c.0, d.0)).collect(),
            ce: (&c, &e).join().map(|(c, e)| (c.0, e.0)).collect(),
            c: c.join().map(|c| c.0).collect(),
        };
        expect::schedule(s)
    }
}
