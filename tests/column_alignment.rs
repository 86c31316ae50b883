//! Large component buffers start on a cache line
//! (`ecs-core/src/storage/slots.rs`): the allocator put them 16 bytes past
//! one, where a split system's subtasks ran slower. Checked through the
//! addresses of the first entity's values, which are in the first slots of
//! their buffers, for a fixed context and for one whose buffers grew.

use ecs::Entity;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packed(pub f32);

ecs::declare_context! {
    pub context Fixed {
        settings { entities: fixed(100_000), threads: 1 }
        components { Pos: contiguous; Packed: sparse_set; }
    }
}

ecs::declare_context! {
    pub context Growing {
        settings { entities: dynamic(2), threads: 1 }
        components { Pos: contiguous; Packed: sparse_set; }
    }
}

const LINE: usize = 64;

/// How far past a cache line `value` lies.
fn past_a_line<T>(value: &T) -> usize {
    core::ptr::from_ref(value) as usize % LINE
}

#[test]
fn a_fixed_contexts_large_buffers_start_on_a_line() {
    let mut cx = Fixed::new();
    cx.step(|p| {
        let e = p.spawn((Pos(1.0), Packed(2.0))).expect("room");
        assert_eq!(past_a_line(p.get::<Pos>(e).expect("held")), 0, "contiguous");
        assert_eq!(past_a_line(p.get::<Packed>(e).expect("held")), 0, "sparse_set");
    });
}

#[test]
fn buffers_grown_large_move_to_a_line_with_their_values() {
    // 20 000 `f32`: 80 000 bytes, past the 64 KiB from which buffers are
    // lined; the buffers start small and grow one doubling at a time.
    const N: usize = 20_000;
    let mut cx = Growing::new();
    let entities: Vec<Entity> = cx.step(|p| {
        (0..N)
            .map(|i| p.spawn((Pos(i as f32), Packed(-(i as f32)))).expect("room"))
            .collect()
    });
    cx.step(|p| {
        assert_eq!(past_a_line(p.get::<Pos>(entities[0]).expect("held")), 0, "contiguous");
        assert_eq!(
            past_a_line(p.get::<Packed>(entities[0]).expect("held")),
            0,
            "sparse_set"
        );
        for (i, &e) in entities.iter().enumerate() {
            assert_eq!(p.get::<Pos>(e), Some(&Pos(i as f32)), "entity {i}");
            assert_eq!(p.get::<Packed>(e), Some(&Packed(-(i as f32))), "entity {i}");
        }
    });
}
