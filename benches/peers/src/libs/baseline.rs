//! The hand-written baseline of workloads.md: plain `Vec`s and
//! struct-of-arrays loops; rayon's `par_iter` for `heavy_compute`; the three
//! `schedule` loops in sequence over per-group columns.

use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::{Workload, FRAG_PER_TYPE, FRAG_TYPES, HEAVY, N};
use rayon::prelude::*;
use std::hint::black_box;

pub fn make(w: Workload) -> Box<dyn Bench> {
    match w {
        Workload::SimpleInsert => Box::new(SimpleInsert),
        Workload::SimpleIter => Box::new(SimpleIter::new()),
        Workload::FragIter => Box::new(FragIter::new()),
        Workload::HeavyCompute => Box::new(HeavyCompute::new()),
        Workload::AddRemove => Box::new(AddRemove::new()),
        Workload::Schedule => Box::new(Schedule::new()),
        Workload::MoveCollideRender
        | Workload::Save
        | Workload::Load
        | Workload::Fragmented
        | Workload::FragmentedChurn => {
            unreachable!("set up by libs::move_collide_render and libs::save_load")
        }
    }
}

/// Four reserved columns.
struct Columns {
    transforms: Vec<Transform>,
    positions: Vec<Position>,
    rotations: Vec<Rotation>,
    velocities: Vec<Velocity>,
}

impl Columns {
    fn new(n: usize) -> Self {
        let mut c = Columns {
            transforms: Vec::with_capacity(n),
            positions: Vec::with_capacity(n),
            rotations: Vec::with_capacity(n),
            velocities: Vec::with_capacity(n),
        };
        for _ in 0..n {
            c.transforms.push(transform());
            c.positions.push(position());
            c.rotations.push(rotation());
            c.velocities.push(velocity());
        }
        c
    }
}

struct SimpleInsert;

impl Bench for SimpleInsert {
    fn run(&mut self) {
        drop(black_box(Columns::new(N)));
    }

    fn check(&mut self) -> Check {
        let c = Columns::new(N);
        let all = [
            c.transforms.len(),
            c.positions.len(),
            c.rotations.len(),
            c.velocities.len(),
        ];
        expect::simple_insert(all.into_iter().min().unwrap_or(0))
    }
}

struct SimpleIter(Columns);

impl SimpleIter {
    fn new() -> Self {
        SimpleIter(Columns::new(N))
    }
}

impl Bench for SimpleIter {
    fn run(&mut self) {
        let c = &mut self.0;
        for (p, v) in c.positions.iter_mut().zip(&c.velocities) {
            advance(p, v);
        }
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::simple_iter(self.0.positions.iter().copied())
    }
}

/// One `Data` column per marker type (the markers themselves are never
/// read, so they need no column).
struct FragIter(Vec<Vec<frag::Data>>);

impl FragIter {
    fn new() -> Self {
        FragIter((0..FRAG_TYPES).map(|_| vec![frag::Data(1.0); FRAG_PER_TYPE]).collect())
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        for group in &mut self.0 {
            for d in group {
                d.0 *= 2.0;
            }
        }
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::frag_iter(self.0.iter().flatten().map(|d| d.0))
    }
}

struct HeavyCompute {
    matrices: Vec<Matrix4>,
    positions: Vec<Position>,
    _rotations: Vec<Rotation>,
    _velocities: Vec<Velocity>,
}

impl HeavyCompute {
    fn new() -> Self {
        HeavyCompute {
            matrices: vec![matrix4(); HEAVY],
            positions: vec![heavy_position(); HEAVY],
            _rotations: vec![rotation(); HEAVY],
            _velocities: vec![velocity(); HEAVY],
        }
    }
}

impl Bench for HeavyCompute {
    fn run(&mut self) {
        self.matrices
            .par_iter_mut()
            .zip(self.positions.par_iter_mut())
            .for_each(|(m, p)| heavy(m, p));
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::heavy_compute(self.positions.iter().copied())
    }
}

struct AddRemove {
    a: Vec<letters::A>,
    b: Vec<Option<letters::B>>,
}

impl AddRemove {
    fn new() -> Self {
        AddRemove {
            a: vec![letters().0; N],
            b: vec![None; N],
        }
    }

    fn add(&mut self) {
        for b in &mut self.b {
            *b = Some(letters::B(0.0));
        }
        // The adds must happen even though the removes overwrite them.
        black_box(&mut self.b);
    }

    fn remove(&mut self) {
        for b in &mut self.b {
            *b = None;
        }
    }

    /// The system reading `A` and `B`, run after each change: how many
    /// entities it saw.
    fn system(&self) -> usize {
        let (mut seen, mut sum) = (0, 0.0);
        for (a, b) in self.a.iter().zip(&self.b) {
            if let Some(b) = b {
                seen += 1;
                sum += read_ab(a, b);
            }
        }
        black_box(sum);
        seen
    }
}

impl Bench for AddRemove {
    fn run(&mut self) {
        self.add();
        black_box(self.system());
        self.remove();
        black_box(self.system());
    }

    fn check(&mut self) -> Check {
        self.add();
        let added = self.system();
        self.remove();
        expect::add_remove(self.a.len(), added, self.system())
    }
}

/// The four groups of `schedule`, one column per component of each.
struct Schedule {
    ab: [Vec<f32>; 2],
    abc: [Vec<f32>; 3],
    abcd: [Vec<f32>; 4],
    abce: [Vec<f32>; 4],
}

impl Schedule {
    fn new() -> Self {
        let (a, b, c, d, e) = letters();
        let col = |x: f32| vec![x; N];
        Schedule {
            ab: [col(a.0), col(b.0)],
            abc: [col(a.0), col(b.0), col(c.0)],
            abcd: [col(a.0), col(b.0), col(c.0), col(d.0)],
            abce: [col(a.0), col(b.0), col(c.0), col(e.0)],
        }
    }
}

/// Swaps two columns element by element.
fn swap_columns(x: &mut [f32], y: &mut [f32]) {
    for (x, y) in x.iter_mut().zip(y) {
        swap(x, y);
    }
}

impl Bench for Schedule {
    fn run(&mut self) {
        // ab
        for cols in [
            &mut self.ab[..],
            &mut self.abc[..],
            &mut self.abcd[..],
            &mut self.abce[..],
        ] {
            let (a, rest) = cols.split_first_mut().expect("every group has A");
            swap_columns(a, &mut rest[0]);
        }
        // cd, then ce
        let [_, _, c, d] = &mut self.abcd;
        swap_columns(c, d);
        let [_, _, c, e] = &mut self.abce;
        swap_columns(c, e);
    }

    fn check(&mut self) -> Check {
        self.run();
        let pairs = |x: &[f32], y: &[f32]| x.iter().copied().zip(y.iter().copied()).collect::<Vec<_>>();
        let mut s = expect::Schedule::default();
        for g in [&self.ab[..], &self.abc[..], &self.abcd[..], &self.abce[..]] {
            s.ab.extend(pairs(&g[0], &g[1]));
        }
        s.cd = pairs(&self.abcd[2], &self.abcd[3]);
        s.ce = pairs(&self.abce[2], &self.abce[3]);
        s.c = [&self.abc[2], &self.abcd[2], &self.abce[2]]
            .into_iter()
            .flatten()
            .copied()
            .collect();
        expect::schedule(s)
    }
}

pub const NOTES: &str = "plain `Vec`s: four reserved columns filled by `push` (simple_insert), a `zip` over the \
Position and Velocity columns (simple_iter), 26 `Data` columns (frag_iter), rayon `par_iter_mut` over the matrix and \
position columns (heavy_compute), a `Vec<Option<B>>` set and cleared, the system reading `A` and `B` testing each `Option` (add_remove), the three swap loops in sequence \
over per-group columns (schedule).";
