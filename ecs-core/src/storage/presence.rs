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

    /// Sets the bit of `id` to `value`, growing as needed; returns the old bit.
    pub(crate) fn set(&mut self, id: usize, value: bool) -> bool {
        let word = id / 64;
        if word >= self.words.len() {
            if !value {
                return false;
            }
            self.words.resize(word + 1, 0);
        }
        let mask = 1 << (id % 64);
        let old = self.words[word] & mask != 0;
        if value {
            self.words[word] |= mask;
        } else {
            self.words[word] &= !mask;
        }
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
