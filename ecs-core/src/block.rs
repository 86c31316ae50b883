//! Blocks of entities: how a system's iteration lets the compiler vectorise
//! the closure it runs per entity.
//!
//! When a subtask's entities are one run of ids,
//! [`Data::for_entities_in_blocks`](crate::Data::for_entities_in_blocks)
//! (and [`Data::for_entities`](crate::Data::for_entities), for a query that
//! writes one component whose column keeps values side by side and reads
//! another) hands the
//! entities out in blocks of [`BLOCK`]. The values the query writes are moved out of
//! their columns into a buffer on the stack ([`Staged`]), the closure works
//! on them there, and they move back when the block ends, also when the
//! closure panics. Writes to the buffer then provably cannot change the
//! components the query reads in place, so the compiler may load and
//! compute a whole block at once: a `position += velocity` over 12-byte
//! components runs 2.5x faster than over the columns in place, where each
//! store might change the next entity's velocity and the loop stays scalar.
//!
//! A query that writes one component and reads nothing does not stage:
//! there is nothing a write could change, and the compiler vectorises a
//! walk over the column in place (a [`Place`] for the whole run of ids;
//! from the step proxy, [`CHUNK`] ids at a time).
//!
//! No code can tell where a value is while it is staged: the subtask owns
//! its entities' written components, and nothing the closure can reach
//! (its `View`) reads a component the system writes.
//!
//! What staging does not give back: the compiler still cannot tell that
//! the block's stores to the written column leave the read columns alone,
//! so it keeps them after all of the block's loads. `block_walk` hands the
//! staged values' bytes to the function that walks the blocks as a
//! reference parameter, which tells it (see there).

use crate::handle::EntityId;
use crate::storage::Column;
use core::mem::MaybeUninit;
use core::ptr::{self, NonNull};

/// Entities per block.
pub(crate) const BLOCK: usize = 8;

/// Entities per chunk of a step proxy's walk in place over one written
/// column that reads nothing ([`QueryCode::IN_CHUNKS`](crate::query::QueryCode::IN_CHUNKS):
/// `Defer::for_each` and `PreparedQuery::for_each`): the walk calls its
/// closure for 16 consecutive ids in a loop of fixed count, which the
/// compiler turns into 16 values per vector loop iteration (here unrolled
/// to 32), then for the rest one by one.
///
/// Over a plain range, the compiler's vector loop did 8 values per
/// iteration in 37 bytes of code, which ran 9-13% slower when they crossed
/// a 64-byte line than when they did not: frag_iter's 520 values took 35.2
/// ns at 32 of 64 placements of the walk's code and 38.4-39.8 ns at the
/// other 32 (`benches/peers/examples/frag_placement.rs`; at every byte
/// offset, with `-align-loops=1`, fast at the 28 where the loop fits one
/// line). In chunks it took 35.2-36.1 ns at all 64.
///
/// A system's walk (`Data::for_each`, `walk_run!` in `proxy/data.rs`)
/// stays a plain range: in chunks there the same driver measured 40.2-42.2
/// ns at every placement against 37.8-39.1 ns at half of them and 43.6 at
/// the other half, no faster on average.
pub(crate) const CHUNK: usize = 16;

/// The largest component (in bytes) that a block stages; larger ones are
/// written in place, where moving them would cost more than it gains.
const MAX_STAGED: usize = 64;

/// Where the values of column `K` for the ids from `start` on are (a block
/// of them, or a whole run of consecutive ids): from the first one's
/// address when the column is linear, so that the accesses are offsets
/// from one address, which the compiler can load together and walk with a
/// pointer; through the column's fetch state otherwise.
pub struct Place<K: Column> {
    // Read by `place_ptr!` where a query expands it.
    pub(crate) fetch: K::Fetch,
    pub(crate) start: EntityId,
    /// The first id's value when the column is linear; dangling otherwise.
    pub(crate) first: NonNull<K::Item>,
}

/// [`Place::ptr`] of `$place` (a `Place<$K>`, evaluated more than once: a
/// place expression) for `$j`, expanded where a walk reaches each entity's
/// value (the queries' `run_item`): as the always-inlined method, a debug
/// build described and spilled its two parameters in every walk, for each
/// component of the query (rustc's instructions for the 64/32 debug build:
/// COMPILE_COST.md's sixteenth round). To be used inside an `unsafe` block,
/// with `ptr`'s contract.
macro_rules! place_ptr {
    ($K:ty, $place:expr, $j:expr) => {
        if <$K as Column>::LINEAR {
            $place.first.add($j)
        } else {
            <$K as Column>::fetch($place.fetch, EntityId($place.start.0 + $j as u32))
        }
    };
}
pub(crate) use place_ptr;

// By hand: a derive would ask `K: Copy`.
impl<K: Column> Clone for Place<K> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: Column> Copy for Place<K> {}

impl<K: Column> Place<K> {
    /// The place of the ids from `start` on.
    ///
    /// # Safety
    /// `fetch` comes from `fetch_state` of a column that stays
    /// shared-borrowed (so neither moved nor dropped) while the place is
    /// used, and `start` has a value.
    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) unsafe fn new(fetch: K::Fetch, start: EntityId) -> Self {
        let first = if K::LINEAR {
            // SAFETY: `start` has a value (caller).
            unsafe { K::fetch(fetch, start) }
        } else {
            // A constant: `dangling` called was one more function per
            // column type in a debug build.
            const { NonNull::dangling() }
        };
        Place { fetch, start, first }
    }

    /// The place of the ids from `start + k` on.
    ///
    /// # Safety
    /// Every id of `start..=start + k` has a value.
    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) unsafe fn offset(&self, k: usize) -> Self {
        Place {
            fetch: self.fetch,
            start: EntityId(self.start.0 + k as u32),
            // SAFETY: as `ptr`'s, forwarded from the caller (unused when
            // the column is not linear).
            first: if K::LINEAR { unsafe { self.ptr(k) } } else { self.first },
        }
    }

    /// A pointer to the value of id `start + j`, under the column's
    /// contract (`Column::get_ptr`): valid for reads, and for writes through
    /// this shared borrow of the column. Queries turn it into their item
    /// themselves (no `get`/`get_mut` layer: in a debug build each layer is
    /// one more function per column type).
    ///
    /// A `NonNull`, which queries turn into references with its `as_ref`
    /// and `as_mut`: a debug build checks every dereference of a raw
    /// pointer written in this crate (alignment and null: 12 instructions
    /// and two panic branches each, in every walk), but not those inside
    /// the standard library's methods, and this pointer is aligned and not
    /// null by the column's contract.
    ///
    /// # Safety
    /// Every id of `start..=start + j` has a value.
    #[inline(always)]
    pub(crate) unsafe fn ptr(&self, j: usize) -> NonNull<K::Item> {
        // SAFETY: the ids `start..=start + j` have values (caller): in a
        // linear column they lie side by side from `first`; otherwise id
        // `start + j` has a value and the fetch state is live (`new`'s
        // contract).
        unsafe { place_ptr!(K, self, j) }
    }
}

/// The values of column `K` that one block of a system's iteration writes:
/// moved into `buf` while the block runs when the column is linear and the
/// values small ([`STAGES`](Self::STAGES)), reached in place otherwise.
pub struct Staged<K: Column> {
    place: Place<K>,
    buf: [MaybeUninit<K::Item>; BLOCK],
}

impl<K: Column> Staged<K> {
    /// Whether values are moved into the buffer.
    pub(crate) const STAGES: bool = K::LINEAR && size_of::<K::Item>() > 0 && size_of::<K::Item>() <= MAX_STAGED;

    /// The block of ids `start..start + BLOCK` of `place`, their values
    /// moved into the buffer when [`STAGES`](Self::STAGES).
    ///
    /// # Safety
    /// `place`'s column stays shared-borrowed while the block lives, and
    /// every id of the block has a value; while it lives, nothing but the
    /// block reads or writes those values (the caller holds the only right
    /// to write them, and hands out no other access to them).
    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) unsafe fn new(place: Place<K>) -> Self {
        let mut block = Staged {
            place,
            buf: [const { MaybeUninit::uninit() }; BLOCK],
        };
        if Self::STAGES {
            // SAFETY: the column is linear, so the block's `BLOCK` values lie
            // side by side from `first`; the buffer is a distinct stack
            // array of as many. The values are moved (not copied): the
            // column's bytes are not read again before `drop` moves them
            // back (nothing else touches them while the block lives).
            unsafe { ptr::copy_nonoverlapping(block.place.first.as_ptr(), block.buf.as_mut_ptr().cast(), BLOCK) };
        }
        block
    }

    /// The value of id `start + j`, mutably.
    ///
    /// # Safety
    /// `j < BLOCK`.
    #[inline(always)]
    pub(crate) unsafe fn get(&mut self, j: usize) -> &mut K::Item {
        if Self::STAGES {
            // SAFETY: `j < BLOCK` (caller); `new` moved a value into every
            // element of the buffer.
            unsafe { self.buf.get_unchecked_mut(j).assume_init_mut() }
        } else {
            // SAFETY: the ids `start..=start + j` are the block's (`j <
            // BLOCK`), which have values, so the pointer is valid (`ptr`'s
            // contract); only the block reaches them (`new`'s contract), and
            // `&mut self` makes the borrow unique.
            unsafe { self.place.ptr(j).as_mut() }
        }
    }
}

impl<K: Column> Drop for Staged<K> {
    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn drop(&mut self) {
        if Self::STAGES {
            // SAFETY: moves every value back into the slot it came from
            // (`first`, of a column still live: `new`'s contract); the buffer
            // is not used again.
            unsafe { ptr::copy_nonoverlapping(self.buf.as_ptr().cast(), self.place.first.as_ptr(), BLOCK) };
        }
    }
}
