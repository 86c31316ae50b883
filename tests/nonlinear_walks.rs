//! Walks of queries mixing a linear column (`contiguous`) with columns
//! reached by id (`sparse_set`, `hash_map`) and ids, and of queries of the
//! latter only: over one run of ids and over scattered ids (after kills),
//! in blocks and in place. An optimised build walks a run from its first
//! id (ids and values by id of `start + k`), a debug build outside Miri
//! fetches every item by its id (`walk_body!` in
//! `ecs-core/src/proxy/data.rs`); either way every entity must get its own
//! values, once.

use ecs::{Data, Entity, EntityId, System};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sp(pub u32);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hm(pub u32);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct P(pub u32);

#[derive(Default)]
pub struct Bump;
#[derive(Default)]
pub struct Blocks;
#[derive(Default)]
pub struct InPlace;

ecs::declare_context! {
    pub context World {
        components { Sp: sparse_set; Hm: hash_map; P: contiguous; }
        systems {
            bump: Bump { write: [Hm] }
            blocks: Blocks { read: [Hm, P], write: [Sp], output: Vec<(EntityId, u32)>, after: [bump] }
            in_place: InPlace { read: [Sp, Hm], output: Vec<(EntityId, u32)>, after: [blocks] }
        }
    }
}

impl System<World> for Bump {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each::<&mut Hm>(|h| h.0 += 1);
    }
}

impl System<World> for Blocks {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.output().clear();
        data.for_entities_in_blocks::<(EntityId, &mut Sp, &Hm, &P)>(|view, (id, s, h, p)| {
            s.0 += h.0 + p.0;
            view.output().push((id, s.0));
        });
    }
}

impl System<World> for InPlace {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.output().clear();
        data.for_entities_in_place::<(EntityId, &Sp, &Hm)>(|view, (id, s, h)| {
            view.output().push((id, s.0 * 1000 + h.0))
        });
    }
}

/// `v` sorted by id.
fn sorted(mut v: Vec<(EntityId, u32)>) -> Vec<(EntityId, u32)> {
    v.sort_by_key(|&(id, _)| id.index());
    v
}

#[test]
fn nonlinear_queries_walk_runs_and_scattered_ids() {
    for n in [1u32, 7, 8, 9, 30] {
        let mut world = World::new();
        let es: Vec<Entity> = world.step(|p| (0..n).map(|i| p.spawn((Sp(0), Hm(i), P(0))).unwrap()).collect());
        // One run of ids: Hm becomes i + 1, Sp i + 1.
        world.step(|p| p.run_all(&()));
        world.step(|p| {
            let expect: Vec<_> = (0..n).map(|i| (p.id_of(es[i as usize]).unwrap(), i + 1)).collect();
            assert_eq!(
                sorted(p.outputs::<Blocks>().concat()),
                sorted(expect.clone()),
                "{n} entities"
            );
            let expect: Vec<_> = expect.iter().map(|&(id, s)| (id, s * 1000 + s)).collect();
            assert_eq!(sorted(p.outputs::<InPlace>().concat()), sorted(expect), "{n} entities");
            // Scattered ids: every third entity killed.
            for i in (0..n).step_by(3) {
                assert!(p.kill(es[i as usize]));
            }
        });
        // Survivors: Hm i + 2, Sp (i + 1) + (i + 2).
        world.step(|p| p.run_all(&()));
        world.step(|p| {
            let alive: Vec<u32> = (0..n).filter(|i| i % 3 != 0).collect();
            let expect: Vec<_> = alive
                .iter()
                .map(|&i| (p.id_of(es[i as usize]).unwrap(), 2 * i + 3))
                .collect();
            assert_eq!(sorted(p.outputs::<Blocks>().concat()), sorted(expect), "{n} entities");
            let expect: Vec<_> = alive
                .iter()
                .map(|&i| (p.id_of(es[i as usize]).unwrap(), (2 * i + 3) * 1000 + i + 2))
                .collect();
            assert_eq!(sorted(p.outputs::<InPlace>().concat()), sorted(expect), "{n} entities");
        });
    }
}
