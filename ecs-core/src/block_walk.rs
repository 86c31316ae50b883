//! The walk of a run of ids in blocks (see `block`), shared by a system's
//! walks (`Data::for_each` and its variants) and the step proxy's
//! (`Defer::for_each`, `PreparedQuery::for_each`).
//!
//! The blocks run in a function of their own ([`walk_apart`]), handed the
//! bytes of the values an element stages (`QueryCode::STAGED`) as a
//! reference parameter. Nothing else tells the compiler that a block's
//! stores, when it moves those values back, leave the values it reads
//! from other columns alone: the columns' addresses come from their
//! storages, and a store through one might change what the next load reads
//! through another. It then keeps every store of a block after every load
//! of it. Over 10 000 `[f32; 2]` positions and velocities
//! (`benches/peers/examples/walk_shape.rs`), the same Rust took 1.71 µs
//! with pointers it cannot trace (`opaque_staged`) and 1.56 µs with the
//! positions' bytes a reference parameter (`opaque_one`), as fast as
//! hand-written chunks of 8 (1.57 µs). Inlined, the parameter no longer
//! tells it anything it uses: blocks handed as `&mut [_; 8]` and `&[_; 8]`
//! to an inlined function compiled scalar (`opaque_refs`, 5.7 µs).
//!
//! Past the L2 cache the old order was the faster (`N`: 12.2 against 12.7
//! µs at 65 535 movers, 71 against 76 at 400 000; 5.6 against 5.2 at 32
//! 000), as fast as the hand-written chunks are there. Walking long runs
//! the old way too measured 1.76-2.02 s of CPU for a crate of 32 block
//! walks in release against 1.42-1.49 before (the block loop compiled
//! twice), so every run takes this one.

use crate::block::BLOCK;
use crate::decl::ContextDecl;
use crate::query::QueryCode;
use core::mem::MaybeUninit;
use core::ptr::NonNull;

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
        // One call either way, so that the block loop is compiled once.
        let staged: &mut [MaybeUninit<u8>] = match Q::staged_first(run) {
            // SAFETY: the staged element's column is linear, so the values
            // of the blocks' ids lie side by side from `first`, `size`
            // bytes each, and they are initialised values (bytes as
            // `MaybeUninit`: a value's padding may not be). Nothing but the
            // walk reaches them while `walk_apart` runs (the caller's
            // guarantees), so they may be borrowed mutably.
            Some((first, size)) => unsafe {
                core::slice::from_raw_parts_mut(first.cast::<MaybeUninit<u8>>().as_ptr(), blocks * BLOCK * size)
            },
            // No element stages (a query walked in blocks on request):
            // nothing to hand over.
            None => &mut [],
        };
        // SAFETY: the caller's guarantees; `staged` holds the staged
        // element's values of the blocks, from `staged_first`'s address,
        // or is empty when no element stages.
        unsafe { walk_apart::<Cx, Q>(staged, run, blocks, f) };
    }
    blocks * BLOCK
}

/// The blocks of [`walk_blocks`], the staged values' bytes a reference
/// parameter (`staged`), reached through it alone: see the module's
/// documentation. Out of line, for that.
///
/// # Safety
/// [`walk_blocks`]'s, for the first `blocks * BLOCK` ids of the run;
/// `staged` holds the values of those ids of the element
/// `Q::staged_first` names, from the address it gave for `run`, or is
/// empty when it names none.
#[inline(never)]
unsafe fn walk_apart<Cx: ContextDecl, Q: QueryCode<Cx>>(
    staged: &mut [MaybeUninit<u8>],
    run: &Q::Run,
    blocks: usize,
    f: &mut impl FnMut(Q::Item<'_>),
) {
    // Whether an element stages, as `walk_blocks` found it: known to the
    // compiler for every query of this crate (`staged_first` inlined), so
    // that the loop's pointer to the staged values is `staged`'s alone. (A
    // test of `staged`'s length, known only at run time, left the loop a
    // pointer from either source, and the walk as slow as before: 1.73 µs
    // in `move_placement`.)
    let run = if Q::staged_first(run).is_some() {
        // SAFETY: `staged` starts at the address `staged_first` gave
        // (caller).
        unsafe { Q::with_staged_first(*run, NonNull::from(staged).cast()) }
    } else {
        *run
    };
    for b in 0..blocks {
        // SAFETY: the ids up to the block's last, `start + (b + 1) * BLOCK
        // - 1`, are within the run (`b < blocks`) and have the caller's
        // guarantees; the staged element's values are reached through
        // `staged` alone. The block lives for this iteration only, during
        // which only its items reach the values it borrows.
        let mut block = unsafe { Q::block(&run, b * BLOCK) };
        for j in 0..BLOCK {
            // SAFETY: `j < BLOCK`.
            f(unsafe { Q::block_item(&mut block, j) });
        }
    }
}
