//! A driver for load-independent counts of the `fragmented` workloads
//! (BENCHMARKS.md, "Fragmented"): one implementation set up, then
//! `ITERATIONS` iterations, for `valgrind --tool=cachegrind --cache-sim=yes`
//! (instructions and simulated cache misses, which other processes do not
//! change).
//!
//! ```sh
//! cargo build --release --manifest-path benches/peers/Cargo.toml --example fragmented
//! valgrind --tool=cachegrind --cache-sim=yes benches/peers/target/release/examples/fragmented archetypes iter 20
//! ```
//!
//! Implementations: `archetypes`, `ids` (ecs's two layouts), `hecs`,
//! `bevy`, `best`, and `indirect` (`churn` only: the best effort reaching
//! `F0` as ecs does, through a slot record, an id sorted by component set,
//! a bitset byte, a presence word and an id-indexed column, which sets
//! what that chain costs apart from ecs's other instructions), `colocated`
//! (`churn` only: `indirect` with the component bits in the slot record,
//! not by id), `planes` and `merged` (`churn` only: `indirect` with the
//! sets kept as one bit plane per component, apart from the column's
//! presence bits or as them); modes:
//! `iter` (Move only), `churn` (1 000 entities gain or lose `F0`, then
//! Move; ecs through `entity_mut`, one resolution of the handle), and for
//! ecs's two layouts `churn2` (the same with `remove` then `add`, each
//! resolving the handle) and `vel` (1 000 entities gain or lose
//! `Vel`, which Move names, then Move). What the places for the sets cost
//! the operations on every entity (`sets_walk`): `indirect`, `colocated`
//! or `planes` with `match` (the ids holding Move's components, in id
//! order) or `write` (a bit flipped in every set), `indirect` or `planes`
//! with `sets` (each id's whole set, in id order). A figure per iteration is the count of a long
//! run minus that of a short one, divided by the iterations between them.

use ecs::{Data, Entity, System};
use std::hint::black_box;

#[path = "common/fragmented_data.rs"]
mod data;
use data::{filler, spec, Pos, Vel, CHURN_STEP, ENTITIES, F0, F1, F2, F3, F4, F5};

fn advance(p: &mut Pos, v: &Vel) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
}

#[derive(Default)]
pub struct Move;

macro_rules! ecs_version {
    ($m:ident, $layout:ident) => {
        mod $m {
            use super::*;

            ecs::declare_context! {
                pub context Frags {
                    settings { entities: fixed(100_000), threads: 1, layout: $layout }
                    components { Pos, Vel, F0, F1, F2, F3, F4, F5: contiguous; }
                    systems { movement: Move { read: [Vel], write: [Pos] } }
                }
            }

            impl System<Frags> for Move {
                fn process(&self, data: &mut Data<'_, Frags, Self>, _: &()) {
                    data.for_each::<(&mut Pos, &Vel)>(|(p, v)| advance(p, v));
                }
            }

            pub fn run(churn: bool, vel: bool, two_calls: bool, iterations: usize) {
                let mut cx = Frags::new();
                let churned: Vec<(usize, Entity)> = cx.step(|p| data::populate!(p));
                for _ in 0..iterations {
                    cx.step(|p| {
                        if churn {
                            for &(i, e) in &churned {
                                if two_calls {
                                    if p.remove::<F0>(e).is_none() {
                                        p.add(e, F0(filler(i, 0))).unwrap();
                                    }
                                } else {
                                    let mut m = p.entity_mut(e).unwrap();
                                    if m.remove::<F0>().is_none() {
                                        m.add(F0(filler(i, 0)));
                                    }
                                }
                            }
                        }
                        if vel {
                            for &(_, e) in &churned {
                                if p.remove::<Vel>(e).is_none() {
                                    p.add(e, Vel([1.0, 1.0])).unwrap();
                                }
                            }
                        }
                        p.run_all(&());
                    });
                }
                black_box(&cx);
            }
        }
    };
}

ecs_version!(archetypes, archetypes);
ecs_version!(ids, ids);

fn hecs_run(churn: bool, iterations: usize) {
    let mut world = hecs::World::new();
    let mut churned = Vec::new();
    let mut b = hecs::EntityBuilder::new();
    for i in 0..ENTITIES {
        let (pos, vel, m) = spec(i);
        b.add(pos);
        if let Some(v) = vel {
            b.add(v);
        }
        if m & 1 != 0 {
            b.add(F0(filler(i, 0)));
        }
        if m & 2 != 0 {
            b.add(F1(filler(i, 1)));
        }
        if m & 4 != 0 {
            b.add(F2(filler(i, 2)));
        }
        if m & 8 != 0 {
            b.add(F3(filler(i, 3)));
        }
        if m & 16 != 0 {
            b.add(F4(filler(i, 4)));
        }
        if m & 32 != 0 {
            b.add(F5(filler(i, 5)));
        }
        let e = world.spawn(b.build());
        if i.is_multiple_of(CHURN_STEP) {
            churned.push((i, e));
        }
    }
    let mut q = hecs::PreparedQuery::<(&mut Pos, &Vel)>::new();
    for _ in 0..iterations {
        if churn {
            for &(i, e) in &churned {
                if world.remove_one::<F0>(e).is_err() {
                    world.insert_one(e, F0(filler(i, 0))).unwrap();
                }
            }
        }
        for (p, v) in q.query_mut(&mut world) {
            advance(p, v);
        }
    }
    black_box(&world);
}

fn bevy_run(churn: bool, iterations: usize) {
    let mut world = bevy_ecs::world::World::new();
    let mut churned = Vec::new();
    for i in 0..ENTITIES {
        let (pos, vel, m) = spec(i);
        let mut e = world.spawn(pos);
        if let Some(v) = vel {
            e.insert(v);
        }
        if m & 1 != 0 {
            e.insert(F0(filler(i, 0)));
        }
        if m & 2 != 0 {
            e.insert(F1(filler(i, 1)));
        }
        if m & 4 != 0 {
            e.insert(F2(filler(i, 2)));
        }
        if m & 8 != 0 {
            e.insert(F3(filler(i, 3)));
        }
        if m & 16 != 0 {
            e.insert(F4(filler(i, 4)));
        }
        if m & 32 != 0 {
            e.insert(F5(filler(i, 5)));
        }
        if i.is_multiple_of(CHURN_STEP) {
            churned.push((i, e.id()));
        }
    }
    let mut q = world.query::<(&mut Pos, &Vel)>();
    for _ in 0..iterations {
        if churn {
            for &(i, e) in &churned {
                let mut e = world.entity_mut(e);
                if e.take::<F0>().is_none() {
                    e.insert(F0(filler(i, 0)));
                }
            }
        }
        q.iter_mut(&mut world).for_each(|(mut p, v)| advance(&mut p, v));
    }
    black_box(&world);
}

fn best_run(churn: bool, iterations: usize) {
    let (mut pos, mut vel, mut f0) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..ENTITIES {
        let (p, v, m) = spec(i);
        if let Some(v) = v {
            pos.push(p);
            vel.push(v);
        }
        f0.push((m & 1 != 0).then(|| filler(i, 0)));
    }
    for _ in 0..iterations {
        if churn {
            for (i, f) in f0.iter_mut().enumerate().step_by(CHURN_STEP) {
                *f = if f.is_some() { None } else { Some(filler(i, 0)) };
            }
        }
        for (p, v) in pos.iter_mut().zip(&vel) {
            advance(p, v);
        }
    }
    black_box((&pos, &f0));
}

/// The moving entities' `Pos` and `Vel` side by side, and each entity's id
/// once sorted by component set (as `layout: archetypes` sorts them): what
/// `indirect` and `colocated` both start from.
fn moving_and_ids() -> (Vec<Pos>, Vec<Vel>, Vec<u32>) {
    let (mut pos, mut vel) = (Vec::new(), Vec::new());
    let mut sets = Vec::new();
    for i in 0..ENTITIES {
        let (p, v, m) = spec(i);
        if let Some(v) = v {
            pos.push(p);
            vel.push(v);
        }
        sets.push(((v.is_some() as u8) << 6 | m, i));
    }
    sets.sort();
    let mut id_of = vec![0u32; ENTITIES];
    for (id, &(_, i)) in sets.iter().enumerate() {
        id_of[i] = id as u32;
    }
    (pos, vel, id_of)
}

/// The best effort's churn and Move, with `F0` reached through ecs's chain:
/// the handle's slot record, an id sorted by component set (`layout:
/// archetypes`), the bitset byte at that id, a presence word and the
/// id-indexed column.
fn indirect_run(iterations: usize) {
    let (mut pos, vel, id_of) = moving_and_ids();
    let meta: Vec<(u32, u32)> = (0..ENTITIES).map(|i| (0u32, id_of[i])).collect();
    let mut bits = vec![0u8; ENTITIES];
    let mut present = vec![0u64; ENTITIES.div_ceil(64)];
    let mut col = vec![[0f32; 4]; ENTITIES];
    for (i, &id) in id_of.iter().enumerate() {
        let (_, _, m) = spec(i);
        let id = id as usize;
        if m & 1 != 0 {
            bits[id] |= 4;
            present[id / 64] |= 1 << (id % 64);
            col[id] = filler(i, 0);
        }
    }
    let churned: Vec<(usize, u32, u32)> = (0..ENTITIES).step_by(CHURN_STEP).map(|i| (i, i as u32, 0u32)).collect();
    for _ in 0..iterations {
        for &(i, slot, generation) in &churned {
            let (g, id) = meta[slot as usize];
            if g != generation {
                continue;
            }
            let id = id as usize;
            if bits[id] & 4 != 0 {
                bits[id] &= !4;
                present[id / 64] &= !(1 << (id % 64));
            } else {
                col[id] = filler(i, 0);
                present[id / 64] |= 1 << (id % 64);
                bits[id] |= 4;
            }
        }
        for (p, v) in pos.iter_mut().zip(&vel) {
            advance(p, v);
        }
        black_box((&mut pos, &mut bits, &mut present, &mut col));
    }
}

/// `indirect` with the entity's component bits kept in its slot record
/// (generation, id, an 8-byte set: 16 bytes; this context's own set,
/// `Bits8`, is one byte, which would make 12) instead
/// of by id: what keeping them beside the generation would leave of the
/// chain (the record, the presence word, the column), measured before
/// making that change to the entity table.
fn colocated_run(iterations: usize) {
    let (mut pos, vel, id_of) = moving_and_ids();
    let mut meta: Vec<(u32, u32, u64)> = (0..ENTITIES).map(|i| (0u32, id_of[i], 0u64)).collect();
    let mut present = vec![0u64; ENTITIES.div_ceil(64)];
    let mut col = vec![[0f32; 4]; ENTITIES];
    for (i, m) in meta.iter_mut().enumerate() {
        let (_, _, f) = spec(i);
        let id = m.1 as usize;
        if f & 1 != 0 {
            m.2 |= 4;
            present[id / 64] |= 1 << (id % 64);
            col[id] = filler(i, 0);
        }
    }
    let churned: Vec<(usize, u32, u32)> = (0..ENTITIES).step_by(CHURN_STEP).map(|i| (i, i as u32, 0u32)).collect();
    for _ in 0..iterations {
        for &(i, slot, generation) in &churned {
            let m = &mut meta[slot as usize];
            if m.0 != generation {
                continue;
            }
            let id = m.1 as usize;
            if m.2 & 4 != 0 {
                m.2 &= !4;
                present[id / 64] &= !(1 << (id % 64));
            } else {
                col[id] = filler(i, 0);
                present[id / 64] |= 1 << (id % 64);
                m.2 |= 4;
            }
        }
        for (p, v) in pos.iter_mut().zip(&vel) {
            advance(p, v);
        }
        black_box((&mut pos, &mut meta, &mut present, &mut col));
    }
}

/// `indirect` with the entities' sets kept as one bit plane per component
/// (bit `id` of plane `c`: whether entity `id` holds `c`) instead of one
/// set per id: the toggle tests and flips a bit in `F0`'s plane, eight
/// times denser than the bytes by id, so the 1 000 toggles share its
/// lines as they share the presence words'. With `merged`, the plane is
/// the column's presence bitset itself (one word tested and written where
/// `indirect` and `planes` touch a set and a presence word).
fn planes_run(merged: bool, iterations: usize) {
    let (mut pos, vel, id_of) = moving_and_ids();
    let meta: Vec<(u32, u32)> = (0..ENTITIES).map(|i| (0u32, id_of[i])).collect();
    let words = ENTITIES.div_ceil(64);
    let mut plane = vec![0u64; words];
    let mut present = vec![0u64; words];
    let mut col = vec![[0f32; 4]; ENTITIES];
    for (i, &id) in id_of.iter().enumerate() {
        let (_, _, m) = spec(i);
        let id = id as usize;
        if m & 1 != 0 {
            plane[id / 64] |= 1 << (id % 64);
            present[id / 64] |= 1 << (id % 64);
            col[id] = filler(i, 0);
        }
    }
    let churned: Vec<(usize, u32, u32)> = (0..ENTITIES).step_by(CHURN_STEP).map(|i| (i, i as u32, 0u32)).collect();
    for _ in 0..iterations {
        for &(i, slot, generation) in &churned {
            let (g, id) = meta[slot as usize];
            if g != generation {
                continue;
            }
            let (w, bit) = (id as usize / 64, 1u64 << (id % 64));
            if plane[w] & bit != 0 {
                plane[w] &= !bit;
                if !merged {
                    present[w] &= !bit;
                }
            } else {
                col[id as usize] = filler(i, 0);
                if !merged {
                    present[w] |= bit;
                }
                plane[w] |= bit;
            }
        }
        for (p, v) in pos.iter_mut().zip(&vel) {
            advance(p, v);
        }
        black_box((&mut pos, &mut plane, &mut present, &mut col));
    }
}

/// What walking every entity's set costs in each place the sets can be
/// kept: `indirect`'s (by id, one byte each, `layout: archetypes`'s order)
/// and `colocated`'s (in the 16-byte slot record, reached from the id
/// through `slot_of`, as an operation on many entities that must follow
/// id order would). `match`: the ids whose set holds `Pos` and `Vel`
/// (Move's signature), collected in id order, as matching a bulk change
/// does; `write`: a bit flipped in every live entity's set, as
/// `add_to_all`/`remove_from_all` do (order free, so `colocated` walks
/// the records by slot).
fn sets_walk(place: &str, mode: &str, iterations: usize) {
    let write = mode == "write";
    let (_, _, id_of) = moving_and_ids();
    let set_of = |i: usize| {
        let (_, v, m) = spec(i);
        1 | (v.is_some() as u8) << 1 | m << 2
    };
    let mut by_id = vec![0u8; ENTITIES];
    let mut slot_of = vec![0u32; ENTITIES];
    let mut meta: Vec<(u32, u32, u64)> = (0..ENTITIES).map(|i| (0, id_of[i], set_of(i) as u64)).collect();
    for i in 0..ENTITIES {
        by_id[id_of[i] as usize] = set_of(i);
        slot_of[id_of[i] as usize] = i as u32;
    }
    // `planes`: one bit plane per component (see `planes_run`), Pos's, Vel's
    // and F5's here.
    let words = ENTITIES.div_ceil(64);
    let mut planes = vec![[0u64; 3]; words];
    for (id, s) in by_id.iter().enumerate() {
        for (k, c) in [0, 1, 7].into_iter().enumerate() {
            planes[id / 64][k] |= ((*s as u64 >> c) & 1) << (id % 64);
        }
    }
    let (colocated, planar) = (place == "colocated", place == "planes");
    let compose = mode == "sets";
    let mut separate = [(); 8].map(|_| vec![0u64; words]);
    for (id, s) in by_id.iter().enumerate() {
        for (c, plane) in separate.iter_mut().enumerate() {
            plane[id / 64] |= ((*s as u64 >> c) & 1) << (id % 64);
        }
    }
    const MOVE: u8 = 0b11;
    let mut matched: Vec<u32> = Vec::with_capacity(ENTITIES);
    for _ in 0..iterations {
        if compose {
            // Each id's whole set, in id order, as sorting ids by set or
            // reclaiming an entity's components needs it: one byte by id,
            // or one bit from each of the 8 separate planes.
            let mut sum = 0u64;
            if planar {
                // A word of each plane at a time: 64 ids' sets from 8 loads.
                for w in 0..words {
                    let ws = separate.each_ref().map(|plane| plane[w]);
                    for b in 0..64.min(ENTITIES - w * 64) {
                        let mut set = 0u64;
                        for (c, word) in ws.iter().enumerate() {
                            set |= (word >> b & 1) << c;
                        }
                        sum = sum.wrapping_add(set);
                    }
                }
            } else {
                for s in &by_id {
                    sum = sum.wrapping_add(*s as u64);
                }
            }
            black_box(sum);
            continue;
        }
        if planar {
            if write {
                planes.iter_mut().for_each(|w| w[2] = !w[2]);
            } else {
                matched.clear();
                for (w, p) in planes.iter().enumerate() {
                    let mut m = p[0] & p[1];
                    while m != 0 {
                        matched.push((w * 64) as u32 + m.trailing_zeros());
                        m &= m - 1;
                    }
                }
            }
            black_box((&mut planes, &mut matched));
            continue;
        }
        match (colocated, write) {
            (false, false) => {
                matched.clear();
                for (id, s) in by_id.iter().enumerate() {
                    if s & MOVE == MOVE {
                        matched.push(id as u32);
                    }
                }
            }
            (true, false) => {
                matched.clear();
                for (id, &slot) in slot_of.iter().enumerate() {
                    if meta[slot as usize].2 as u8 & MOVE == MOVE {
                        matched.push(id as u32);
                    }
                }
            }
            (false, true) => by_id.iter_mut().for_each(|s| *s ^= 1 << 7),
            (true, true) => meta.iter_mut().for_each(|m| m.2 ^= 1 << 7),
        }
        black_box((&mut by_id, &mut meta, &mut matched));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: fragmented archetypes|ids|hecs|bevy|best|indirect|colocated|planes|merged iter|churn|churn2|vel|match|write|sets ITERATIONS";
    let (which, mode, iterations) = match &args[1..] {
        [w, m, n] => (w.as_str(), m.as_str(), n.parse::<usize>().expect(usage)),
        _ => panic!("{usage}"),
    };
    // `churn2`: ecs's churn as `remove` then `add` on the proxy, each
    // resolving the handle (the table's ecs resolves it once, `entity_mut`).
    if let ("indirect" | "colocated" | "planes", "match" | "write") | ("indirect" | "planes", "sets") = (which, mode) {
        return sets_walk(which, mode, iterations);
    }
    let two_calls = mode == "churn2";
    let (churn, vel) = match mode {
        "iter" => (false, false),
        "churn" => (true, false),
        "churn2" if matches!(which, "archetypes" | "ids") => (true, false),
        "vel" if matches!(which, "archetypes" | "ids") => (false, true),
        _ => panic!("{usage}"),
    };
    match which {
        "archetypes" => archetypes::run(churn, vel, two_calls, iterations),
        "ids" => ids::run(churn, vel, two_calls, iterations),
        "hecs" => hecs_run(churn, iterations),
        "bevy" => bevy_run(churn, iterations),
        "best" => best_run(churn, iterations),
        "indirect" if churn => indirect_run(iterations),
        "colocated" if churn => colocated_run(iterations),
        "planes" | "merged" if churn => planes_run(which == "merged", iterations),
        _ => panic!("{usage}"),
    }
}
