//! Seed 002's benchmark: 65 535 entities; Move, then Collision against one
//! fixed rectangle, then Render folded into a checksum, every frame, in an
//! ecs context and by hand, checked to agree frame by frame.
//!
//! `cargo run --release --example move_collide_render -- [FRAMES] [ecs|handwritten]`
//! (default 600 frames) prints the collision count and checksum of the
//! last frame and each version's time per frame; naming one version runs
//! only it (for `valgrind --tool=callgrind`, whose instruction counts the
//! machine's load does not change). The peer benchmark
//! (`benches/peers`, workload `move_collide_render`) measures the same
//! frame against bevy_ecs and hecs.

mod sim;

use sim::*;
use std::time::Instant;

scene_context! {
    /// The scene with storage for exactly its entities, on the caller's thread.
    pub context Scene(SceneSystems) { entities: fixed(65_535), threads: 1 }
    parallelism: none
}

fn main() {
    let frames: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 600,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("usage: move_collide_render [FRAMES]: {e}");
            std::process::exit(2);
        }
    };
    if let Some(only) = std::env::args().nth(2) {
        let last = match only.as_str() {
            "ecs" => {
                let mut scene = Scene::with_scene(None);
                (0..frames).fold((0, 0), |_, _| scene.frame())
            }
            "handwritten" => {
                let mut by_hand = Handwritten::new();
                (0..frames).fold((0, 0), |_, _| by_hand.frame())
            }
            other => {
                eprintln!("usage: move_collide_render [FRAMES] [ecs|handwritten]: not {other:?}");
                std::process::exit(2);
            }
        };
        println!("{only}: last frame {} collisions, checksum {:#018x}", last.0, last.1);
        return;
    }
    let mut scene = Scene::with_scene(None);
    let mut by_hand = Handwritten::new();
    let (mut ecs_time, mut hand_time) = (0.0, 0.0);
    let mut last = (0, 0);
    for frame in 0..frames {
        let start = Instant::now();
        let ours = scene.frame();
        ecs_time += start.elapsed().as_secs_f64();
        let start = Instant::now();
        let theirs = by_hand.frame();
        hand_time += start.elapsed().as_secs_f64();
        assert_eq!(ours, theirs, "frame {frame}: ecs and the hand-written version differ");
        last = ours;
    }
    let per = |t: f64| t / frames.max(1) as f64 * 1e6;
    println!(
        "{ENTITIES} entities, {frames} frames: last frame {} collisions, checksum {:#018x}",
        last.0, last.1
    );
    println!(
        "ecs {:.1} µs/frame, hand-written {:.1} µs/frame ({:.2}x)",
        per(ecs_time),
        per(hand_time),
        ecs_time / hand_time
    );
}
