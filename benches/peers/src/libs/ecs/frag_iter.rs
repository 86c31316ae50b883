//! `frag_iter`: 26 marker components on 20 entities each, all with `Data`;
//! one system writes `Data`.

use crate::components::frag::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::FRAG_PER_TYPE;
use ecs::{Data as Proxy, Entity, System};

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
    pub fn new() -> Self {
        let mut world = Frag::new();
        let entities = world.step(|p| {
            let mut out = Vec::new();
            spawn_groups!(p, out, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
            out
        });
        FragIter { world, entities }
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        self.world.step(|p| p.run_all(&()));
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
