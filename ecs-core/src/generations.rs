//! The generation table that other threads read: one atomic word per slot,
//! in chunks that never move once allocated, so that a thread holding a
//! [`Liveness`](crate::Liveness) handle checks a handle without a lock
//! while the context creates, kills and reclaims entities (seed 004,
//! part I: "the generation table never moves").
//!
//! The context's own table ([`Entities`](crate::Entities)) stays a plain
//! `Vec` (it grows in a `dynamic` context, so it moves); this one mirrors
//! the one fact other threads ask about, whether a handle's entity is
//! alive, and exists only once someone asks for a [`Liveness`](crate::Liveness)
//! handle: a context that never hands one out pays one predictable branch
//! per creation, kill and reclamation.
//!
//! ```text
//!  chunk 0: slots 0 .. F           (F = `first`: a fixed context's limit,
//!  chunk 1: slots F .. 3F           or a dynamic one's initial room)
//!  chunk 2: slots 3F .. 7F          chunk k holds F << k slots
//!  ...
//!  word = generation (bits 0-30) | LIVE (bit 31)
//! ```
//!
//! A `fixed` context needs chunk 0 alone, allocated with the handle. A
//! `dynamic` one allocates chunk k the first time a slot in it is handed
//! out; the chunks double, so there are at most 32 of them, and none is
//! ever moved or freed before the last handle goes. Readers find a chunk
//! through a [`OnceLock`], whose `get` is one acquire load (no lock), and
//! which publishes the chunk's initialised words with it.
//!
//! # Orderings
//! The context's thread is the only writer of the words. Each write and
//! each read is `Relaxed`: no other data is published through a word, and
//! what a reader needs is per-location coherence, which every ordering
//! gives. If the creation (or kill) of an entity happens-before a reader's
//! check, through any synchronisation (the handle sent over a channel after
//! `spawn` returned, a join, a mutex), the check sees that write or a later
//! one; and a reader that once saw a handle dead never sees it alive
//! again, since a slot's generation only moves forward (up to the
//! wrap-around below). A check with no such synchronisation sees some
//! recent state of the slot: true at some moment during the call.
//!
//! # Wrap-around
//! Generations have 31 bits, as in the context's table: after 2^31
//! reclamations of one slot, a handle that old matches again and reads
//! alive if the slot's entity is. Seed 004 accepts the same (its
//! generation byte wraps after 256 reuses); at one reclamation of one slot
//! per microsecond, 2^31 take over half an hour.

#[cfg(loom)]
use loom::sync::atomic::{AtomicU32, Ordering::Relaxed};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::OnceLock;

/// Bit 31 of a word: the slot's entity is alive (not killed, not freed).
const LIVE: u32 = 1 << 31;

/// Chunks that cover every slot below 2^31 for any `first >= 1`.
const CHUNKS: usize = 32;

/// The shared generation table: written by the context's thread, read by
/// any.
///
/// Invariant: every word of every allocated chunk whose slot the context
/// has handed out holds that slot's generation, with [`LIVE`] exactly when
/// its entity is alive; a word of a slot never handed out is 0 (reads as a
/// dead generation 0, which a handle of that slot cannot hold before the
/// slot is handed out).
pub(crate) struct Generations {
    /// Slots in chunk 0; chunk k holds `first << k`.
    first: u32,
    chunks: [OnceLock<Box<[AtomicU32]>>; CHUNKS],
}

impl Generations {
    /// An empty table whose first chunk holds `first` slots (at least 1),
    /// allocated now.
    pub(crate) fn new(first: usize) -> Self {
        let first = first.clamp(1, 1 << 30) as u32;
        let table = Self {
            first,
            chunks: [const { OnceLock::new() }; CHUNKS],
        };
        table.chunk(0);
        table
    }

    /// The chunk and the index in it of `slot`.
    #[inline]
    fn place(&self, slot: u32) -> (usize, usize) {
        // Chunk k starts at first * (2^k - 1): k = floor(log2(slot / first + 1)).
        let q = u64::from(slot / self.first) + 1;
        let k = 63 - q.leading_zeros() as usize;
        let start = u64::from(self.first) * ((1u64 << k) - 1);
        (k, (u64::from(slot) - start) as usize)
    }

    /// Chunk `k`, allocated (zeroed) if it was not.
    fn chunk(&self, k: usize) -> &[AtomicU32] {
        self.chunks[k].get_or_init(|| {
            let len = (self.first as usize) << k;
            (0..len).map(|_| AtomicU32::new(0)).collect()
        })
    }

    /// Records the state of `slot`: its generation, and whether its entity
    /// is alive. Only the context's thread calls it.
    #[inline]
    pub(crate) fn set(&self, slot: u32, generation: u32, alive: bool) {
        let (k, i) = self.place(slot);
        let word = (generation & !LIVE) | if alive { LIVE } else { 0 };
        self.chunk(k)[i].store(word, Relaxed);
    }

    /// Whether the slot's entity is alive with this generation. Any thread.
    #[inline]
    pub(crate) fn is_alive(&self, slot: u32, generation: u32) -> bool {
        if generation & LIVE != 0 {
            // No handle holds such a generation.
            return false;
        }
        let (k, i) = self.place(slot);
        // A chunk not allocated yet holds no slot ever handed out (that this
        // thread knows of).
        self.chunks
            .get(k)
            .and_then(OnceLock::get)
            .is_some_and(|c| c[i].load(Relaxed) == generation | LIVE)
    }

    /// How many chunks are allocated (tests).
    #[cfg(all(test, not(loom)))]
    fn allocated(&self) -> usize {
        self.chunks.iter().filter(|c| c.get().is_some()).count()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn chunks_double_and_cover_every_slot() {
        let t = Generations::new(4);
        assert_eq!(t.place(0), (0, 0));
        assert_eq!(t.place(3), (0, 3));
        assert_eq!(t.place(4), (1, 0));
        assert_eq!(t.place(11), (1, 7));
        assert_eq!(t.place(12), (2, 0));
        let (k, i) = t.place((1 << 31) - 2);
        assert!(k < CHUNKS && i < (4usize << k));
        let one = Generations::new(1);
        let (k, i) = one.place((1 << 31) - 2);
        assert!(
            k < CHUNKS && i < (1usize << k),
            "one-slot chunks still cover 2^31 slots"
        );
    }

    #[test]
    fn a_word_reads_alive_for_its_generation_only() {
        let t = Generations::new(2);
        assert!(!t.is_alive(0, 0), "never handed out");
        assert!(!t.is_alive(100, 0), "chunk not allocated");
        t.set(0, 0, true);
        assert!(t.is_alive(0, 0));
        assert!(!t.is_alive(0, 1));
        assert!(!t.is_alive(0, LIVE), "no handle holds bit 31");
        t.set(0, 0, false);
        assert!(!t.is_alive(0, 0), "killed");
        t.set(0, 1, false);
        t.set(0, 1, true);
        assert!(
            t.is_alive(0, 1) && !t.is_alive(0, 0),
            "reused: the old handle stays dead"
        );
        t.set(9, 3, true);
        assert!(t.is_alive(9, 3));
        assert_eq!(
            t.allocated(),
            2,
            "chunks 0 (slots 0..2) and 2 (6..14): no slot of 1 handed out"
        );
    }

    /// A reader thread checks a slot while this thread creates, kills and
    /// reclaims its entity, and allocates later chunks: each generation, once
    /// seen dead after its life, is never seen alive again (Miri runs it
    /// for data races and aliasing).
    #[test]
    fn a_reader_thread_never_sees_a_dead_generation_alive_again() {
        // The reader scans every generation not yet seen on each pass: few
        // rounds, and a yield per pass, keep it short under Miri and
        // valgrind, whose threads take turns (a spinning reader starved
        // the writer there).
        let rounds: u32 = if cfg!(miri) { 20 } else { 200 };
        let t = std::sync::Arc::new(Generations::new(1));
        t.set(0, 0, true);
        let reader = {
            let t = t.clone();
            std::thread::spawn(move || {
                // The newest generation seen alive: the word only moves
                // forward, so no older one reads alive after it.
                let mut newest = 0;
                while newest < rounds {
                    if newest > 0 {
                        assert!(!t.is_alive(0, newest - 1), "generation {} alive again", newest - 1);
                    }
                    if let Some(g) = (newest..=rounds).find(|&g| t.is_alive(0, g)) {
                        newest = g;
                    }
                    // Chunks being allocated by the writer meanwhile.
                    let _ = t.is_alive(newest + 1, 0);
                    std::thread::yield_now();
                }
            })
        };
        for g in 0..rounds {
            t.set(0, g, false);
            t.set(0, g + 1, false);
            t.set(0, g + 1, true);
            t.set(g + 1, 0, true);
        }
        reader.join().unwrap();
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;

    /// The writer kills and reclaims slot 0's entity and gives the slot to
    /// a new one; a reader that saw the new entity alive then sees the old
    /// one dead (coherence of the one word), and a handle sent after the
    /// kill reads dead.
    #[test]
    fn loom_a_reader_sees_each_slot_in_order() {
        loom::model(|| {
            let t = Arc::new(Generations::new(1));
            t.set(0, 0, true);
            let killed = Arc::new(loom::sync::atomic::AtomicBool::new(false));
            let reader = {
                let (t, killed) = (t.clone(), killed.clone());
                loom::thread::spawn(move || {
                    let told = killed.load(loom::sync::atomic::Ordering::Acquire);
                    let old = t.is_alive(0, 0);
                    let new = t.is_alive(0, 1);
                    let old_again = t.is_alive(0, 0);
                    assert!(!(told && old), "told of the kill, still saw it alive");
                    assert!(!(new && old_again), "saw the new entity, then the old one alive");
                })
            };
            t.set(0, 0, false);
            killed.store(true, loom::sync::atomic::Ordering::Release);
            t.set(0, 1, false);
            t.set(0, 1, true);
            reader.join().unwrap();
        });
    }
}
