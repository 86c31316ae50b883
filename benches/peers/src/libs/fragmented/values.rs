//! The values of the fragmented workloads' entities that do not depend on
//! the component types: what the peers binary (`libs::fragmented`) and the
//! examples rebuilding its data (`examples/common/fragmented_data.rs`,
//! which include this file by path: the peers crate is a binary, so its
//! examples cannot import it) both use.

/// Entities.
pub const ENTITIES: usize = 100_000;
/// Entities whose `F0` the churn toggles each iteration: every `CHURN_STEP`th.
pub const CHURN_STEP: usize = 100;

/// A well-mixed hash of `i`.
pub fn mix(i: usize) -> u32 {
    let mut x = (i as u32).wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995;
    x ^= x >> 15;
    x = x.wrapping_mul(0x2c1b_3c6d);
    x ^ (x >> 12)
}

/// Entity `i`'s position, its velocity (one entity in ten, scattered) and
/// the mask of its fillers (the six low bits), as plain values.
pub fn spec_values(i: usize) -> ([f32; 2], Option<[f32; 2]>, u8) {
    let h = mix(i);
    (
        [(i % 1000) as f32, (i / 1000) as f32],
        h.is_multiple_of(10)
            .then_some([((h >> 8) % 7) as f32 - 3.0, ((h >> 12) % 5) as f32 - 2.0]),
        ((h >> 16) % 64) as u8,
    )
}

/// The value of filler `k` of entity `i`.
pub fn filler(i: usize, k: usize) -> [f32; 4] {
    [i as f32, k as f32, 0.0, 1.0]
}
