//! Inner parallelism: how one system's entities are split into subtasks
//! (thesis, section 10.4).

/// How a system splits its entities into subtasks that may run in parallel.
///
/// Strategies compose: [`Parallelism::NoneBelow`] wraps another strategy.
/// Subtasks get contiguous, nearly equal slices of the system's entities; a
/// system always has at least one subtask, even with no entities.
///
/// ```
/// use ecs::traits::{Parallelism, SystemOf};
///
/// pub struct Position(pub f32);
/// #[derive(Default)]
/// pub struct Cull;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems { cull: Cull { read: [Position], parallelism: split_every(1000) } }
///     }
/// }
///
/// let strategy = <Cull as SystemOf<World>>::PARALLELISM;
/// assert_eq!(strategy, Parallelism::SplitEvery(1000));
/// assert_eq!(strategy.subtasks(2500, 4), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parallelism {
    /// One subtask.
    None,
    /// One subtask per worker thread.
    SplitEvenlyPerCore,
    /// One subtask for every `n` entities (the last may have fewer).
    SplitEvery(usize),
    /// One subtask while there are fewer than `threshold` entities, otherwise
    /// the `otherwise` strategy.
    NoneBelow {
        /// Entity count from which `otherwise` applies.
        threshold: usize,
        /// The strategy used from `threshold` entities on.
        otherwise: &'static Parallelism,
    },
}

impl Parallelism {
    /// Number of subtasks for `entities` entities on `cores` worker threads.
    ///
    /// # Examples
    /// ```
    /// use ecs::traits::Parallelism;
    ///
    /// assert_eq!(Parallelism::None.subtasks(10_000, 8), 1);
    /// assert_eq!(Parallelism::SplitEvenlyPerCore.subtasks(10_000, 8), 8);
    /// // Never more subtasks than entities, never fewer than one.
    /// assert_eq!(Parallelism::SplitEvenlyPerCore.subtasks(3, 8), 3);
    /// assert_eq!(Parallelism::SplitEvery(100).subtasks(0, 8), 1);
    /// assert_eq!(Parallelism::SplitEvery(100).subtasks(250, 8), 3);
    /// let wrapped = Parallelism::NoneBelow { threshold: 1000, otherwise: &Parallelism::SplitEvenlyPerCore };
    /// assert_eq!(wrapped.subtasks(999, 8), 1);
    /// assert_eq!(wrapped.subtasks(1000, 8), 8);
    /// ```
    #[inline]
    pub fn subtasks(&self, entities: usize, cores: usize) -> usize {
        // Inlined, a declared (constant) strategy folds to its arm.
        let n = match *self {
            Parallelism::None => 1,
            Parallelism::SplitEvenlyPerCore => cores.min(entities),
            Parallelism::SplitEvery(n) => entities.div_ceil(n.max(1)),
            Parallelism::NoneBelow { threshold, otherwise } => {
                if entities < threshold {
                    1
                } else {
                    otherwise.subtasks_of_inner(entities, cores)
                }
            }
        };
        n.max(1)
    }

    /// Whether [`subtasks`](Self::subtasks) may give more than one: a
    /// constant per system, so that a run of a system that never splits
    /// compiles no code for split runs.
    pub(crate) const fn may_split(&self) -> bool {
        match *self {
            Parallelism::None => false,
            Parallelism::SplitEvenlyPerCore | Parallelism::SplitEvery(_) => true,
            Parallelism::NoneBelow { otherwise, .. } => otherwise.may_split(),
        }
    }

    /// [`subtasks`](Self::subtasks) of a wrapped strategy: out of line, since
    /// the recursion cannot be inlined.
    #[inline(never)]
    fn subtasks_of_inner(&self, entities: usize, cores: usize) -> usize {
        self.subtasks(entities, cores)
    }
}

/// The slice `[start, end)` of subtask `i` of `k` over `n` entities: nearly
/// equal, contiguous, covering `0..n` exactly once.
#[inline]
pub(crate) fn subtask_range(n: usize, k: usize, i: usize) -> core::ops::Range<usize> {
    // Most systems run as one subtask: no division.
    if k == 1 {
        return 0..n;
    }
    let base = n / k;
    let extra = n % k;
    let start = i * base + i.min(extra);
    let len = base + usize::from(i < extra);
    start..start + len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_split_as_specified() {
        assert_eq!(Parallelism::None.subtasks(1000, 8), 1);
        assert_eq!(Parallelism::SplitEvenlyPerCore.subtasks(1000, 8), 8);
        assert_eq!(Parallelism::SplitEvenlyPerCore.subtasks(3, 8), 3);
        assert_eq!(Parallelism::SplitEvenlyPerCore.subtasks(0, 8), 1);
        assert_eq!(Parallelism::SplitEvery(100).subtasks(1000, 2), 10);
        assert_eq!(Parallelism::SplitEvery(100).subtasks(1001, 2), 11);
        static PER_CORE: Parallelism = Parallelism::SplitEvenlyPerCore;
        let composed = Parallelism::NoneBelow {
            threshold: 500,
            otherwise: &PER_CORE,
        };
        assert_eq!(composed.subtasks(499, 4), 1);
        assert_eq!(composed.subtasks(500, 4), 4);
    }

    #[test]
    fn ranges_cover_exactly_once() {
        for n in [0, 1, 7, 100, 101] {
            for k in 1..9 {
                let mut next = 0;
                for i in 0..k {
                    let r = subtask_range(n, k, i);
                    assert_eq!(r.start, next);
                    next = r.end;
                    assert!(r.len() == n / k || r.len() == n / k + 1);
                }
                assert_eq!(next, n);
            }
        }
    }
}
