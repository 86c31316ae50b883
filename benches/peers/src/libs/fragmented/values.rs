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

/// The value of filler `k` of entity `i`.
pub fn filler(i: usize, k: usize) -> [f32; 4] {
    [i as f32, k as f32, 0.0, 1.0]
}
