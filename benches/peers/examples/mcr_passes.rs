//! move_collide_render's three passes timed one by one, in the ways the
//! best-effort version (`src/libs/move_collide_render/best.rs`) chose
//! between: each loop 2 000 times, minimum and median printed. Run:
//! `cargo run --release --example mcr_passes` (from `benches/peers`).
//! The data and functions repeat `src/libs/move_collide_render/mod.rs`'s,
//! since examples cannot reach the binary's modules.
use std::hint::black_box;
use std::time::Instant;
#[derive(Clone, Copy)]
pub struct Pos2([f32; 2]);
#[derive(Clone, Copy)]
pub struct Vel2([f32; 2]);
#[derive(Clone, Copy)]
pub struct Extent([f32; 2]);
pub const ENTITIES: usize = 65_535;
pub const WALL: [f32; 4] = [200.0, 100.0, 500.0, 400.0];
pub fn initial(i: usize) -> (Pos2, Vel2, Extent) {
    let i = i as u32;
    (
        Pos2([(i % 256) as f32 * 3.0, (i / 256) as f32 * 3.0]),
        Vel2([((i % 7) as f32 - 3.0) * 0.5, ((i % 5) as f32 - 2.0) * 0.5]),
        Extent([2.0 + (i % 3) as f32, 2.0 + (i % 4) as f32]),
    )
}
#[inline(always)]
pub fn advance(p: &mut Pos2, v: &Vel2) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
}
#[inline(always)]
pub fn hits(p: &Pos2, e: &Extent) -> u32 {
    let [x, y] = p.0;
    u32::from((x < WALL[2]) & (x + e.0[0] > WALL[0]) & (y < WALL[3]) & (y + e.0[1] > WALL[1]))
}
#[inline(always)]
pub fn ink(p: &Pos2) -> u64 {
    (u64::from(p.0[0].to_bits()) << 32) | u64::from(p.0[1].to_bits())
}

struct F {
    p: Vec<Pos2>,
    v: Vec<Vel2>,
    e: Vec<Extent>,
}
impl F {
    fn new() -> Self {
        F {
            p: (0..ENTITIES).map(|i| initial(i).0).collect(),
            v: (0..ENTITIES).map(|i| initial(i).1).collect(),
            e: (0..ENTITIES).map(|i| initial(i).2).collect(),
        }
    }
}
#[inline(never)]
fn mv_plain(f: &mut F) {
    for (p, v) in f.p.iter_mut().zip(&f.v) {
        advance(p, v);
    }
}
#[inline(never)]
fn mv_staged(f: &mut F) {
    const L: usize = 8;
    let mut ps = f.p.chunks_exact_mut(L);
    let mut vs = f.v.chunks_exact(L);
    for (p, v) in (&mut ps).zip(&mut vs) {
        let mut s: [Pos2; L] = core::array::from_fn(|i| p[i]);
        for (p, v) in s.iter_mut().zip(v) {
            advance(p, v);
        }
        p.copy_from_slice(&s);
    }
    for (p, v) in ps.into_remainder().iter_mut().zip(vs.remainder()) {
        advance(p, v);
    }
}
#[inline(never)]
fn col_sum(f: &F) -> u32 {
    f.p.iter().zip(&f.e).map(|(p, e)| hits(p, e)).sum()
}
#[inline(never)]
fn col_if(f: &F) -> u32 {
    let mut c = 0;
    for (p, e) in f.p.iter().zip(&f.e) {
        if hits(p, e) == 1 {
            c += 1;
        }
    }
    c
}
#[inline(never)]
fn col_chunks(f: &F) -> u32 {
    const L: usize = 8;
    let mut acc = [0u32; L];
    let mut ps = f.p.chunks_exact(L);
    let mut es = f.e.chunks_exact(L);
    for (p, e) in (&mut ps).zip(&mut es) {
        for i in 0..L {
            acc[i] += hits(&p[i], &e[i]);
        }
    }
    let mut c: u32 = acc.iter().sum();
    for (p, e) in ps.remainder().iter().zip(es.remainder()) {
        c += hits(p, e);
    }
    c
}
#[inline(never)]
fn col_flat(p: &[[f32; 2]], e: &[[f32; 2]]) -> u32 {
    const L: usize = 16;
    const HI: [f32; L] = {
        let mut a = [0.0; L];
        let mut i = 0;
        while i < L {
            a[i] = if i % 2 == 0 { WALL[2] } else { WALL[3] };
            i += 1;
        }
        a
    };
    const LO: [f32; L] = {
        let mut a = [0.0; L];
        let mut i = 0;
        while i < L {
            a[i] = if i % 2 == 0 { WALL[0] } else { WALL[1] };
            i += 1;
        }
        a
    };
    let (pf, ef) = (p.as_flattened(), e.as_flattened());
    let mut acc = [0u32; L / 2];
    let mut ps = pf.chunks_exact(L);
    let mut es = ef.chunks_exact(L);
    for (p, e) in (&mut ps).zip(&mut es) {
        let mut c = [false; L];
        for j in 0..L {
            c[j] = (p[j] < HI[j]) & (p[j] + e[j] > LO[j]);
        }
        for i in 0..L / 2 {
            acc[i] += u32::from(c[2 * i] & c[2 * i + 1]);
        }
    }
    let mut n: u32 = acc.iter().sum();
    for (p, e) in ps.remainder().chunks_exact(2).zip(es.remainder().chunks_exact(2)) {
        n += hits(&Pos2([p[0], p[1]]), &Extent([e[0], e[1]]));
    }
    n
}
#[inline(never)]
fn col_acc(f: &F) -> u32 {
    let mut acc = [0u32; 8];
    let mut ps = f.p.chunks_exact(8);
    let mut es = f.e.chunks_exact(8);
    for (p, e) in (&mut ps).zip(&mut es) {
        let h: [u32; 8] = core::array::from_fn(|i| hits(&p[i], &e[i]));
        for i in 0..8 {
            acc[i] += h[i];
        }
    }
    let mut c: u32 = acc.iter().sum();
    for (p, e) in ps.remainder().iter().zip(es.remainder()) {
        c += hits(p, e);
    }
    c
}
struct S {
    px: Vec<f32>,
    py: Vec<f32>,
    vx: Vec<f32>,
    vy: Vec<f32>,
    ex: Vec<f32>,
    ey: Vec<f32>,
}
impl S {
    fn new() -> Self {
        let a: Vec<_> = (0..ENTITIES).map(initial).collect();
        S {
            px: a.iter().map(|t| t.0 .0[0]).collect(),
            py: a.iter().map(|t| t.0 .0[1]).collect(),
            vx: a.iter().map(|t| t.1 .0[0]).collect(),
            vy: a.iter().map(|t| t.1 .0[1]).collect(),
            ex: a.iter().map(|t| t.2 .0[0]).collect(),
            ey: a.iter().map(|t| t.2 .0[1]).collect(),
        }
    }
}
#[inline(never)]
fn soa_mv(s: &mut S) {
    for (p, v) in s.px.iter_mut().zip(&s.vx) {
        *p += *v;
    }
    for (p, v) in s.py.iter_mut().zip(&s.vy) {
        *p += *v;
    }
}
#[inline(never)]
fn soa_col(s: &S) -> u32 {
    let n = s.px.len();
    let (px, py, ex, ey) = (&s.px[..n], &s.py[..n], &s.ex[..n], &s.ey[..n]);
    let mut c = 0u32;
    for i in 0..n {
        c += u32::from((px[i] < WALL[2]) & (px[i] + ex[i] > WALL[0]) & (py[i] < WALL[3]) & (py[i] + ey[i] > WALL[1]));
    }
    c
}
#[inline(never)]
fn soa_ren(s: &S) -> u64 {
    let mut acc = [0u64; 8];
    let mut xs = s.px.chunks_exact(8);
    let mut ys = s.py.chunks_exact(8);
    for (x, y) in (&mut xs).zip(&mut ys) {
        for i in 0..8 {
            acc[i] = acc[i].wrapping_add((u64::from(x[i].to_bits()) << 32) | u64::from(y[i].to_bits()));
        }
    }
    let mut c = acc.iter().fold(0u64, |a, b| a.wrapping_add(*b));
    for (x, y) in xs.remainder().iter().zip(ys.remainder()) {
        c = c.wrapping_add((u64::from(x.to_bits()) << 32) | u64::from(y.to_bits()));
    }
    c
}
#[inline(never)]
pub fn render(positions: &[Pos2]) -> u64 {
    let mut lanes = [0u64; 8];
    let mut chunks = positions.chunks_exact(8);
    for chunk in &mut chunks {
        for (lane, p) in lanes.iter_mut().zip(chunk) {
            *lane = lane.wrapping_add(ink(p));
        }
    }
    let rest = chunks.remainder().iter().fold(0u64, |s, p| s.wrapping_add(ink(p)));
    lanes.iter().fold(rest, |s, &lane| s.wrapping_add(lane))
}
#[inline(never)]
fn ren_fold(f: &F) -> u64 {
    f.p.iter().fold(0u64, |s, p| s.wrapping_add(ink(p)))
}
#[inline(never)]
fn ren_chunks(f: &F) -> u64 {
    const L: usize = 8;
    let mut acc = [0u64; L];
    let mut ps = f.p.chunks_exact(L);
    for p in &mut ps {
        for i in 0..L {
            acc[i] = acc[i].wrapping_add(ink(&p[i]));
        }
    }
    let mut c = acc.iter().fold(0u64, |a, b| a.wrapping_add(*b));
    for p in ps.remainder() {
        c = c.wrapping_add(ink(p));
    }
    c
}
fn time<R>(name: &str, mut f: impl FnMut() -> R) {
    let mut best = f64::MAX;
    let mut med = vec![];
    for _ in 0..2000 {
        let t = Instant::now();
        black_box(f());
        let d = t.elapsed().as_secs_f64() * 1e6;
        best = best.min(d);
        med.push(d);
    }
    med.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("{name:12} min {best:7.2} µs  median {:7.2} µs", med[med.len() / 2]);
}
fn main() {
    let mut f = F::new();
    let which = std::env::args().nth(1).unwrap_or_default();
    if which == "all" || which.is_empty() {
        time("mv_plain", || mv_plain(black_box(&mut f)));
        time("mv_staged", || mv_staged(black_box(&mut f)));
        time("col_sum", || col_sum(black_box(&f)));
        time("col_if", || col_if(black_box(&f)));
        time("col_chunks", || col_chunks(black_box(&f)));
        let pa: Vec<[f32; 2]> = f.p.iter().map(|p| p.0).collect();
        let ea: Vec<[f32; 2]> = f.e.iter().map(|e| e.0).collect();
        time("col_flat", || col_flat(black_box(&pa), black_box(&ea)));
        time("col_acc", || col_acc(black_box(&f)));
        assert_eq!(col_flat(&pa, &ea), col_sum(&f));
        assert_eq!(col_acc(&f), col_sum(&f));
        let mut so = S::new();
        time("soa_mv", || soa_mv(black_box(&mut so)));
        time("soa_col", || soa_col(black_box(&so)));
        time("soa_ren", || soa_ren(black_box(&so)));
        time("render", || render(black_box(&f.p)));
        assert_eq!(render(&f.p), ren_fold(&f));
        time("ren_fold", || ren_fold(black_box(&f)));
        time("ren_chunks", || ren_chunks(black_box(&f)));
        let g = F::new();
        assert_eq!(col_sum(&g), col_chunks(&g));
        assert_eq!(col_if(&g), col_sum(&g));
        assert_eq!(ren_fold(&g), ren_chunks(&g));
    }
}
