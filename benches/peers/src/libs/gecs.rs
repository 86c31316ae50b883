//! gecs, as its docs recommend for speed: every archetype declared at
//! compile time with a fixed capacity (no allocation after start-up), and
//! `ecs_iter!` queries. gecs has neither a scheduler nor parallel
//! iteration, nor adding or removing components: `schedule` and
//! `add_remove` are left out, and `heavy_compute` hands the archetype's
//! column slices to rayon.

use crate::harness::Bench;
use crate::workload::Workload;

pub const NOTES: &str = "one `ecs_world!` per workload with fixed-capacity archetypes (`ecs_archetype!(Name, \
capacity, ..)`: storage for exactly the entities, allocated when the world is created); simple_insert: world \
created (timed) and filled with `create`; simple_iter / frag_iter: `ecs_iter!`; heavy_compute: gecs has no \
parallel iteration, so the archetype's column slices (`get_all_slices_mut`) go to rayon `par_iter_mut`; \
add_remove and schedule: not expressible (archetypes are fixed at compile time, no scheduler).";

/// gecs's implementation of `w`; `None` for `add_remove` and `schedule`.
pub fn make(w: Workload) -> Option<Box<dyn Bench>> {
    match w {
        Workload::SimpleInsert => Some(Box::new(insert::SimpleInsert)),
        Workload::SimpleIter => Some(Box::new(iter::SimpleIter::new())),
        Workload::FragIter => Some(Box::new(frag::FragIter::new())),
        Workload::HeavyCompute => Some(Box::new(heavy::HeavyCompute::new())),
        Workload::AddRemove
        | Workload::Schedule
        | Workload::MoveCollideRender
        | Workload::Save
        | Workload::Load
        | Workload::Fragmented
        | Workload::FragmentedChurn => None,
    }
}

mod insert {
    use crate::components::*;
    use crate::expect::{self, Check};
    use crate::harness::Bench;
    use crate::workload::N;
    use gecs::prelude::*;
    use std::hint::black_box;

    ecs_world! {
        ecs_name!(InsertWorld);
        ecs_archetype!(Body, N, Transform, Position, Rotation, Velocity);
    }

    pub struct SimpleInsert;

    fn fill() -> InsertWorld {
        let mut world = InsertWorld::default();
        for _ in 0..N {
            world.create::<Body>((transform(), position(), rotation(), velocity()));
        }
        world
    }

    impl Bench for SimpleInsert {
        fn run(&mut self) {
            drop(black_box(fill()));
        }

        fn check(&mut self) -> Check {
            let mut world = fill();
            let mut n = 0;
            ecs_iter!(world, |_: &Transform, _: &Position, _: &Rotation, _: &Velocity| n += 1);
            expect::simple_insert(n)
        }
    }
}

mod iter {
    use crate::components::*;
    use crate::expect::{self, Check};
    use crate::harness::Bench;
    use crate::workload::N;
    use gecs::prelude::*;

    ecs_world! {
        ecs_name!(IterWorld);
        ecs_archetype!(Body, N, Transform, Position, Rotation, Velocity);
    }

    pub struct SimpleIter(IterWorld);

    impl SimpleIter {
        pub fn new() -> Self {
            let mut world = IterWorld::default();
            for _ in 0..N {
                world.create::<Body>((transform(), position(), rotation(), velocity()));
            }
            SimpleIter(world)
        }
    }

    impl Bench for SimpleIter {
        fn run(&mut self) {
            ecs_iter!(self.0, |p: &mut Position, v: &Velocity| advance(p, v));
        }

        fn check(&mut self) -> Check {
            self.run();
            let mut positions = Vec::new();
            ecs_iter!(self.0, |p: &Position| positions.push(*p));
            expect::simple_iter(positions)
        }
    }
}

mod frag {
    use crate::components::frag::*;
    // gecs's generated code has a generic parameter `K` that a component
    // named `K` collides with: give the marker another name here.
    use crate::components::frag::K as MarkerK;
    use crate::expect::{self, Check};
    use crate::harness::Bench;
    use crate::workload::FRAG_PER_TYPE;
    use gecs::prelude::*;

    ecs_world! {
        ecs_name!(FragWorld);
        ecs_archetype!(WithA, FRAG_PER_TYPE, A, Data);
        ecs_archetype!(WithB, FRAG_PER_TYPE, B, Data);
        ecs_archetype!(WithC, FRAG_PER_TYPE, C, Data);
        ecs_archetype!(WithD, FRAG_PER_TYPE, D, Data);
        ecs_archetype!(WithE, FRAG_PER_TYPE, E, Data);
        ecs_archetype!(WithF, FRAG_PER_TYPE, F, Data);
        ecs_archetype!(WithG, FRAG_PER_TYPE, G, Data);
        ecs_archetype!(WithH, FRAG_PER_TYPE, H, Data);
        ecs_archetype!(WithI, FRAG_PER_TYPE, I, Data);
        ecs_archetype!(WithJ, FRAG_PER_TYPE, J, Data);
        ecs_archetype!(WithK, FRAG_PER_TYPE, MarkerK, Data);
        ecs_archetype!(WithL, FRAG_PER_TYPE, L, Data);
        ecs_archetype!(WithM, FRAG_PER_TYPE, M, Data);
        ecs_archetype!(WithN, FRAG_PER_TYPE, N, Data);
        ecs_archetype!(WithO, FRAG_PER_TYPE, O, Data);
        ecs_archetype!(WithP, FRAG_PER_TYPE, P, Data);
        ecs_archetype!(WithQ, FRAG_PER_TYPE, Q, Data);
        ecs_archetype!(WithR, FRAG_PER_TYPE, R, Data);
        ecs_archetype!(WithS, FRAG_PER_TYPE, S, Data);
        ecs_archetype!(WithT, FRAG_PER_TYPE, T, Data);
        ecs_archetype!(WithU, FRAG_PER_TYPE, U, Data);
        ecs_archetype!(WithV, FRAG_PER_TYPE, V, Data);
        ecs_archetype!(WithW, FRAG_PER_TYPE, W, Data);
        ecs_archetype!(WithX, FRAG_PER_TYPE, X, Data);
        ecs_archetype!(WithY, FRAG_PER_TYPE, Y, Data);
        ecs_archetype!(WithZ, FRAG_PER_TYPE, Z, Data);
    }

    pub struct FragIter(FragWorld);

    /// Creates `FRAG_PER_TYPE` entities in each archetype in turn.
    macro_rules! spawn_groups {
        ($world:expr, $($arch:ident: $m:ident),+) => {$(
            for _ in 0..FRAG_PER_TYPE {
                $world.create::<$arch>(($m(1.0), Data(1.0)));
            }
        )+};
    }

    impl FragIter {
        pub fn new() -> Self {
            let mut world = FragWorld::default();
            spawn_groups!(world, WithA: A, WithB: B, WithC: C, WithD: D, WithE: E, WithF: F, WithG: G, WithH: H,
                WithI: I, WithJ: J, WithK: MarkerK, WithL: L, WithM: M, WithN: N, WithO: O, WithP: P, WithQ: Q,
                WithR: R, WithS: S, WithT: T, WithU: U, WithV: V, WithW: W, WithX: X, WithY: Y, WithZ: Z);
            FragIter(world)
        }
    }

    impl Bench for FragIter {
        fn run(&mut self) {
            ecs_iter!(self.0, |d: &mut Data| d.0 *= 2.0);
        }

        fn check(&mut self) -> Check {
            self.run();
            let mut data = Vec::new();
            ecs_iter!(self.0, |d: &Data| data.push(d.0));
            expect::frag_iter(data)
        }
    }
}

mod heavy {
    use crate::components::*;
    use crate::expect::{self, Check};
    use crate::harness::Bench;
    use crate::workload::HEAVY;
    use gecs::prelude::*;
    use rayon::prelude::*;

    ecs_world! {
        ecs_name!(HeavyWorld);
        ecs_archetype!(Body, HEAVY, Matrix4, Position, Rotation, Velocity);
    }

    pub struct HeavyCompute(HeavyWorld);

    impl HeavyCompute {
        pub fn new() -> Self {
            let mut world = HeavyWorld::default();
            for _ in 0..HEAVY {
                world.create::<Body>((matrix4(), heavy_position(), rotation(), velocity()));
            }
            HeavyCompute(world)
        }
    }

    impl Bench for HeavyCompute {
        fn run(&mut self) {
            let s = self.0.archetype_mut::<Body>().get_all_slices_mut();
            s.matrix_4
                .par_iter_mut()
                .zip(s.position.par_iter_mut())
                .for_each(|(m, p)| heavy(m, p));
        }

        fn check(&mut self) -> Check {
            self.run();
            let mut positions = Vec::new();
            ecs_iter!(self.0, |p: &Position| positions.push(*p));
            expect::heavy_compute(positions)
        }
    }
}
