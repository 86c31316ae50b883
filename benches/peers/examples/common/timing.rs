//! Timing for the placement drivers (`frag_placement.rs`,
//! `move_placement.rs`, `walk_shape.rs`): each copy of a body timed alone,
//! and the spread of the copies' times.

use std::time::Instant;

/// Mean nanoseconds per call of `f` over `iterations` calls, after a tenth
/// as many untimed.
pub fn time(iterations: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..iterations / 10 {
        f();
    }
    let t = Instant::now();
    for _ in 0..iterations {
        f();
    }
    t.elapsed().as_secs_f64() * 1e9 / iterations as f64
}

/// The minimum, median and maximum of `xs`.
pub fn spread(xs: &[f64]) -> (f64, f64, f64) {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    (s[0], s[s.len() / 2], s[s.len() - 1])
}
