//! The best-effort versions' walk of two columns side by side in chunks:
//! as fast as the plain `zip` loop at its best, at every placement of the
//! code, where the plain loop over 8-byte values took 1.8x as long at 16
//! of 64 placements (`examples/move_placement.rs`).

/// Calls `f` for each pair of `xs` and `ys` (as far as the shorter goes),
/// `C` pairs at a time as arrays in a loop of constant count, which the
/// compiler unrolls into vector code, then the rest one by one.
#[inline(always)]
pub fn in_chunks<X, Y, const C: usize>(xs: &mut [X], ys: &[Y], f: impl Fn(&mut X, &Y)) {
    let mut xc = xs.chunks_exact_mut(C);
    let mut yc = ys.chunks_exact(C);
    for (x, y) in (&mut xc).zip(&mut yc) {
        let (x, y): (&mut [X; C], &[Y; C]) = (x.try_into().expect("a chunk"), y.try_into().expect("a chunk"));
        for k in 0..C {
            f(&mut x[k], &y[k]);
        }
    }
    for (x, y) in xc.into_remainder().iter_mut().zip(yc.remainder()) {
        f(x, y);
    }
}
