//! `frag_iter`: 26 marker components on 20 entities each, all with `Data`;
//! a prepared query writes `Data` from the step proxy, or (the variant) one
//! system does, run by `run_all`.

use crate::components::frag::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::FRAG_PER_TYPE;
use ecs::{Data as Proxy, Entity, PreparedQuery, System};

/// Doubles every `Data`.
#[derive(Default)]
pub struct Double;

ecs::declare_context! {
    pub context Frag {
        settings { entities: fixed(520), threads: 1 }
        components {
            Data, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z: contiguous;
        }
        systems { double: Double { write: [Data] } }
    }
}

impl System<Frag> for Double {
    fn process(&self, data: &mut Proxy<'_, Frag, Self>, _: &()) {
        data.for_each::<&mut Data>(|d| d.0 *= 2.0);
    }
}

pub struct FragIter {
    world: Frag,
    entities: Vec<Entity>,
    /// `Some`: the table's ecs, a query made once and kept, run from the
    /// step proxy (what the peers run: a prepared query, no scheduler);
    /// `None`: the variant, the query in a system run by `run_all`.
    prepared: Option<PreparedQuery<Frag, &'static mut Data>>,
}

/// Spawns `FRAG_PER_TYPE` entities with `Data` and marker `$m`, for each
/// marker in turn.
macro_rules! spawn_groups {
    ($p:expr, $out:expr, $($m:ident),+) => {$(
        for _ in 0..FRAG_PER_TYPE {
            $out.push($p.spawn(($m(1.0), Data(1.0))).expect("room"));
        }
    )+};
}

impl FragIter {
    /// With `prepared`, iterated with a [`PreparedQuery`]; otherwise by the
    /// system, run with `step(|p| p.run_all(&()))`.
    pub fn new(prepared: bool) -> Self {
        let mut world = Frag::new();
        let entities = world.step(|p| {
            let mut out = Vec::new();
            spawn_groups!(p, out, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
            out
        });
        FragIter {
            world,
            entities,
            prepared: prepared.then(PreparedQuery::new),
        }
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        match &mut self.prepared {
            Some(q) => self.world.step(|p| q.for_each(p, |d| d.0 *= 2.0)),
            None => self.world.step(|p| p.run_all(&())),
        }
    }

    fn check(&mut self) -> Check {
        self.run();
        let es = &self.entities;
        let data: Vec<f32> = self
            .world
            .step(|p| es.iter().filter_map(|&e| p.get::<Data>(e).map(|d| d.0)).collect());
        expect::frag_iter(data)
    }
}
