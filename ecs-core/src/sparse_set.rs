//! A sparse integer set of entity ids: O(1) insert, remove and lookup, and a
//! dense array to iterate (thesis, ch. 14).
//!
//! ```text
//! sparse: id -> position in dense     dense: the ids, packed
//!   [ -, 1, -, 0 ]                       [ 3, 1 ]
//! ```
//! [`remove`](SparseSet::remove) swaps the last id into the hole, so the dense
//! order is the order of insertion except where removals moved an id. A
//! context removes its systems' subscribers in batches instead, keeping the
//! order: ids removed during a refresh leave holes that one pass closes at
//! its end, so entities created together stay in ascending order and systems
//! walk their columns forwards, however many of them died.

use crate::bitset::{Bits128, Bits16, Bits32, Bits64, Bits8, Bitset, ComponentSet};
use crate::handle::EntityId;

const ABSENT: u32 = u32::MAX;

/// A set of entity ids with a packed array for iteration.
///
/// Invariant: `dense[sparse[id]] == id` for every member, `sparse[id] ==
/// ABSENT` (or `id >= sparse.len()`) for every other id, and `dense` holds no
/// id twice.
///
/// Between `remove_later` and `compact`
/// (both crate-private), `dense` also holds stale entries at the positions
/// listed in `holes` (distinct, in any order), and only there
/// `sparse[dense[k]] != k`. When `ascending` is true, `dense` (holes
/// included) is strictly increasing.
#[derive(Debug, Clone)]
pub struct SparseSet {
    dense: Vec<EntityId>,
    sparse: Vec<u32>,
    ascending: bool,
    holes: Vec<u32>,
}

impl Default for SparseSet {
    fn default() -> Self {
        Self {
            dense: Vec::new(),
            sparse: Vec::new(),
            ascending: true,
            holes: Vec::new(),
        }
    }
}

impl SparseSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set with room for ids below `ids` and `ids` members.
    pub fn with_capacity(ids: usize) -> Self {
        Self {
            dense: Vec::with_capacity(ids),
            sparse: Vec::with_capacity(ids),
            ascending: true,
            holes: Vec::new(),
        }
    }

    /// Whether `id` is a member.
    #[inline]
    pub fn contains(&self, id: EntityId) -> bool {
        self.sparse.get(id.index()).is_some_and(|&p| p != ABSENT)
    }

    /// The position of `id` in the packed array, if a member.
    #[inline]
    pub fn position(&self, id: EntityId) -> Option<usize> {
        match self.sparse.get(id.index()) {
            Some(&p) if p != ABSENT => Some(p as usize),
            _ => None,
        }
    }

    /// Adds `id`; returns whether it was absent.
    #[inline]
    pub fn insert(&mut self, id: EntityId) -> bool {
        let i = id.index();
        if i >= self.sparse.len() {
            self.grow(i);
        }
        let slot = &mut self.sparse[i];
        if *slot != ABSENT {
            return false;
        }
        *slot = self.dense.len() as u32;
        self.ascending &= self.dense.last().is_none_or(|last| last.0 < id.0);
        self.dense.push(id);
        true
    }

    #[cold]
    fn grow(&mut self, i: usize) {
        let len = (i + 1).max(self.sparse.len() * 2);
        self.sparse.resize(len, ABSENT);
    }

    /// Whether no id of `ids` is a member: one comparison per id, without
    /// branches, which the compiler vectorises.
    pub(crate) fn none_of(&self, ids: core::ops::Range<u32>) -> bool {
        let end = (ids.end as usize).min(self.sparse.len());
        let positions = self.sparse.get(ids.start as usize..end).unwrap_or(&[]);
        positions.iter().fold(true, |none, &p| none & (p == ABSENT))
    }

    /// Adds the ids of `ids`, none of which is a member
    /// ([`none_of`](Self::none_of)), after the members, in increasing order:
    /// two counting loops, which the compiler vectorises.
    pub(crate) fn insert_run(&mut self, ids: core::ops::Range<u32>) {
        if ids.is_empty() {
            return;
        }
        let (start, end) = (ids.start as usize, ids.end as usize);
        if end > self.sparse.len() {
            self.grow(end - 1);
        }
        self.ascending &= self.dense.last().is_none_or(|member| member.0 < ids.start);
        let len = self.dense.len();
        self.dense.extend(ids.map(EntityId));
        for (k, slot) in self.sparse[start..end].iter_mut().enumerate() {
            debug_assert_eq!(*slot, ABSENT, "inserted twice");
            *slot = (len + k) as u32;
        }
    }

    /// Changes the set as `diff` (from [`diff`](Self::diff) on this set, or
    /// on an equal one) says: the ids it gains come after the members, in
    /// increasing order; those it loses leave holes for
    /// [`compact`](Self::compact), unless every member leaves.
    pub(crate) fn apply(&mut self, diff: &Diff) {
        if diff.lost_count() == self.len() {
            self.clear();
        } else {
            for id in diff.lost() {
                self.remove_later(EntityId(id));
            }
        }
        let gained = diff.gained_count();
        if gained == 0 {
            return;
        }
        let first = diff.gained().next().expect("an id is gained");
        let last = diff.gain.len() * 64 - 1;
        if last >= self.sparse.len() {
            self.grow(last);
        }
        self.ascending &= self.dense.last().is_none_or(|member| member.0 < first);
        let len = self.dense.len();
        if let Some(run) = diff.gained_run(first as usize, gained) {
            // One run of ids, as a bulk add or a batch of new entities
            // gives: two counting loops, which the compiler vectorises,
            // instead of one pass per id over the bits.
            self.dense.extend(run.clone().map(|id| EntityId(id as u32)));
            for (k, slot) in self.sparse[run].iter_mut().enumerate() {
                debug_assert_eq!(*slot, ABSENT, "inserted twice");
                *slot = (len + k) as u32;
            }
            return;
        }
        // Over local slices: through `self`, a store to `sparse` could
        // change `self`'s fields, for all the compiler knows, and it would
        // reload them for every id.
        self.dense.resize(len + gained, EntityId(0));
        let (sparse, added) = (&mut self.sparse[..], &mut self.dense[len..]);
        let mut k = 0;
        for (w, &word) in diff.gain.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let id = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                debug_assert_eq!(sparse[id], ABSENT, "inserted twice");
                sparse[id] = (len + k) as u32;
                added[k] = EntityId(id as u32);
                k += 1;
            }
        }
    }

    /// How the set differs from the ids `i` below `bits.len()` whose
    /// `bits[i]` contains every bit of `signature`: those it should gain and
    /// those it should lose, as bit vectors.
    ///
    /// 64 ids at a time: one byte per id for "wanted" and one for "member",
    /// in two loops without branches that the compiler vectorises, then
    /// packed into words eight bytes at a time. A matching that changes
    /// nothing costs well under a nanosecond per id.
    #[inline]
    pub(crate) fn diff<B: Match>(&self, bits: &[B], signature: &B) -> Diff {
        B::diff(self, bits, signature)
    }

    /// [`diff`](Self::diff)'s body, compiled once per set type (see
    /// [`Match`]).
    fn diff_in<B: ComponentSet>(&self, bits: &[B], signature: &B) -> Diff {
        let words = bits.len().div_ceil(64);
        let (mut gain, mut lose) = (Vec::with_capacity(words), Vec::with_capacity(words));
        for (c, chunk) in bits.chunks(64).enumerate() {
            let (mut want, mut member) = ([0u8; 64], [0u8; 64]);
            for (w, b) in want.iter_mut().zip(chunk) {
                *w = u8::from(b.masked_eq(signature, signature));
            }
            let positions = self.sparse.get(c * 64..).unwrap_or(&[]);
            for (m, &p) in member.iter_mut().zip(&positions[..positions.len().min(chunk.len())]) {
                *m = u8::from(p != ABSENT);
            }
            let (mut g, mut l) = (0u64, 0u64);
            for k in 0..8 {
                let w = u64::from_le_bytes(want[8 * k..8 * k + 8].try_into().expect("8 bytes"));
                let m = u64::from_le_bytes(member[8 * k..8 * k + 8].try_into().expect("8 bytes"));
                g |= byte_bits(w & !m) << (8 * k);
                l |= byte_bits(m & !w) << (8 * k);
            }
            gain.push(g);
            lose.push(l);
        }
        Diff { gain, lose }
    }

    /// Removes `id` by moving the last member into its place; returns whether
    /// it was present.
    pub fn remove(&mut self, id: EntityId) -> bool {
        debug_assert!(self.holes.is_empty(), "swap-removal from a set with holes");
        if !self.contains(id) {
            return false;
        }
        let pos = core::mem::replace(&mut self.sparse[id.index()], ABSENT) as usize;
        let last = self.dense.pop().expect("a member exists");
        if last != id {
            self.dense[pos] = last;
            self.sparse[last.index()] = pos as u32;
            self.ascending = false;
        }
        if self.dense.is_empty() {
            self.ascending = true;
        }
        true
    }

    /// Removes `id` but leaves its entry in the packed array as a hole, so
    /// that the order of the others is kept; returns whether it was present.
    /// [`compact`](Self::compact) must run before the members are read.
    #[inline]
    pub(crate) fn remove_later(&mut self, id: EntityId) -> bool {
        match self.sparse.get_mut(id.index()) {
            Some(p) if *p != ABSENT => {
                self.holes.push(core::mem::replace(p, ABSENT));
                true
            }
            _ => false,
        }
    }

    /// Closes the holes [`remove_later`](Self::remove_later) left, keeping
    /// the order of the members: the runs between holes move down with one
    /// `copy_within` each, and only the moved ids' positions are rewritten,
    /// so a refresh that removed `k` members costs `O(k log k)` plus one
    /// cheap pass over the members after the first hole.
    #[inline]
    pub(crate) fn compact(&mut self) {
        if !self.holes.is_empty() {
            self.close_holes();
        }
    }

    fn close_holes(&mut self) {
        if self.holes.len() == self.dense.len() {
            // Every member left (their positions are already cleared).
            self.dense.clear();
            self.holes.clear();
            self.ascending = true;
            return;
        }
        self.holes.sort_unstable();
        let len = self.dense.len();
        let mut write = self.holes[0] as usize;
        for (j, &hole) in self.holes.iter().enumerate() {
            let next = self.holes.get(j + 1).map_or(len, |&h| h as usize);
            let run = hole as usize + 1..next;
            let moved = run.len();
            self.dense.copy_within(run, write);
            for (k, id) in self.dense[write..write + moved].iter().enumerate() {
                self.sparse[id.index()] = (write + k) as u32;
            }
            write += moved;
        }
        self.dense.truncate(write);
        self.holes.clear();
        if self.dense.is_empty() {
            self.ascending = true;
        }
    }

    /// Replaces member `from`, if it is one, by `to`, at the same place in
    /// the packed array. `to` must not be a member. Members may no longer be
    /// in ascending order afterwards.
    pub(crate) fn relocate(&mut self, from: EntityId, to: EntityId) {
        let Some(pos) = self.position(from) else {
            return;
        };
        debug_assert!(!self.contains(to), "relocated onto a member");
        if to.index() >= self.sparse.len() {
            self.grow(to.index());
        }
        self.sparse[from.index()] = ABSENT;
        self.sparse[to.index()] = pos as u32;
        self.dense[pos] = to;
        self.ascending = false;
    }

    /// Whether neither [`compact`](Self::compact) nor
    /// [`restore_run`](Self::restore_run) has anything to do: no hole, and
    /// the members in ascending order.
    #[inline]
    pub(crate) fn is_tidy(&self) -> bool {
        self.holes.is_empty() && self.ascending
    }

    /// When the set holds exactly the ids `0..ids` (`ids` members, all below
    /// `ids`) but not in ascending order, orders them again: one pass, which
    /// makes them one run that systems walk linearly.
    #[inline]
    pub(crate) fn restore_run(&mut self, ids: usize) {
        if !self.ascending && self.dense.len() == ids && self.holes.is_empty() {
            debug_assert!(self.dense.iter().all(|id| id.index() < ids));
            self.rewrite_as_run();
        }
    }

    /// [`compact`](Self::compact) then [`restore_run`](Self::restore_run),
    /// for a set whose members are all below `ids` (every id of a context
    /// after its refresh packed them).
    ///
    /// When the members left number `ids`, they are the ids `0..ids`
    /// whatever the holes and relocations did: the set is written anew as
    /// that run, in one pass, instead of moving the runs between holes
    /// down and then ordering them again. (Particles dying at random
    /// places left a hole near the start of every set at every step: the
    /// runs after it moved, their positions were rewritten one by one, and
    /// the next run wrote the set again in order; 178M instructions of a
    /// 50 000-particle wave's 13.7G went to the refresh.)
    #[inline]
    pub(crate) fn compact_into_run(&mut self, ids: usize) {
        if !self.holes.is_empty() && self.dense.len() - self.holes.len() == ids {
            debug_assert!((0..ids).all(|i| self.contains(EntityId(i as u32))));
            self.dense.truncate(ids);
            self.holes.clear();
            self.rewrite_as_run();
        } else {
            self.compact();
            self.restore_run(ids);
        }
    }

    /// Writes the ids `0..dense.len()` in order, with their positions: the
    /// members must be those ids (stale entries aside).
    fn rewrite_as_run(&mut self) {
        for (k, (id, slot)) in self.dense.iter_mut().zip(&mut self.sparse).enumerate() {
            *id = EntityId(k as u32);
            *slot = k as u32;
        }
        self.ascending = true;
    }

    /// Makes the members, in ascending order, the ids of the runs (each
    /// given by its set and the id one past its end, from id 0 on, as
    /// `layout: archetypes` leaves them) whose set contains every bit of
    /// `signature`: after the context moved entities to other ids, each set
    /// is written anew in id order rather than exchanged id by id, from the
    /// runs rather than every id's set.
    #[inline]
    pub(crate) fn rebuild<B: Match>(&mut self, runs: &[(B, usize)], signature: &B) {
        B::rebuild(self, runs, signature)
    }

    /// [`rebuild`](Self::rebuild)'s body, compiled once per set type (see
    /// [`Match`]).
    fn rebuild_in<B: ComponentSet>(&mut self, runs: &[(B, usize)], signature: &B) {
        debug_assert!(self.holes.is_empty(), "rebuilt before compaction");
        let before = self.len();
        self.clear();
        let ids = runs.last().map_or(0, |r| r.1);
        if ids > self.sparse.len() {
            self.sparse.resize(ids, ABSENT);
        }
        let mut start = 0;
        for &(set, end) in runs {
            if set.contains_all(signature) {
                let first = self.dense.len() as u32;
                self.sparse[start..end]
                    .iter_mut()
                    .zip(first..)
                    .for_each(|(slot, k)| *slot = k);
                // Below `end`, an id (`u32`).
                self.dense.extend((start as u32..end as u32).map(EntityId));
            }
            start = end;
        }
        self.ascending = true;
        debug_assert_eq!(before, self.len(), "a rebuild changed the members");
    }

    /// The members, packed.
    #[inline]
    pub fn as_slice(&self) -> &[EntityId] {
        debug_assert!(self.holes.is_empty(), "members read before compaction");
        &self.dense
    }

    /// The first member when the members are one ascending run of ids
    /// (`as_slice()[i] == first + i`), as they are for entities created
    /// together and removed only from the ends.
    #[inline]
    pub fn run_start(&self) -> Option<EntityId> {
        let (&first, &last) = (self.dense.first()?, self.dense.last()?);
        (self.ascending && self.holes.is_empty() && (last.0 - first.0) as usize == self.dense.len() - 1)
            .then_some(first)
    }

    /// Whether the members are in ascending id order, so that walking them
    /// walks id-indexed columns forwards.
    #[inline]
    pub fn is_ascending(&self) -> bool {
        self.ascending
    }

    /// Number of members.
    #[inline]
    pub fn len(&self) -> usize {
        self.dense.len() - self.holes.len()
    }

    /// Whether there are no members.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        if let Some(first) = self.run_start() {
            // One ascending run of ids: one fill, which the compiler turns
            // into vector stores, instead of a store per id through `dense`.
            let first = first.index();
            self.sparse[first..first + self.dense.len()].fill(ABSENT);
        } else {
            let sparse = &mut self.sparse[..];
            for id in &self.dense {
                sparse[id.index()] = ABSENT;
            }
        }
        self.dense.clear();
        self.ascending = true;
        self.holes.clear();
    }
}

impl SparseSet {
    /// Calls `visit` with each maximal run of consecutive member ids within
    /// `ids`, in id order (for column steps, whose slices cover runs):
    /// reads the id-indexed array, so it needs no order of the members.
    /// Members removed with `remove_later` are already absent there.
    pub(crate) fn runs_within(&self, ids: core::ops::Range<usize>, visit: &mut dyn FnMut(core::ops::Range<u32>)) {
        let end = ids.end.min(self.sparse.len());
        let mut k = ids.start;
        while k < end {
            while k < end && self.sparse[k] == ABSENT {
                k += 1;
            }
            let start = k;
            while k < end && self.sparse[k] != ABSENT {
                k += 1;
            }
            if start < k {
                visit(start as u32..k as u32);
            }
        }
    }
}

/// The eight bytes of `x`, each 0 or 1, as the eight low bits of a byte (byte
/// `i` to bit `i`): multiplying by `2^56 + 2^49 + .. + 2^7` moves byte `i`'s
/// bit to bit `56 + i`, and no two partial products meet in the top byte.
#[inline]
fn byte_bits(x: u64) -> u64 {
    x.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// How a set must change, from [`SparseSet::diff`]: bit `i` of `gain`
/// (word `i / 64`) is set when id `i` must join, of `lose` when it must
/// leave.
///
/// Public only to be named by [`Match`]; nothing outside this crate can
/// make or read one.
#[doc(hidden)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diff {
    gain: Vec<u64>,
    lose: Vec<u64>,
}

impl Diff {
    /// Whether the set is right as it is.
    pub(crate) fn is_empty(&self) -> bool {
        self.gain.iter().chain(&self.lose).all(|&w| w == 0)
    }

    fn gained_count(&self) -> usize {
        self.gain.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The gained ids as one run `first..first + count`, when they are one
    /// (`first` the lowest gained id, `count` how many are gained, > 0): the
    /// highest gained id is then `first + count - 1`.
    fn gained_run(&self, first: usize, count: usize) -> Option<core::ops::Range<usize>> {
        let (w, &word) = self.gain.iter().enumerate().rev().find(|&(_, &w)| w != 0)?;
        let last = w * 64 + 63 - word.leading_zeros() as usize;
        (last + 1 - first == count).then_some(first..last + 1)
    }

    fn lost_count(&self) -> usize {
        self.lose.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The ids that join the set, in increasing order.
    pub(crate) fn gained(&self) -> impl Iterator<Item = u32> + '_ {
        Self::ids(&self.gain)
    }

    /// The ids that leave the set, in increasing order.
    pub(crate) fn lost(&self) -> impl Iterator<Item = u32> + '_ {
        Self::ids(&self.lose)
    }

    fn ids(words: &[u64]) -> impl Iterator<Item = u32> + '_ {
        crate::bitset::ones(words).map(|id| id as u32)
    }
}

/// Matching a system's set against the entities' component sets, for one
/// set type: [`SparseSet::diff`] and [`SparseSet::rebuild`] call it through
/// this trait so that the sets `declare_context!` picks for up to 128
/// components (`Bits8` to `Bits128`) use the copy compiled here, once,
/// rather than each context compiling its own. [`Bitset`] of more words
/// keeps a copy per context.
///
/// Sealed by [`ComponentSet`], which no other crate can implement; not
/// part of the public API.
#[doc(hidden)]
pub trait Match: ComponentSet {
    /// [`SparseSet::diff`].
    fn diff(set: &SparseSet, bits: &[Self], signature: &Self) -> Diff;
    /// [`SparseSet::rebuild`].
    fn rebuild(set: &mut SparseSet, runs: &[(Self, usize)], signature: &Self);
}

/// `Match` through the bodies above; `$inline` is `never` for the sets
/// compiled here (not generic, so compiled once in this crate, and not
/// inlined, so that callers link to that copy).
macro_rules! match_sets {
    ($($inline:meta => $set:ty $(, const $w:ident)?;)*) => {$(
        impl$(<const $w: usize>)? Match for $set {
            #[$inline]
            fn diff(set: &SparseSet, bits: &[Self], signature: &Self) -> Diff {
                set.diff_in(bits, signature)
            }
            #[$inline]
            fn rebuild(set: &mut SparseSet, runs: &[(Self, usize)], signature: &Self) {
                set.rebuild_in(runs, signature)
            }
        }
    )*};
}

match_sets! {
    inline(never) => Bits8;
    inline(never) => Bits16;
    inline(never) => Bits32;
    inline(never) => Bits64;
    inline(never) => Bits128;
    inline => Bitset<W>, const W;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_joins_after_the_members_in_order() {
        let mut s = SparseSet::new();
        assert!(s.none_of(0..10), "beyond the sparse array");
        s.insert(EntityId(7));
        assert!(!s.none_of(5..9));
        assert!(s.none_of(0..7) && s.none_of(8..100));
        s.insert_run(2..5);
        assert_eq!(s.as_slice(), [7, 2, 3, 4].map(EntityId));
        assert!(!s.is_ascending());
        s.insert_run(20..23);
        assert_eq!(s.position(EntityId(21)), Some(5));
        assert_eq!(s.len(), 7);
        let mut t = SparseSet::new();
        t.insert_run(0..3);
        t.insert_run(3..3);
        t.insert_run(5..6);
        assert!(t.is_ascending());
        assert_eq!(t.as_slice(), [0, 1, 2, 5].map(EntityId));
        assert!(t.contains(EntityId(5)) && !t.contains(EntityId(4)));
    }

    #[test]
    fn insert_remove_keeps_invariant() {
        let mut s = SparseSet::new();
        for i in [5, 1, 9, 3] {
            assert!(s.insert(EntityId(i)));
        }
        assert!(!s.insert(EntityId(9)));
        assert!(s.remove(EntityId(1)));
        assert!(!s.remove(EntityId(1)));
        assert!(!s.remove(EntityId(100)));
        assert_eq!(s.as_slice(), &[EntityId(5), EntityId(3), EntityId(9)]);
        for &id in s.as_slice() {
            assert!(s.contains(id));
        }
        assert_eq!(s.run_start(), None);
        s.clear();
        assert!(s.is_empty() && !s.contains(EntityId(5)));
        for i in 10..20 {
            s.insert(EntityId(i));
        }
        assert_eq!(s.run_start(), Some(EntityId(10)));
        s.remove(EntityId(19));
        assert_eq!(s.run_start(), Some(EntityId(10)), "removing the last keeps the run");
        s.remove(EntityId(12));
        assert_eq!(s.run_start(), None, "a swap-remove breaks it");
        assert!(!s.is_ascending());
    }

    #[test]
    fn bytes_pack_into_bits() {
        for pattern in [0u8, 1, 0x80, 0xff, 0x5a, 0xa5, 0x0f] {
            let bytes: [u8; 8] = core::array::from_fn(|i| (pattern >> i) & 1);
            assert_eq!(byte_bits(u64::from_le_bytes(bytes)), u64::from(pattern));
        }
    }

    #[test]
    fn a_diff_applied_leaves_exactly_the_wanted_ids_in_order() {
        use crate::bitset::Bitset;
        // 150 ids over three bitset words; the system wants bits 0 and 2.
        let signature = Bitset::<1>::from_indices(&[0, 2]);
        let wanted = |i: u32| i % 3 != 1 && i != 64;
        let bits: Vec<Bitset<1>> = (0..150)
            .map(|i| Bitset::from_indices(if wanted(i) { &[0, 1, 2] } else { &[0, 1] }))
            .collect();
        let mut s = SparseSet::new();
        // Members in no particular order, one past what the bits want, and
        // a hole left by a removal not yet compacted.
        for i in [4, 1, 3, 0, 7, 64, 149] {
            s.insert(EntityId(i));
        }
        s.remove_later(EntityId(7));
        let diff = s.diff(&bits, &signature);
        assert!(!diff.is_empty());
        assert_eq!(diff.lost().collect::<Vec<_>>(), [1, 4, 64]);
        let gained: Vec<u32> = diff.gained().collect();
        assert_eq!(
            gained,
            (0..150)
                .filter(|&i| wanted(i) && ![0, 3, 149].contains(&i))
                .collect::<Vec<_>>()
        );
        s.apply(&diff);
        s.compact();
        let ids: Vec<u32> = s.as_slice().iter().map(|id| id.0).collect();
        let kept = [3, 0, 149];
        assert_eq!(
            ids,
            kept.iter().copied().chain(gained).collect::<Vec<_>>(),
            "members kept, then gains in id order"
        );
        for (k, &id) in s.as_slice().iter().enumerate() {
            assert_eq!(s.position(id), Some(k));
        }
        assert!(s.diff(&bits, &signature).is_empty(), "nothing left to change");
        // Every member lost at once: the set empties.
        let none = vec![Bitset::<1>::EMPTY; 150];
        let diff = s.diff(&none, &signature);
        s.apply(&diff);
        assert!(s.is_empty() && s.as_slice().is_empty());
        // And all gained at once: one ascending run.
        let all = vec![signature; 150];
        s.apply(&s.diff(&all, &signature));
        assert_eq!(s.run_start(), Some(EntityId(0)));
        assert_eq!(s.len(), 150);
    }

    /// The members and positions of `s` are `expected`, in order, and no
    /// other id of `0..ids` is a member.
    fn assert_members(s: &SparseSet, expected: &[u32], ids: u32) {
        let got: Vec<u32> = s.as_slice().iter().map(|id| id.0).collect();
        assert_eq!(got, expected);
        for id in 0..ids {
            assert_eq!(
                s.position(EntityId(id)),
                expected.iter().position(|&m| m == id),
                "id {id}"
            );
        }
    }

    #[test]
    fn a_gain_of_one_run_and_a_clear_of_one_run_match_the_model() {
        use crate::bitset::Bitset;
        let signature = Bitset::<1>::from_indices(&[0]);
        let ids = 200u32;
        // (members before, ids wanted): runs inside a word, across word
        // boundaries, of one id, up to the last id; and gains of two runs or
        // with a gap (the id-by-id path), for comparison.
        let cases: [(&[u32], core::ops::Range<u32>, &[u32]); 9] = [
            (&[], 0..200, &[]),
            (&[], 3..9, &[]),
            (&[], 63..65, &[]),
            (&[], 64..128, &[]),
            (&[], 199..200, &[]),
            (&[150, 2], 10..140, &[]),
            (&[0, 1], 0..70, &[]),
            (&[], 5..20, &[40]),
            (&[], 5..20, &[21]),
        ];
        for (members, run, extra) in cases {
            let mut s = SparseSet::new();
            for &m in members {
                s.insert(EntityId(m));
            }
            let wanted = |i: u32| run.contains(&i) || extra.contains(&i) || members.contains(&i);
            let bits: Vec<Bitset<1>> = (0..ids)
                .map(|i| if wanted(i) { signature } else { Bitset::EMPTY })
                .collect();
            let diff = s.diff(&bits, &signature);
            let gained: Vec<u32> = diff.gained().collect();
            let is_run = gained.windows(2).all(|w| w[1] == w[0] + 1);
            assert_eq!(
                diff.gained_run(gained[0] as usize, gained.len()).is_some(),
                is_run,
                "run detected for {run:?} + {extra:?}"
            );
            s.apply(&diff);
            let expected: Vec<u32> = members.iter().copied().chain(gained).collect();
            assert_members(&s, &expected, ids);
            assert!(s.diff(&bits, &signature).is_empty());
            // Every member lost at once: one fill when they are one run.
            let one_run = expected.windows(2).all(|w| w[1] == w[0] + 1);
            assert_eq!(s.run_start().map(|id| id.0), one_run.then_some(expected[0]));
            s.apply(&s.diff(&vec![Bitset::EMPTY; ids as usize], &signature));
            assert_members(&s, &[], ids);
            assert!(s.is_ascending());
            // And gained again after the clear.
            s.apply(&s.diff(&bits, &signature));
            assert_eq!(s.len(), expected.len());
        }
    }

    #[test]
    fn batch_removal_keeps_the_order() {
        let mut s = SparseSet::new();
        for i in 0..10 {
            s.insert(EntityId(i));
        }
        for i in [7, 0, 3, 9] {
            assert!(s.remove_later(EntityId(i)));
        }
        assert!(!s.remove_later(EntityId(3)), "already removed");
        assert!(!s.remove_later(EntityId(100)));
        assert_eq!(s.len(), 6);
        assert!(!s.contains(EntityId(7)));
        // Removed then inserted again before compaction: kept once, at the end.
        assert!(s.insert(EntityId(3)));
        s.compact();
        let ids: Vec<u32> = s.as_slice().iter().map(|id| id.0).collect();
        assert_eq!(ids, [1, 2, 4, 5, 6, 8, 3]);
        for (k, &id) in s.as_slice().iter().enumerate() {
            assert_eq!(s.position(id), Some(k));
        }
        assert!(!s.is_ascending());
        assert_eq!(s.run_start(), None);
    }

    #[test]
    fn compacting_into_a_run_agrees_with_compact_then_restore() {
        // Ids 0..10; 3, 7 and 9 die, and 8 moves into 3 (as packing moves
        // the highest id into a hole): the members are 0..7 again, out of
        // order, with holes.
        let mut whole = SparseSet::new();
        for i in 0..10 {
            whole.insert(EntityId(i));
        }
        // The same but without 5: the members are not every id below 7.
        let mut partial = whole.clone();
        assert!(partial.remove(EntityId(5)));
        partial.compact();
        for s in [&mut whole, &mut partial] {
            for i in [3, 9, 7] {
                assert!(s.remove_later(EntityId(i)));
            }
            s.relocate(EntityId(8), EntityId(3));
        }
        for (s, run) in [(whole, true), (partial, false)] {
            let mut expected = s.clone();
            expected.compact();
            expected.restore_run(7);
            let mut s = s;
            s.compact_into_run(7);
            assert_eq!(s.as_slice(), expected.as_slice());
            for (k, &id) in s.as_slice().iter().enumerate() {
                assert_eq!(s.position(id), Some(k));
            }
            for gone in [7, 8, 9] {
                assert!(!s.contains(EntityId(gone)));
            }
            assert!(s.is_tidy() == run, "only the whole set is ascending again");
            assert_eq!(s.run_start(), run.then_some(EntityId(0)));
        }
    }

    #[test]
    fn removing_every_member_empties_the_set() {
        let mut s = SparseSet::new();
        for i in [4, 2, 9] {
            s.insert(EntityId(i));
        }
        assert!(!s.is_ascending());
        for i in [9, 4, 2] {
            assert!(s.remove_later(EntityId(i)));
        }
        s.compact();
        assert!(s.as_slice().is_empty() && s.is_ascending());
        assert_eq!(s.position(EntityId(4)), None);
        // Everything removed, then one inserted again: only it stays.
        for i in [5, 6] {
            s.insert(EntityId(i));
        }
        for i in [5, 6] {
            s.remove_later(EntityId(i));
        }
        s.insert(EntityId(6));
        s.compact();
        assert_eq!(s.as_slice(), [EntityId(6)]);
        assert_eq!(s.position(EntityId(6)), Some(0));
    }

    #[test]
    fn batches_match_an_ordered_model() {
        // A xorshift generator: many random batches of inserts and ordered
        // removals, compared with a `Vec` that keeps insertion order.
        let mut x = 0x9E37_79B9_u32;
        let mut next = move |n: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % n
        };
        let mut s = SparseSet::new();
        let mut model: Vec<u32> = Vec::new();
        // Miri interprets each round some 10 000 times slower: fewer rounds
        // there still reach every branch (CI's budget).
        let rounds = if cfg!(miri) { 40 } else { 300 };
        for _ in 0..rounds {
            for _ in 0..next(20) {
                let id = next(64);
                let absent = !model.contains(&id);
                assert_eq!(s.insert(EntityId(id)), absent);
                if absent {
                    model.push(id);
                }
                if next(3) == 0 {
                    let id = next(64);
                    let present = model.contains(&id);
                    assert_eq!(s.remove_later(EntityId(id)), present);
                    model.retain(|&m| m != id);
                }
            }
            s.compact();
            let ids: Vec<u32> = s.as_slice().iter().map(|id| id.0).collect();
            assert_eq!(ids, model);
            for id in 0..64 {
                assert_eq!(s.position(EntityId(id)), model.iter().position(|&m| m == id));
            }
            assert_eq!(
                s.is_ascending(),
                s.is_ascending() && model.windows(2).all(|w| w[0] < w[1])
            );
        }
    }

    #[test]
    fn run_survives_removal_from_the_ends_only() {
        let mut s = SparseSet::new();
        for i in 5..15 {
            s.insert(EntityId(i));
        }
        s.remove_later(EntityId(5));
        s.remove_later(EntityId(14));
        s.compact();
        assert_eq!(s.run_start(), Some(EntityId(6)));
        s.remove_later(EntityId(9));
        s.compact();
        assert_eq!(s.run_start(), None, "a gap");
        assert!(s.is_ascending(), "but still in order");
        for i in 6..14 {
            s.remove_later(EntityId(i));
        }
        s.compact();
        assert!(s.is_empty() && s.is_ascending());
    }
}
