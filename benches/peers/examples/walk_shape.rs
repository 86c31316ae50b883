//! A diagnosis of ecs's block walk against hand-written chunks of 8
//! (BENCHMARKS.md, "Where the gaps come from", stop 51): `position +=
//! velocity` over two arrays of 10 000 `[f32; 2]`, at the page offsets of
//! ecs's columns in `move_placement.rs` (positions 3 520 bytes past a page,
//! velocities 3 072; `PAGE_AT=P,V` to change them; `N=n` for `n`
//! entities), each form timed in turn, the minimum over rounds of the mean
//! kept:
//!
//! - `asm_ecs`: the instruction order of ecs's block loop (`objdump` of
//!   `move_placement`'s `system_body`), in assembly: a block's four position
//!   vectors loaded, the velocities loaded and added, then the four stored;
//!   its loop placed 0-63 bytes past a line, 64 copies;
//! - `asm_hand`: the order the compiler gives the hand-written chunks, each
//!   sum stored before the next velocity is loaded: the same instructions,
//!   placed likewise;
//! - `chunks8`: the hand-written chunks of 8, as arrays;
//! - `raw_staged`: ecs's shape in Rust, raw pointers and a block moved to a
//!   stack buffer and back, the pointers taken from the function's slice
//!   parameters, which tell the compiler the two arrays apart;
//! - `raw_refs`: the same pointers, each block handed as `&mut [_; 8]` and
//!   `&[_; 8]` to an inlined function;
//! - `opaque_staged`, `opaque_refs`: `raw_staged` and `raw_refs` with the
//!   pointers passed through `black_box`, so that, as in ecs (whose
//!   pointers come from its columns), nothing tells the compiler that a
//!   store to a position leaves the later velocities alone;
//! - `opaque_each`: `opaque_staged` storing each position back right after
//!   its entity;
//! - `opaque_one`: `opaque_staged`'s blocks in a function whose one
//!   reference parameter is the positions' bytes (ecs's walk since stop 51,
//!   `ecs-core/src/block_walk.rs`).
//!
//! ```sh
//! cargo build --release --manifest-path benches/peers/Cargo.toml --example walk_shape
//! benches/peers/target/release/examples/walk_shape [ROUNDS]
//! ```

#[path = "common/timing.rs"]
mod timing;
use core::mem::MaybeUninit;
use core::ptr;
use std::hint::black_box;

/// Entities moved per call.
const N: usize = 10_000;

/// Move: one entity.
#[inline(always)]
fn advance(p: &mut [f32; 2], v: &[f32; 2]) {
    p[0] += v[0];
    p[1] += v[1];
}

/// The hand-written chunks of 8 (`libs/chunked.rs`'s form).
#[inline(never)]
fn chunks8(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    for (p, v) in pos.chunks_exact_mut(8).zip(vel.chunks_exact(8)) {
        let p: &mut [[f32; 2]; 8] = p.try_into().unwrap();
        let v: &[[f32; 2]; 8] = v.try_into().unwrap();
        for j in 0..8 {
            advance(&mut p[j], &v[j]);
        }
    }
}

/// ecs's staged blocks over `n` blocks of positions at `p` and velocities
/// at `v`, each block moved to a stack buffer and back (`each`: each value
/// stored back right after its entity instead). Inlined, so that the
/// compiler knows of the pointers what its caller does.
///
/// # Safety
/// `p` and `v` point to `8 * n` values each, which nothing else reaches
/// while this runs, and the two do not overlap.
#[inline(always)]
unsafe fn staged_blocks<const EACH: bool>(p: *mut [f32; 2], v: *const [f32; 2], n: usize) {
    for b in 0..n {
        // SAFETY: block `b`'s 8 values are within both arrays (`b < n`);
        // the buffer is a distinct local array, read only once filled.
        unsafe {
            let mut buf: [MaybeUninit<[f32; 2]>; 8] = [const { MaybeUninit::uninit() }; 8];
            ptr::copy_nonoverlapping(p.add(8 * b), buf.as_mut_ptr().cast(), 8);
            for (j, x) in buf.iter_mut().enumerate() {
                advance(x.assume_init_mut(), &*v.add(8 * b + j));
                if EACH {
                    ptr::write(p.add(8 * b + j), x.assume_init());
                }
            }
            if !EACH {
                ptr::copy_nonoverlapping(buf.as_ptr().cast(), p.add(8 * b), 8);
            }
        }
    }
}

/// ecs's shape: raw pointers, a stack buffer moved in and out.
#[inline(never)]
fn raw_staged(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    let n = pos.len().min(vel.len()) / 8;
    // SAFETY: `n` blocks of each slice, which cannot overlap.
    unsafe { staged_blocks::<false>(pos.as_mut_ptr(), vel.as_ptr(), n) }
}

/// `raw_staged` with pointers the compiler cannot trace to the slices (as
/// ecs's, read from its columns): it cannot tell that a store to a
/// position does not change a later velocity.
#[inline(never)]
fn opaque_staged(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    let n = pos.len().min(vel.len()) / 8;
    // SAFETY: as `raw_staged`'s (the same pointers, laundered).
    unsafe { staged_blocks::<false>(black_box(pos.as_mut_ptr()), black_box(vel.as_ptr()), n) }
}

/// `opaque_staged`, each value stored back right after its entity.
#[inline(never)]
fn opaque_each(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    let n = pos.len().min(vel.len()) / 8;
    // SAFETY: as `raw_staged`'s (the same pointers, laundered).
    unsafe { staged_blocks::<true>(black_box(pos.as_mut_ptr()), black_box(vel.as_ptr()), n) }
}

/// One block, its two arrays as parameters.
#[inline(always)]
fn block(p: &mut [[f32; 2]; 8], v: &[[f32; 2]; 8]) {
    for j in 0..8 {
        advance(&mut p[j], &v[j]);
    }
}

/// Raw pointers, the block as references (noalias parameters once inlined).
#[inline(never)]
fn raw_refs(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    let n = pos.len().min(vel.len()) / 8;
    let p = pos.as_mut_ptr();
    let v = vel.as_ptr();
    for b in 0..n {
        // SAFETY: block `b`'s 8 elements are within both slices (`b < n`),
        // which cannot overlap (one is borrowed mutably).
        unsafe { block(&mut *p.add(8 * b).cast(), &*v.add(8 * b).cast()) }
    }
}

/// `raw_refs` with laundered pointers, as `opaque_staged`: the block's
/// references, as parameters, are all that tells the compiler the arrays
/// apart.
#[inline(never)]
fn opaque_refs(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    let n = pos.len().min(vel.len()) / 8;
    let p = black_box(pos.as_mut_ptr());
    let v = black_box(vel.as_ptr());
    for b in 0..n {
        // SAFETY: as `raw_refs`'s (the same pointers, laundered).
        unsafe { block(&mut *p.add(8 * b).cast(), &*v.add(8 * b).cast()) }
    }
}

/// `opaque_staged`'s blocks in a function called with the positions'
/// bytes as its one reference parameter (`&mut [MaybeUninit<u8>]`), the
/// positions reached through it, the velocities through the laundered
/// pointer.
#[inline(never)]
fn opaque_one(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    let n = pos.len().min(vel.len()) / 8;
    let p = black_box(pos.as_mut_ptr());
    let v = black_box(vel.as_ptr());
    // SAFETY: the positions' bytes, borrowed from `pos` for the call.
    let bytes = unsafe { core::slice::from_raw_parts_mut(p.cast::<MaybeUninit<u8>>(), n * 64) };
    one_param(bytes, v, n);
}

/// `opaque_one`'s walk.
#[inline(never)]
fn one_param(bytes: &mut [MaybeUninit<u8>], v: *const [f32; 2], n: usize) {
    // SAFETY: as `raw_staged`'s; `bytes` holds `n` blocks of positions,
    // reached through it alone.
    unsafe { staged_blocks::<false>(bytes.as_mut_ptr().cast(), v, n) }
}

/// ecs's instruction order, in assembly: 4 loads, 4 load-adds, 4 stores.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn asm_ecs<const K: usize>(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    let n = pos.len().min(vel.len()) / 8;
    if n == 0 {
        return;
    }
    // SAFETY: the loop reads and writes the `n` blocks of 64 bytes from
    // each slice's start, within both (`n` full blocks in each), and
    // changes only the registers it declares.
    unsafe {
        core::arch::asm!(
            "jmp 2f",
            ".p2align 6",
            ".skip {k}, 0xcc",
            "2:",
            "movups xmm0, [{p}]",
            "movups xmm1, [{p} + 16]",
            "movups xmm2, [{p} + 32]",
            "movups xmm3, [{p} + 48]",
            "movups xmm4, [{v}]",
            "addps xmm4, xmm0",
            "movups xmm0, [{v} + 16]",
            "addps xmm0, xmm1",
            "movups xmm1, [{v} + 32]",
            "addps xmm1, xmm2",
            "movups xmm2, [{v} + 48]",
            "addps xmm2, xmm3",
            "movups [{p}], xmm4",
            "movups [{p} + 16], xmm0",
            "movups [{p} + 32], xmm1",
            "movups [{p} + 48], xmm2",
            "add {p}, 64",
            "add {v}, 64",
            "dec {n}",
            "jne 2b",
            p = inout(reg) pos.as_mut_ptr() => _,
            v = inout(reg) vel.as_ptr() => _,
            n = inout(reg) n => _,
            k = const K,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _,
            options(nostack),
        );
    }
}

/// The hand-written order, in assembly.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn asm_hand<const K: usize>(pos: &mut [[f32; 2]], vel: &[[f32; 2]]) {
    let n = pos.len().min(vel.len()) / 8;
    if n == 0 {
        return;
    }
    // SAFETY: the loop reads and writes the `n` blocks of 64 bytes from
    // each slice's start, within both (`n` full blocks in each), and
    // changes only the registers it declares.
    unsafe {
        core::arch::asm!(
            "jmp 2f",
            ".p2align 6",
            ".skip {k}, 0xcc",
            "2:",
            "movups xmm0, [{v}]",
            "movups xmm1, [{p}]",
            "addps xmm1, xmm0",
            "movups xmm0, [{p} + 16]",
            "movups xmm2, [{p} + 32]",
            "movups xmm3, [{p} + 48]",
            "movups [{p}], xmm1",
            "movups xmm1, [{v} + 16]",
            "addps xmm1, xmm0",
            "movups [{p} + 16], xmm1",
            "movups xmm0, [{v} + 32]",
            "addps xmm0, xmm2",
            "movups [{p} + 32], xmm0",
            "movups xmm0, [{v} + 48]",
            "addps xmm0, xmm3",
            "movups [{p} + 48], xmm0",
            "add {p}, 64",
            "add {v}, 64",
            "dec {n}",
            "jne 2b",
            p = inout(reg) pos.as_mut_ptr() => _,
            v = inout(reg) vel.as_ptr() => _,
            n = inout(reg) n => _,
            k = const K,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
            options(nostack),
        );
    }
}

/// One form: moves `pos` by `vel`.
type MoveFn = fn(&mut [[f32; 2]], &[[f32; 2]]);

/// The 64 copies of `$f`, its loop starting 0-63 bytes past a line.
#[cfg(target_arch = "x86_64")]
macro_rules! placed {
    ($f:ident) => {
        placed!($f: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63)
    };
    ($f:ident: $($k:literal)*) => {
        vec![$($f::<$k> as MoveFn),*]
    };
}

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(5, |s| s.parse().unwrap());
    let page_at: (usize, usize) = std::env::var("PAGE_AT")
        .ok()
        .and_then(|v| {
            let (p, v) = v.split_once(',')?;
            Some((p.parse().ok()?, v.parse().ok()?))
        })
        .unwrap_or((3520, 3072));
    // `N=n`: `n` entities instead.
    let n: usize = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(N);
    let mut pos_buf: Vec<[f32; 2]> = (0..n + 4096).map(|i| [i as f32; 2]).collect();
    let vel_buf: Vec<[f32; 2]> = (0..n + 4096).map(|i| [i as f32 * 1e-3; 2]).collect();
    // The first element of `v` at `want` bytes past a page.
    let skip = |v: usize, want: usize| {
        (0..4096)
            .find(|&s| (v + s * 8) % 4096 == want % 4096)
            .expect("an element boundary at that offset")
    };
    let ps = skip(pos_buf.as_ptr() as usize, page_at.0);
    let vs = skip(vel_buf.as_ptr() as usize, page_at.1);
    let pos = &mut pos_buf[ps..ps + n];
    let vel = &vel_buf[vs..vs + n];
    println!(
        "positions {} bytes past a page, velocities {}",
        pos.as_ptr() as usize % 4096,
        vel.as_ptr() as usize % 4096
    );
    // Each form's copies (one unless placed), each copy's best mean.
    let mut forms: Vec<(&str, Vec<MoveFn>)> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    forms.extend([("asm_ecs", placed!(asm_ecs)), ("asm_hand", placed!(asm_hand))]);
    forms.extend([
        ("chunks8", vec![chunks8 as MoveFn]),
        ("raw_staged", vec![raw_staged]),
        ("raw_refs", vec![raw_refs]),
        ("opaque_staged", vec![opaque_staged]),
        ("opaque_each", vec![opaque_each]),
        ("opaque_refs", vec![opaque_refs]),
        ("opaque_one", vec![opaque_one]),
    ]);
    let mut ns: Vec<Vec<f64>> = forms.iter().map(|(_, c)| vec![f64::INFINITY; c.len()]).collect();
    for _ in 0..rounds {
        for (t, (_, copies)) in ns.iter_mut().zip(&forms) {
            for (t, f) in t.iter_mut().zip(copies) {
                *t = t.min(timing::time(4000, || f(black_box(&mut *pos), black_box(vel))));
            }
        }
    }
    for (t, (name, copies)) in ns.iter().zip(&forms) {
        let (lo, mid, hi) = timing::spread(t);
        if copies.len() == 1 {
            println!("{name:13} {lo:.0} ns");
        } else {
            println!(
                "{name:13} min {lo:.0} ns, median {mid:.0}, max {hi:.0} over {} placements of the loop",
                copies.len()
            );
        }
    }
}
