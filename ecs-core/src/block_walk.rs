//! The walk of a run of ids in blocks (see `block`), shared by a system's
//! walks (`Data::for_each` and its variants) and the step proxy's
//! (`Defer::for_each`, `PreparedQuery::for_each`).
//!
//! When an element of the query stages its values (`QueryCode::STAGED`),
//! the blocks run in a function of their own, handed those values' bytes
//! as a reference parameter ([`walk_apart`]). Nothing else tells the
//! compiler that a block's stores, when it moves the values back, leave
//! the values it reads from other columns alone: the columns' addresses
//! come from their storages, and a store through one might change what
//! the next load reads through another. It then keeps every store of a
//! block after every load of it. Over 10 000 `[f32; 2]` positions and
//! velocities (`benches/peers/examples/walk_shape.rs`), the same Rust took
//! 1.71 µs with pointers it cannot trace (`opaque_staged`) and 1.56 µs with
//! the positions' bytes a reference parameter (`opaque_one`), as fast as
//! hand-written chunks of 8 (1.57 µs). Inlined, the parameter no longer
//! tells it anything it uses: blocks handed as `&mut [_; 8]` and `&[_; 8]`
//! to an inlined function compiled scalar (`opaque_refs`, 5.7 µs). Past
//! the caches the compiler's first order is the faster one, and a long run
//! keeps it ([`APART_MAX`]).
//!
//! That compiles the block loop twice, once per order: a crate of 32 block
//! walks took 1.76-2.02 s of CPU in release against 1.42-1.49 before this
//! walk (`COMPILE_COST.md`, stop 51). One loop, every run walked this way,
//! compiled as fast as before, and cost the particle simulation's
//! 200 000-particle wave without inner parallelism 7% (15.1 s against
//! 14.2, the hand-written version 14.6 and 14.5: 1.04x against 0.98x;
//! c5514f8, reverted), whose runs are long.

use crate::block::BLOCK;
use crate::decl::ContextDecl;
use crate::query::QueryCode;
use core::mem::MaybeUninit;
use core::ptr::NonNull;

/// The most bytes a run's blocks may hold for [`walk_apart`] to walk them:
/// the staged values' bytes times one plus the number of elements read
/// (an estimate of what the blocks load, as if each read element were as
/// large as the staged one). A longer run is walked with every store of a
/// block after every load of it, as the compiler orders it without the
/// reference.
///
/// Past the caches, that order is the faster: over `[f32; 2]` positions
/// and velocities (`walk_shape`, `N`, the arrays 1 600 bytes apart in
/// their pages; this machine's cores have 1 MiB of L2 each), `opaque_one`
/// took 5.17 µs against `opaque_staged`'s 5.63 at 32 000 entities (512
/// KiB in all), 8.51 against 8.48 at 48 000, 12.65 against 12.16 at 65 535
/// and 19.4 against 18.4 at 100 000.
const APART_MAX: usize = 512 * 1024;

/// Calls `f` with the item of each of the first `len / BLOCK * BLOCK` ids
/// of the run at `run`, a block at a time, and returns how many that is.
///
/// # Safety
/// For each id of the run `start..start + len` of `run`, `Q::fetch`'s
/// guarantees: the fetch state is live, the id holds every component `Q`
/// borrows, and nothing but the walk reads or writes the values `Q`
/// borrows mutably, nor writes those it reads, while this runs (`f` cannot
/// reach them but through its items); `Q` is conflict-free (`is_valid`).
// Unused by a debug build's system walks outside Miri (`walk_body!` in
// `proxy/data.rs`).
#[inline(always)]
pub(crate) unsafe fn walk_blocks<Cx: ContextDecl, Q: QueryCode<Cx>>(
    run: &Q::Run,
    len: usize,
    f: &mut impl FnMut(Q::Item<'_>),
) -> usize {
    // Counted in blocks, and the count of entities computed after the loop:
    // a counter of entities kept in the loop cost the compiler two more
    // additions per block (simple_iter's 1 250 blocks).
    let blocks = len / BLOCK;
    if blocks > 0 {
        match Q::staged_first(run) {
            // The estimate saturates: on a 32-bit target, a run's bytes
            // times the elements read may not fit a `usize`.
            Some((first, size)) if (blocks * BLOCK * size).saturating_mul(1 + Q::READS) <= APART_MAX => {
                // SAFETY: the staged element's column is linear, so the
                // values of the blocks' ids lie side by side from `first`,
                // `size` bytes each, and they are initialised values (bytes
                // as `MaybeUninit`: a value's padding may not be). Nothing
                // but the walk reaches them while `walk_apart` runs (the
                // caller's guarantees), so they may be borrowed mutably.
                let bytes = unsafe {
                    core::slice::from_raw_parts_mut(first.cast::<MaybeUninit<u8>>().as_ptr(), blocks * BLOCK * size)
                };
                // SAFETY: the caller's guarantees; `bytes` are the staged
                // element's values of the blocks, from `staged_first`'s
                // address.
                unsafe { walk_apart::<Cx, Q>(bytes, run, blocks, f) };
            }
            // SAFETY: the caller's guarantees, for the blocks' ids.
            _ => unsafe { blocks_of::<Cx, Q>(run, blocks, f) },
        }
    }
    blocks * BLOCK
}

/// The blocks of [`walk_blocks`] when an element stages its values, those
/// values' bytes a reference parameter (`staged`), reached through it
/// alone: see the module's documentation. Out of line, for that.
///
/// # Safety
/// [`walk_blocks`]'s, for the first `blocks * BLOCK` ids of the run;
/// `staged` holds the values of those ids of the element
/// `Q::staged_first` names, from the address it gave for `run`.
#[inline(never)]
unsafe fn walk_apart<Cx: ContextDecl, Q: QueryCode<Cx>>(
    staged: &mut [MaybeUninit<u8>],
    run: &Q::Run,
    blocks: usize,
    f: &mut impl FnMut(Q::Item<'_>),
) {
    // SAFETY: `staged` starts at the address `staged_first` gave (caller).
    let run = unsafe { Q::with_staged_first(*run, NonNull::from(staged).cast()) };
    // SAFETY: the caller's guarantees, for the same ids; the staged
    // element's values are now reached through `staged` alone.
    unsafe { blocks_of::<Cx, Q>(&run, blocks, f) };
}

/// Calls `f` with the item of each of the first `blocks * BLOCK` ids of the
/// run at `run`, a block at a time.
///
/// # Safety
/// [`walk_blocks`]'s, for those ids.
#[inline(always)]
unsafe fn blocks_of<Cx: ContextDecl, Q: QueryCode<Cx>>(run: &Q::Run, blocks: usize, f: &mut impl FnMut(Q::Item<'_>)) {
    for b in 0..blocks {
        // SAFETY: the ids up to the block's last, `start + (b + 1) * BLOCK
        // - 1`, are within the run (`b < blocks`) and have the caller's
        // guarantees. The block lives for this iteration only, during which
        // only its items reach the values it borrows.
        let mut block = unsafe { Q::block(run, b * BLOCK) };
        for j in 0..BLOCK {
            // SAFETY: `j < BLOCK`.
            f(unsafe { Q::block_item(&mut block, j) });
        }
    }
}
