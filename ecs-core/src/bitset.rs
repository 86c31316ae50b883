//! Fixed-width bitsets: an entity's component set and a system's signature.
//!
//! The width is chosen by `declare_context!` from the number of components, so
//! a set is a plain integer or array of words with no allocation and no
//! indirection.

/// A set of component indices, `W` words wide.
///
/// An entity's bitset has bit `i` set when the entity holds the component with
/// index `i`; a system's signature has the bits of every component it reads or
/// writes. An entity matches a system when its bitset contains the signature.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Bitset<const W: usize>([u64; W]);

impl<const W: usize> Default for Bitset<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> Bitset<W> {
    /// The set with no bit set.
    pub const EMPTY: Self = Self([0; W]);

    /// The set of the given indices, usable in constants.
    ///
    /// # Panics
    /// When an index does not fit in `W` words (at compile time in a constant).
    pub const fn from_indices(indices: &[usize]) -> Self {
        let mut words = [0u64; W];
        let mut i = 0;
        while i < indices.len() {
            let bit = indices[i];
            assert!(bit < W * 64, "bit index out of the bitset's range");
            words[bit / 64] |= 1 << (bit % 64);
            i += 1;
        }
        Self(words)
    }

    /// Sets bit `bit`.
    #[inline]
    pub fn insert(&mut self, bit: usize) {
        self.0[bit / 64] |= 1 << (bit % 64);
    }

    /// Clears bit `bit`.
    #[inline]
    pub fn remove(&mut self, bit: usize) {
        self.0[bit / 64] &= !(1 << (bit % 64));
    }

    /// Whether bit `bit` is set.
    #[inline]
    pub fn contains(&self, bit: usize) -> bool {
        self.0[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// Whether every bit of `other` is set in `self`.
    #[inline]
    pub fn contains_all(&self, other: &Self) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a & b == *b)
    }

    /// Whether no bit is set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The indices of the set bits, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        ones(&self.0)
    }

    /// Clears every bit.
    #[inline]
    pub fn clear(&mut self) {
        self.0 = [0; W];
    }
}

/// The indices of the set bits of `words` (bit `i` of word `w` is index
/// `64 * w + i`), in increasing order.
#[inline]
pub(crate) fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &word)| {
        let mut word = word;
        core::iter::from_fn(move || {
            (word != 0).then(|| {
                let bit = word.trailing_zeros() as usize;
                word &= word - 1;
                w * 64 + bit
            })
        })
    })
}

/// What the runtime needs of a component bitset; implemented by [`Bits8`],
/// [`Bits16`], [`Bits32`], [`Bits64`], [`Bits128`] and [`Bitset`].
///
/// `declare_context!` picks the narrowest that holds every component; the
/// runtime only uses this interface. Users read a set (such as a system's
/// entry of [`SIGNATURES`](crate::ContextDecl::SIGNATURES)) with
/// [`contains`](Self::contains) and [`for_each`](Self::for_each); the other
/// methods are the runtime's bookkeeping, hidden from these docs.
///
/// Sealed: systems read components without checking because an entity's
/// set says it holds them, so only these six types, which are correct
/// sets, implement it.
///
/// ```
/// use ecs::traits::{Component, ComponentSet, ContextDecl, SystemOf};
/// # pub struct Position(pub f32);
/// # pub struct Velocity(pub f32);
/// # #[derive(Default)]
/// # pub struct Move;
/// # #[derive(Default)]
/// # pub struct Draw;
/// #
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position, Velocity: contiguous; }
/// #         systems {
/// #             movement: Move { read: [Velocity], write: [Position] }
/// #             draw: Draw { read: [Position], after: [movement] }
/// #         }
/// #     }
/// # }
/// #
/// // The components system `draw` touches, from its signature.
/// let draw = <World as ContextDecl>::SIGNATURES[<Draw as SystemOf<World>>::INDEX];
/// assert!(draw.contains(<Position as Component<World>>::INDEX));
/// assert!(!draw.contains(<Velocity as Component<World>>::INDEX));
/// ```
pub trait ComponentSet: sealed::Sealed + Copy + Default + Eq + Send + Sync + core::fmt::Debug + 'static {
    /// Sets bit `bit`.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn insert(&mut self, bit: usize);
    /// Clears bit `bit`.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn remove(&mut self, bit: usize);
    /// Whether bit `bit` is set.
    ///
    /// # Examples
    /// ```
    /// use ecs::traits::{ComponentSet, ContextDecl};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Move;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position, Velocity: contiguous; }
    /// #         systems { movement: Move { read: [Velocity], write: [Position] } }
    /// #     }
    /// # }
    /// let movement = <World as ContextDecl>::SIGNATURES[0];
    /// assert!(movement.contains(1)); // `Velocity`, component 1
    /// assert!(!movement.contains(2));
    /// ```
    fn contains(&self, bit: usize) -> bool;
    /// Whether every bit of `other` is set in `self`.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn contains_all(&self, other: &Self) -> bool;
    /// Whether `self` and `other` have a bit in common.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn intersects(&self, other: &Self) -> bool;
    /// Whether the bits of `self` under `mask` are those of `value`
    /// (`self & mask == value`, with `value` inside `mask`).
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn masked_eq(&self, mask: &Self, value: &Self) -> bool;
    /// Whether no bit is set.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn is_empty(&self) -> bool;
    /// Sets every bit of `other`.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn union_with(&mut self, other: &Self);
    /// The bits set in both `self` and `other`.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn intersection(&self, other: &Self) -> Self;
    /// A total order of sets (any fixed one serves), by which the
    /// `layout: archetypes` setting sorts entities.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn order(&self, other: &Self) -> core::cmp::Ordering;
    /// Calls `f` with each set bit, in increasing order.
    ///
    /// # Examples
    /// ```
    /// use ecs::traits::{ComponentSet, ContextDecl};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Move;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position, Velocity: contiguous; }
    /// #         systems { movement: Move { read: [Velocity], write: [Position] } }
    /// #     }
    /// # }
    /// let mut names = Vec::new();
    /// <World as ContextDecl>::SIGNATURES[0].for_each(|c| names.push(World::COMPONENTS[c]));
    /// assert_eq!(names, ["Position", "Velocity"]);
    /// ```
    fn for_each(&self, f: impl FnMut(usize));
    /// Clears every bit.
    // Hidden: the runtime's bookkeeping; the trait is sealed.
    #[doc(hidden)]
    fn clear(&mut self);
}

/// Seals [`ComponentSet`]: a trait no other crate can name.
mod sealed {
    #[diagnostic::on_unimplemented(
        message = "`ecs::traits::ComponentSet` is sealed: `{Self}` cannot implement it",
        note = "component sets are `Bits8`, `Bits16`, `Bits32`, `Bits64`, `Bits128` and `Bitset<W>`; `declare_context!` picks the narrowest that holds every component"
    )]
    pub trait Sealed {}
}

impl<const W: usize> sealed::Sealed for Bitset<W> {}

impl<const W: usize> ComponentSet for Bitset<W> {
    #[inline]
    fn insert(&mut self, bit: usize) {
        Bitset::insert(self, bit)
    }
    #[inline]
    fn remove(&mut self, bit: usize) {
        Bitset::remove(self, bit)
    }
    #[inline]
    fn contains(&self, bit: usize) -> bool {
        Bitset::contains(self, bit)
    }
    #[inline]
    fn contains_all(&self, other: &Self) -> bool {
        Bitset::contains_all(self, other)
    }
    #[inline]
    fn masked_eq(&self, mask: &Self, value: &Self) -> bool {
        // No early exit, so that a loop over many sets vectorises.
        (0..W).fold(true, |eq, w| eq & (self.0[w] & mask.0[w] == value.0[w]))
    }
    #[inline]
    fn intersects(&self, other: &Self) -> bool {
        self.0.iter().zip(other.0.iter()).any(|(a, b)| a & b != 0)
    }
    #[inline]
    fn is_empty(&self) -> bool {
        Bitset::is_empty(self)
    }
    #[inline]
    fn union_with(&mut self, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a |= b;
        }
    }
    #[inline]
    fn intersection(&self, other: &Self) -> Self {
        Self(core::array::from_fn(|w| self.0[w] & other.0[w]))
    }
    #[inline]
    fn order(&self, other: &Self) -> core::cmp::Ordering {
        self.0.cmp(&other.0)
    }
    fn for_each(&self, f: impl FnMut(usize)) {
        self.iter().for_each(f)
    }
    #[inline]
    fn clear(&mut self) {
        Bitset::clear(self)
    }
}

/// A component set in one integer, for contexts of few components: an
/// entity's set is one byte for up to 8 components, so that the per-id array
/// of sets is small to write when entities are created and to scan when many
/// change at once.
macro_rules! small_set {
    ($(#[$doc:meta])* $name:ident, $word:ty, |$w:ident| $words:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
        pub struct $name($word);

        impl $name {
            /// The set with no bit set.
            pub const EMPTY: Self = Self(0);

            /// The set of the given indices, usable in constants.
            ///
            /// # Panics
            /// When an index does not fit (at compile time in a constant).
            pub const fn from_indices(indices: &[usize]) -> Self {
                let mut word: $word = 0;
                let mut i = 0;
                while i < indices.len() {
                    assert!(indices[i] < <$word>::BITS as usize, "bit index out of the bitset's range");
                    word |= 1 << indices[i];
                    i += 1;
                }
                Self(word)
            }
        }

        impl sealed::Sealed for $name {}

        impl ComponentSet for $name {
            #[inline]
            fn insert(&mut self, bit: usize) {
                self.0 |= 1 << bit;
            }
            #[inline]
            fn remove(&mut self, bit: usize) {
                self.0 &= !(1 << bit);
            }
            #[inline]
            fn contains(&self, bit: usize) -> bool {
                self.0 & (1 << bit) != 0
            }
            #[inline]
            fn contains_all(&self, other: &Self) -> bool {
                self.0 & other.0 == other.0
            }
            #[inline]
            fn intersects(&self, other: &Self) -> bool {
                self.0 & other.0 != 0
            }
            #[inline]
            fn masked_eq(&self, mask: &Self, value: &Self) -> bool {
                self.0 & mask.0 == value.0
            }
            #[inline]
            fn is_empty(&self) -> bool {
                self.0 == 0
            }
            #[inline]
            fn union_with(&mut self, other: &Self) {
                self.0 |= other.0;
            }
            #[inline]
            fn intersection(&self, other: &Self) -> Self {
                Self(self.0 & other.0)
            }
            #[inline]
            fn order(&self, other: &Self) -> core::cmp::Ordering {
                self.0.cmp(&other.0)
            }
            #[inline]
            fn for_each(&self, f: impl FnMut(usize)) {
                let $w = self.0;
                ones(&$words).for_each(f)
            }
            #[inline]
            fn clear(&mut self) {
                self.0 = 0;
            }
        }
    };
}

small_set! {
    /// A set of component indices below 8, in one byte.
    Bits8, u8, |w| [u64::from(w)]
}
small_set! {
    /// A set of component indices below 16, in two bytes.
    Bits16, u16, |w| [u64::from(w)]
}
small_set! {
    /// A set of component indices below 32, in four bytes.
    Bits32, u32, |w| [u64::from(w)]
}
small_set! {
    /// A set of component indices below 64, in eight bytes.
    Bits64, u64, |w| [w]
}
small_set! {
    /// A set of component indices below 128, in sixteen bytes.
    Bits128, u128, |w| [w as u64, (w >> 64) as u64]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_contains_across_words() {
        let mut b = Bitset::<2>::EMPTY;
        b.insert(3);
        b.insert(70);
        assert!(b.contains(3) && b.contains(70) && !b.contains(4));
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![3, 70]);
        b.remove(3);
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![70]);
    }

    #[test]
    fn contains_all_is_subset() {
        let sig = Bitset::<1>::from_indices(&[1, 2]);
        let mut e = Bitset::<1>::from_indices(&[1]);
        assert!(!e.contains_all(&sig));
        e.insert(2);
        e.insert(9);
        assert!(e.contains_all(&sig));
        assert!(e.contains_all(&Bitset::EMPTY));
    }

    #[test]
    fn small_sets_agree_with_word_sets() {
        fn check<S: ComponentSet>(from: impl Fn(&[usize]) -> S, width: usize) {
            let all: Vec<usize> = (0..width).collect();
            let edges = [0, 1, width / 2, width - 1];
            let mut s = from(&edges);
            let mut seen = Vec::new();
            s.for_each(|b| seen.push(b));
            assert_eq!(seen, vec![0, 1, width / 2, width - 1]);
            assert!(s.contains(width - 1) && !s.contains(2));
            assert!(from(&all).contains_all(&s) && !s.contains_all(&from(&all)));
            assert!(s.masked_eq(&from(&[0, 2]), &from(&[0])));
            assert!(!s.masked_eq(&from(&[0, 2]), &from(&[0, 2])));
            assert!(s.intersects(&from(&[width - 1])) && !s.intersects(&from(&[2])));
            s.remove(width - 1);
            assert!(!s.contains(width - 1));
            s.union_with(&from(&[width - 1, 2]));
            assert!(s.contains(2) && s.contains(width - 1));
            s.clear();
            assert!(s.is_empty() && s == S::default());
        }
        check(Bits8::from_indices, 8);
        check(Bits16::from_indices, 16);
        check(Bits32::from_indices, 32);
        check(Bits64::from_indices, 64);
        check(Bits128::from_indices, 128);
        check(Bitset::<1>::from_indices, 64);
        check(Bitset::<2>::from_indices, 128);
    }
}
