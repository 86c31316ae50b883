//! One bit per id: which ids of a column hold a value.

use core::mem::ManuallyDrop;
use core::ops::Range;

/// The words a non-empty range of ids covers, with the masks of its bits in
/// the first and the last of them.
struct Span {
    first: usize,
    last: usize,
    head: u64,
    tail: u64,
}

impl Span {
    #[inline]
    fn of(ids: Range<usize>) -> Option<Self> {
        if ids.is_empty() {
            return None;
        }
        let end = ids.end - 1;
        Some(Span {
            first: ids.start / 64,
            last: end / 64,
            // Bits `start % 64..64` and `0..=end % 64`.
            head: u64::MAX << (ids.start % 64),
            tail: u64::MAX >> (63 - end % 64),
        })
    }

    /// Each word of the span with the mask of the range's bits in it.
    #[inline]
    fn masks(self) -> impl Iterator<Item = (usize, u64)> {
        (self.first..=self.last).map(move |w| {
            let mut mask = u64::MAX;
            if w == self.first {
                mask &= self.head;
            }
            if w == self.last {
                mask &= self.tail;
            }
            (w, mask)
        })
    }
}

/// A growable bit vector indexed by id.
#[derive(Default, Debug)]
pub(crate) struct Presence {
    // Freed by `Presence`'s `drop`, compiled once here: left to the drop
    // glue, the vector's glue was compiled into every crate declaring a
    // context (the columns' glue calls this `drop` instead).
    words: ManuallyDrop<Vec<u64>>,
}

impl Drop for Presence {
    fn drop(&mut self) {
        // SAFETY: `drop` runs once; `words` is not used after.
        unsafe { ManuallyDrop::drop(&mut self.words) };
    }
}

impl Presence {
    pub(crate) fn with_capacity(ids: usize) -> Self {
        Self {
            words: ManuallyDrop::new(vec![0; ids.div_ceil(64)]),
        }
    }

    #[inline]
    pub(crate) fn get(&self, id: usize) -> bool {
        self.words.get(id / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    /// Sets the bit of `id`, growing as needed; returns the old bit.
    #[inline]
    pub(crate) fn insert(&mut self, id: usize) -> bool {
        let mask = 1 << (id % 64);
        // One bounds check, inlined; the growth and its check out of line
        // (every insertion of every component inlines this).
        match self.words.get_mut(id / 64) {
            Some(w) => {
                let old = *w & mask != 0;
                *w |= mask;
                old
            }
            None => {
                self.insert_grown(id / 64, mask);
                false
            }
        }
    }

    /// [`insert`](Self::insert) of a bit past the last word: grows the
    /// words, then sets it (it was clear: the word did not exist).
    #[cold]
    #[inline(never)]
    fn insert_grown(&mut self, word: usize, mask: u64) {
        self.grow(word);
        self.words[word] |= mask;
    }

    #[cold]
    fn grow(&mut self, word: usize) {
        let len = (word + 1).max(self.words.len() * 2);
        self.words.resize(len, 0);
    }

    /// Sets the bits of every id of `ids`, growing as needed.
    pub(crate) fn insert_range(&mut self, ids: Range<usize>) {
        let Some(span) = Span::of(ids) else {
            return;
        };
        if span.last >= self.words.len() {
            self.grow(span.last);
        }
        match &mut self.words[span.first..=span.last] {
            [only] => *only |= span.head & span.tail,
            [first, middle @ .., last] => {
                *first |= span.head;
                // Whole words: a fill, which compiles to a `memset`.
                middle.fill(u64::MAX);
                *last |= span.tail;
            }
            [] => unreachable!("a span covers at least one word"),
        }
    }

    /// Clears the bits of every id of `ids`.
    pub(crate) fn remove_range(&mut self, ids: Range<usize>) {
        for (w, mask) in Self::masks(ids) {
            if let Some(word) = self.words.get_mut(w) {
                *word &= !mask;
            }
        }
    }

    /// Clears the bits of `ids`, yielding the ids whose bit was set, in
    /// order. A word's bits are cleared when the iterator reaches it, before
    /// any of its ids is yielded: an id is yielded once, and its bit is clear
    /// by then (bits of words not reached yet stay set if the iterator is
    /// dropped early).
    pub(crate) fn drain(&mut self, ids: Range<usize>) -> impl Iterator<Item = usize> + '_ {
        let mut masks = Self::masks(ids);
        let words = &mut self.words;
        // The word being yielded and its bits not yielded yet.
        let (mut at, mut left) = (0, 0u64);
        core::iter::from_fn(move || loop {
            if left != 0 {
                let bit = left.trailing_zeros() as usize;
                left &= left - 1;
                return Some(at * 64 + bit);
            }
            // Past the last word, no bit is set.
            let (w, mask) = masks.next()?;
            let word = words.get_mut(w)?;
            (at, left) = (w, *word & mask);
            *word &= !mask;
        })
    }

    /// The lowest id of `ids` whose bit is set (the tests check ranges'
    /// masks with it).
    #[cfg(test)]
    pub(crate) fn first_in(&self, ids: Range<usize>) -> Option<usize> {
        Self::masks(ids).find_map(|(w, mask)| {
            let word = self.words.get(w).map_or(0, |&word| word & mask);
            (word != 0).then(|| w * 64 + word.trailing_zeros() as usize)
        })
    }

    /// Whether the bit of any id of `ids` is set.
    pub(crate) fn any_in(&self, ids: Range<usize>) -> bool {
        let Some(span) = Span::of(ids) else {
            return false;
        };
        let word = |w: usize| self.words.get(w).copied().unwrap_or(0);
        if span.first == span.last {
            return word(span.first) & span.head & span.tail != 0;
        }
        // The whole words in between that exist, OR-ed together without an
        // early exit, so that the loop is vectorised.
        let middle = self
            .words
            .get(span.first + 1..span.last.min(self.words.len()))
            .unwrap_or(&[]);
        let any_middle = middle.iter().fold(0, |acc, &w| acc | w) != 0;
        word(span.first) & span.head != 0 || any_middle || word(span.last) & span.tail != 0
    }

    /// The words that `ids` covers, each with the mask of its bits in `ids`.
    fn masks(ids: Range<usize>) -> impl Iterator<Item = (usize, u64)> {
        Span::of(ids).into_iter().flat_map(Span::masks)
    }

    /// Clears the bit of `id`; returns the old bit.
    #[inline]
    pub(crate) fn remove(&mut self, id: usize) -> bool {
        let Some(w) = self.words.get_mut(id / 64) else {
            return false;
        };
        let mask = 1 << (id % 64);
        let old = *w & mask != 0;
        *w &= !mask;
        old
    }

    /// The ids whose bit is set.
    pub(crate) fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        crate::bitset::ones(&self.words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_clear_exactly_their_bits_and_first_in_finds_the_lowest() {
        for (start, end) in [(0, 0), (0, 1), (3, 64), (63, 65), (5, 200), (64, 128)] {
            let mut p = Presence::with_capacity(0);
            p.insert_range(0..260);
            p.remove_range(start..end);
            for i in 0..260 {
                assert_eq!(p.get(i), !(start..end).contains(&i), "{start}..{end}: bit {i}");
            }
            assert_eq!(p.first_in(start..end), None);
            assert_eq!(p.first_in(start..260), (end < 260).then_some(end.max(start)));
        }
        let mut p = Presence::with_capacity(0);
        for i in [3, 70, 200] {
            p.insert(i);
        }
        assert_eq!(p.first_in(0..300), Some(3));
        assert_eq!(p.first_in(4..300), Some(70));
        assert_eq!(p.first_in(71..200), None);
        assert_eq!(p.first_in(71..201), Some(200));
        p.remove_range(0..1000);
        assert_eq!(p.first_in(0..1000), None, "past the words: nothing, no panic");
    }

    #[test]
    fn drain_yields_and_clears_exactly_the_set_bits_of_the_range() {
        for (start, end) in [(0, 0), (0, 1), (3, 64), (63, 65), (5, 200), (64, 128), (100, 1000)] {
            let mut p = Presence::with_capacity(0);
            let set: Vec<usize> = (0..260).filter(|i| i % 3 != 1).collect();
            for &i in &set {
                p.insert(i);
            }
            let drained: Vec<usize> = p.drain(start..end).collect();
            let want: Vec<usize> = set.iter().copied().filter(|i| (start..end).contains(i)).collect();
            assert_eq!(drained, want, "{start}..{end}");
            for i in 0..300 {
                assert_eq!(
                    p.get(i),
                    i < 260 && i % 3 != 1 && !(start..end).contains(&i),
                    "{start}..{end}: bit {i}"
                );
            }
        }
    }

    #[test]
    fn ranges_set_exactly_their_bits() {
        for (start, end) in [(0, 0), (0, 1), (3, 64), (63, 65), (5, 200), (64, 128), (130, 131)] {
            let mut p = Presence::with_capacity(0);
            assert!(!p.any_in(start..end));
            p.insert_range(start..end);
            for i in 0..260 {
                assert_eq!(p.get(i), (start..end).contains(&i), "{start}..{end}: bit {i}");
            }
            assert_eq!(p.any_in(start..end), start < end);
            assert!(!p.any_in(end..end + 70));
            if start > 0 {
                assert!(!p.any_in(0..start));
            }
        }
    }

    #[test]
    fn any_in_finds_a_single_bit_anywhere_in_the_range() {
        for bit in [0, 5, 63, 64, 100, 127, 128, 191, 250] {
            let mut p = Presence::with_capacity(256);
            p.insert(bit);
            for (start, end) in [
                (0, 256),
                (0, bit + 1),
                (bit, bit + 1),
                (bit, 300),
                (bit.saturating_sub(70), bit + 70),
            ] {
                assert!(p.any_in(start..end), "bit {bit} in {start}..{end}");
            }
            assert!(!p.any_in(0..bit), "bit {bit} not in 0..{bit}");
            assert!(!p.any_in(bit + 1..400), "bit {bit} not after itself");
        }
    }
}
