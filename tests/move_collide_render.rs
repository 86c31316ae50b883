//! Seed 002's benchmark scene (`examples/move_collide_render`): ecs
//! computes the same collision counts and checksums as the hand-written
//! version, frame after frame, in fixed and dynamic contexts, on one and
//! two threads, with the systems whole or split in subtasks.

#[path = "../examples/move_collide_render/sim.rs"]
mod sim;

use sim::*;

scene_context! {
    /// Storage for exactly the entities, one thread.
    pub context Fixed(FixedSystems) { entities: fixed(65_535), threads: 1 }
    parallelism: none
}

scene_context! {
    /// Growing storage, systems split, two threads.
    pub context Dynamic(DynamicSystems) { entities: dynamic(100), inner_parallelism: allow, threads: 2 }
    parallelism: split_every(4096)
}

scene_context! {
    /// Fixed storage, systems split per core.
    pub context Split(SplitSystems) { entities: fixed(65_535), inner_parallelism: allow, threads: 2 }
    parallelism: split_evenly_per_core
}

/// Runs `frames` frames of `frame` beside the hand-written version; every
/// frame's count and checksum agree, and the scene is not degenerate.
fn agrees(mut frame: impl FnMut() -> (u32, u64), frames: usize) {
    let mut by_hand = Handwritten::new();
    let mut counts = Vec::new();
    for k in 0..frames {
        let want = by_hand.frame();
        assert_eq!(frame(), want, "frame {k}");
        counts.push(want.0);
    }
    assert!(counts.iter().all(|&c| c > 0 && (c as usize) < ENTITIES), "{counts:?}");
    assert!(
        counts.windows(2).any(|w| w[0] != w[1]),
        "the count changes as entities move: {counts:?}"
    );
}

#[test]
fn fixed_on_one_thread() {
    let mut cx = Fixed::with_scene(None);
    agrees(|| cx.frame(), 40);
}

#[test]
fn dynamic_split_on_one_and_two_threads() {
    for threads in [1, 2] {
        let mut cx = Dynamic::with_scene(Some(threads));
        agrees(|| cx.frame(), 20);
        assert_eq!(
            cx.outputs::<Collide>().len(),
            ENTITIES.div_ceil(4096),
            "split in subtasks"
        );
    }
}

#[test]
fn split_per_core_on_two_threads() {
    let mut cx = Split::with_scene(Some(2));
    agrees(|| cx.frame(), 20);
}

#[test]
fn the_first_frame_matches_a_plain_loop() {
    let (mut count, mut checksum) = (0, 0u64);
    for i in 0..ENTITIES {
        let (mut p, v, e) = initial(i);
        advance(&mut p, &v);
        count += hits(&p, &e);
        checksum = checksum.wrapping_add(ink(&p));
    }
    assert_eq!(Fixed::with_scene(Some(1)).frame(), (count, checksum));
}
