//! Every storage strategy under fixed and dynamic limits, through a context:
//! add, replace, remove, get, system iteration, reclamation.

use ecs::{Data, EntityId, System};

#[derive(Clone, Debug, PartialEq)]
pub struct Val(pub Vec<u32>);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Other(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Mark;

#[derive(Default)]
pub struct Bump;

macro_rules! storage_case {
    ($test:ident, $limit:expr, { $($components:tt)* }) => {
        mod $test {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: $limit, threads: 2 }
                    components { $($components)* Mark: tag; }
                    systems { bump: Bump { read: [Other, Mark], write: [Val], parallelism: split_every(5) } }
                }
            }

            impl System<Ctx> for Bump {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<(&mut Val, &Other)>(|(v, o)| v.0.push(o.0));
                    lookups_find_exactly_the_systems_entities(data);
                    walks_with_lookups_find_exactly_the_systems_entities(data);
                    reads_find_exactly_this_subtasks_entities(data);
                }
            }

            #[test]
            fn life_cycle() {
                check::<Ctx>(Ctx::new());
            }
        }
    };
}

/// `lookup` finds every entity of the system, in this subtask or another,
/// with the values `get` reads, and no other id (the ids reach past every
/// entity created, and entities lacking `Mark` or `Val` hold `Other`).
fn lookups_find_exactly_the_systems_entities<Cx, S>(data: &Data<'_, Cx, S>)
where
    Cx: ecs::traits::ContextDecl,
    S: ecs::traits::SystemOf<Cx> + ecs::traits::CanReadShared<Cx, Other> + ecs::traits::CanReadShared<Cx, Mark>,
    Other: ecs::traits::Component<Cx>,
    Mark: ecs::traits::Component<Cx>,
{
    let mut found = 0;
    // The prepared lookup agrees with `lookup` on every id.
    let prepared = data.prepare_lookup::<(EntityId, &Other, &Mark)>();
    for raw in (0..80).chain([u32::MAX >> 1, u32::MAX]) {
        let id = EntityId::from_bits(raw);
        let item = data.lookup::<(EntityId, &Other, &Mark)>(id);
        assert_eq!(
            prepared
                .get(id)
                .map(|(i, o, m)| (i, o as *const Other, m as *const Mark)),
            item.map(|(i, o, m)| (i, o as *const Other, m as *const Mark)),
            "prepared lookup of id {raw}"
        );
        for bound in [0, 1, 9, 40, 79, u32::MAX] {
            assert_eq!(
                prepared.below(EntityId::from_bits(bound)).get(id).map(|(i, o, m)| (
                    i,
                    o as *const Other,
                    m as *const Mark
                )),
                item.filter(|_| raw < bound)
                    .map(|(i, o, m)| (i, o as *const Other, m as *const Mark)),
                "prepared lookup of id {raw} below {bound}"
            );
        }
        assert_eq!(
            item.is_some(),
            data.all_entities().contains(&id),
            "membership of id {raw}"
        );
        if let Some((got, other, mark)) = item {
            assert_eq!(
                (got, Some(other), Some(mark)),
                (id, data.get::<Other>(id), data.get::<Mark>(id))
            );
            found += 1;
        }
    }
    assert_eq!(
        found,
        data.all_entity_count(),
        "in subtask {} of {}",
        data.subtask_index(),
        data.subtask_count()
    );
}

/// `for_entities_with_lookup` visits exactly this subtask's entities, and
/// its lookup (each of its ways: the system's entities as a run from 0, a
/// run from elsewhere, a set) agrees with `lookup` on every id, and
/// `below` with `lookup` of the ids below the visited entity's.
fn walks_with_lookups_find_exactly_the_systems_entities<Cx, S>(data: &mut Data<'_, Cx, S>)
where
    Cx: ecs::traits::ContextDecl,
    S: ecs::traits::SystemOf<Cx> + ecs::traits::CanReadShared<Cx, Other> + ecs::traits::CanReadShared<Cx, Mark>,
    Other: ecs::traits::Component<Cx>,
    Mark: ecs::traits::Component<Cx>,
{
    let mut visited = Vec::new();
    data.for_entities_with_lookup::<EntityId, (EntityId, &Other)>(|view, own, lookup| {
        visited.push(own);
        for raw in (0..80).chain([u32::MAX >> 1, u32::MAX]) {
            let id = EntityId::from_bits(raw);
            let want = view.lookup::<(EntityId, &Other)>(id);
            let got = lookup.get(id);
            assert_eq!(
                got.map(|(i, o)| (i, o as *const Other)),
                want.map(|(i, o)| (i, o as *const Other)),
                "lookup of id {raw} from {own:?}"
            );
            assert_eq!(
                lookup.below(own).get(id).map(|(i, o)| (i, o as *const Other)),
                want.filter(|_| id < own).map(|(i, o)| (i, o as *const Other)),
                "lookup of id {raw} below {own:?}"
            );
        }
    });
    assert_eq!(
        visited,
        data.entities(),
        "the walk visits this subtask's entities in order"
    );
}

/// `read` and `write` reach exactly this subtask's own entities (the ids
/// reach past every entity created).
fn reads_find_exactly_this_subtasks_entities<Cx, S>(data: &mut Data<'_, Cx, S>)
where
    Cx: ecs::traits::ContextDecl,
    S: ecs::traits::SystemOf<Cx>
        + ecs::traits::CanRead<Cx, Other>
        + ecs::traits::CanRead<Cx, Val>
        + ecs::traits::CanWrite<Cx, Val>,
    Other: ecs::traits::Component<Cx>,
    Val: ecs::traits::Component<Cx>,
{
    for raw in 0..80 {
        let id = EntityId::from_bits(raw);
        let own = data.entities().contains(&id);
        assert_eq!(data.read::<Other>(id).is_some(), own, "read of id {raw}");
        assert_eq!(data.write::<Val>(id).is_some(), own, "write of id {raw}");
    }
    // Pairs: both must be this subtask's and distinct; the items are theirs.
    for a in (0..80).map(EntityId::from_bits) {
        for b in (0..80).map(EntityId::from_bits) {
            let own = |id| data.entities().contains(&id);
            let want = own(a) && own(b) && a != b;
            let read =
                |data: &Data<'_, Cx, S>, id| (*data.read::<Other>(id).unwrap(), data.read::<Val>(id).unwrap().0.len());
            let expected = want.then(|| [read(data, a), read(data, b)]);
            let got = data
                .query_many::<(&mut Val, &Other), 2>([a, b])
                .map(|items| items.map(|(val, other)| (*other, val.0.len())));
            assert_eq!(got, expected, "pair {a:?} {b:?}");
        }
        let triple = data.query_many::<&Other, 3>([a, a, a]);
        assert!(triple.is_none(), "an id twice");
    }
}

fn check<Cx>(mut ctx: impl std::ops::DerefMut<Target = ecs::Context<Cx>>)
where
    Cx: ecs::traits::ContextDecl + ecs::traits::Dispatch<()>,
    Val: ecs::traits::Component<Cx>,
    Other: ecs::traits::Component<Cx>,
    Mark: ecs::traits::Component<Cx>,
    Bump: ecs::traits::SystemOf<Cx>,
{
    let es = ctx.step(|p| {
        (0..40u32)
            .map(|i| {
                let e = p.spawn((Val(vec![i]), Other(i))).unwrap();
                if i % 2 == 0 {
                    p.add(e, Mark).unwrap();
                }
                e
            })
            .collect::<Vec<_>>()
    });
    ctx.step(|p| {
        assert_eq!(p.add(es[1], Val(vec![100])).unwrap(), Some(Val(vec![1])));
        assert_eq!(p.remove::<Val>(es[3]), Some(Val(vec![3])));
        assert_eq!(p.remove::<Val>(es[3]), None);
        p.run_all(&());
    });
    ctx.step(|p| {
        for (i, &e) in es.iter().enumerate() {
            let want = match i {
                3 => None,
                1 => Some(Val(vec![100])),
                i if i % 2 == 0 => Some(Val(vec![i as u32, i as u32])),
                i => Some(Val(vec![i as u32])),
            };
            assert_eq!(p.get::<Val>(e).cloned(), want, "entity {i}");
        }
        for &e in &es[..20] {
            p.kill(e);
        }
    });
    // Reclaiming the first 20 packed the ids: the other 20 hold ids 0..20,
    // their values and subscriptions moved with them.
    let survivors = &es[20..];
    ctx.step(|p| {
        let mut ids: Vec<u32> = survivors.iter().map(|&e| p.id_of(e).unwrap().to_bits()).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..20).collect::<Vec<_>>());
        for (i, &e) in es.iter().enumerate().skip(20) {
            let i = i as u32;
            assert_eq!(p.get::<Other>(e), Some(&Other(i)), "entity {i}");
            assert_eq!(p.has::<Mark>(e), i.is_multiple_of(2), "entity {i}");
            let val = if i.is_multiple_of(2) { vec![i, i] } else { vec![i] };
            assert_eq!(p.get::<Val>(e), Some(&Val(val)), "entity {i}");
        }
    });
    let mut subscribed: Vec<EntityId> = ctx.subscribers::<Bump>().to_vec();
    subscribed.sort_unstable();
    let mut want: Vec<EntityId> = survivors.iter().step_by(2).map(|&e| ctx.id_of(e).unwrap()).collect();
    want.sort_unstable();
    assert_eq!(subscribed, want, "the even survivors hold Mark");
    // Reclaimed slots are reused; their old values are gone.
    let created = ctx.step(|p| {
        let created: Vec<_> = (0..20).map(|_| p.create().unwrap()).collect();
        for &e in &created {
            assert!(es[..20].iter().any(|old| old.slot() == e.slot()));
            assert_eq!(p.get::<Val>(e), None);
            assert!(!p.has::<Mark>(e));
        }
        assert_eq!(p.get::<Val>(es[30]), Some(&Val(vec![30, 30])));
        created
    });
    // The system runs over the moved entities (its lookups check each one).
    ctx.step(|p| p.run_all(&()));
    ctx.step(|p| assert_eq!(p.get::<Val>(es[30]), Some(&Val(vec![30, 30, 30]))));
    // A system whose entities are one run of ids that starts past 0 and ends
    // before the last entity: lookups test membership against the run's
    // bounds, and must find exactly ids 5..15.
    ctx.step(|p| {
        for &e in survivors.iter().chain(&created) {
            p.kill(e);
        }
    });
    let fresh = ctx.step(|p| {
        (0..20u32)
            .map(|i| {
                let e = p.spawn((Val(vec![i]), Other(i))).unwrap();
                if (5..15).contains(&i) {
                    p.add(e, Mark).unwrap();
                }
                e
            })
            .collect::<Vec<_>>()
    });
    ctx.step(|_| {});
    let run: Vec<u32> = ctx.subscribers::<Bump>().iter().map(|id| id.to_bits()).collect();
    assert_eq!(run, (5..15).collect::<Vec<_>>(), "the Mark holders are one run");
    ctx.step(|p| p.run_all(&()));
    // And one run from id 0, for which `for_entities_with_lookup` compiles
    // a walk of its own.
    ctx.step(|p| {
        for &e in &fresh {
            p.kill(e);
        }
    });
    ctx.step(|p| {
        for i in 0..20u32 {
            let e = p.spawn((Val(vec![i]), Other(i))).unwrap();
            if i < 15 {
                p.add(e, Mark).unwrap();
            }
        }
    });
    ctx.step(|_| {});
    let run: Vec<u32> = ctx.subscribers::<Bump>().iter().map(|id| id.to_bits()).collect();
    assert_eq!(run, (0..15).collect::<Vec<_>>(), "the Mark holders are one run from 0");
    ctx.step(|p| p.run_all(&()));
}

storage_case!(contiguous_fixed, fixed(64), { Val, Other: contiguous; });
storage_case!(contiguous_dynamic, dynamic(2), { Val, Other: contiguous; });
storage_case!(sparse_set_fixed, fixed(64), { Val: sparse_set; Other: contiguous; });
storage_case!(sparse_set_dynamic, dynamic(2), { Val: sparse_set; Other: contiguous; });
storage_case!(hash_map_fixed, fixed(64), { Val: hash_map; Other: contiguous; });
storage_case!(hash_map_dynamic, dynamic(2), { Val: hash_map; Other: contiguous; });
storage_case!(grouped_fixed, fixed(64), { (Val, Other): grouped; });
storage_case!(grouped_dynamic, dynamic(2), { (Val, Other): grouped; });
