//! Saving and loading 100 000 entities of two components with serde_json:
//! `Context::save` and `Context::restore` against the yardstick, the same
//! values in a hand-written `Vec<(Position, Velocity)>` serialized and
//! deserialized with the same format, in one run, as ratios.
//!
//! The context's snapshot holds more than the yardstick: the entity table
//! (each slot's generation and each id's slot, so that handles survive)
//! and each value's id, which the yardstick has no need for; the ratio is
//! the price of that, and of going through the context.
//!
//! `cargo bench --bench save` (`-- --rounds N`, default 11).

use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

const N: usize = 100_000;

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Velocity {
    pub x: f32,
    pub y: f32,
}

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(100_000), threads: 1, serde: all }
        components { Position, Velocity: contiguous; }
    }
}

fn values() -> impl Iterator<Item = (Position, Velocity)> {
    (0..N).map(|i| {
        let f = i as f32;
        (Position { x: f, y: -f }, Velocity { x: 0.5 * f, y: 1.0 })
    })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rounds = std::env::args()
        .skip_while(|a| a != "--rounds")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(11usize);
    let mut world = World::new();
    world.step(|p| p.spawn_batch(values()).map(drop)).unwrap();
    let plain: Vec<(Position, Velocity)> = values().collect();

    let (mut save, mut load, mut plain_save, mut plain_load) = (vec![], vec![], vec![], vec![]);
    let (mut json, mut plain_json) = (String::new(), String::new());
    for _ in 0..rounds {
        let t = Instant::now();
        json = serde_json::to_string(&world.save()).unwrap();
        save.push(t.elapsed());

        let t = Instant::now();
        plain_json = serde_json::to_string(&plain).unwrap();
        plain_save.push(t.elapsed());

        let mut loaded = World::new();
        let t = Instant::now();
        loaded.restore(serde_json::from_str(&json).unwrap()).unwrap();
        load.push(t.elapsed());
        assert_eq!(loaded.len(), N);
        black_box(&loaded);

        let t = Instant::now();
        let back: Vec<(Position, Velocity)> = serde_json::from_str(&plain_json).unwrap();
        plain_load.push(t.elapsed());
        assert_eq!(back.len(), N);
        black_box(back);
    }
    let (save, load, plain_save, plain_load) = (median(save), median(load), median(plain_save), median(plain_load));
    println!("save/load of {N} entities (Position, Velocity), serde_json, median of {rounds} rounds");
    println!(
        "  save: context {:>8.2} ms   Vec {:>8.2} ms   ratio {:.2}   ({} vs {} bytes)",
        save.as_secs_f64() * 1e3,
        plain_save.as_secs_f64() * 1e3,
        save.as_secs_f64() / plain_save.as_secs_f64(),
        json.len(),
        plain_json.len()
    );
    println!(
        "  load: context {:>8.2} ms   Vec {:>8.2} ms   ratio {:.2}",
        load.as_secs_f64() * 1e3,
        plain_load.as_secs_f64() * 1e3,
        load.as_secs_f64() / plain_load.as_secs_f64()
    );
}
