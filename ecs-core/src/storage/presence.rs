//! One bit per id: which ids of a column hold a value.

/// A growable bit vector indexed by id.
#[derive(Default, Debug)]
pub(crate) struct Presence {
    words: Vec<u64>,
}

impl Presence {
    pub(crate) fn with_capacity(ids: usize) -> Self {
        Self {
            words: vec![0; ids.div_ceil(64)],
        }
    }

    #[inline]
    pub(crate) fn get(&self, id: usize) -> bool {
        self.words.get(id / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    /// Sets the bit of `id`, growing as needed; returns the old bit.
    #[inline]
    pub(crate) fn insert(&mut self, id: usize) -> bool {
        let word = id / 64;
        if word >= self.words.len() {
            self.grow(word);
        }
        let mask = 1 << (id % 64);
        let w = &mut self.words[word];
        let old = *w & mask != 0;
        *w |= mask;
        old
    }

    #[cold]
    fn grow(&mut self, word: usize) {
        let len = (word + 1).max(self.words.len() * 2);
        self.words.resize(len, 0);
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
        self.words.iter().enumerate().flat_map(|(w, &word)| {
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
}
