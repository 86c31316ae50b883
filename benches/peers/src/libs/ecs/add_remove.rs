//! `add_remove`: `B` added to every entity and removed again, with
//! `add_to_all` and `remove_from_all`, the README's way to change many
//! entities at once, each in a step that then runs the system reading `A`
//! and `B` (`run_all`), so that the change is visible to it: `run_all`
//! first matches the changed entities to the system, which then reads `B`
//! of every entity it processes. The variants measure `add` and `remove`
//! per entity, and the bulk calls with no system run (the change then
//! waits, unmatched, for the next `run_all`).

use crate::components::letters::{A, B};
use crate::components::read_ab;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::N;
use ecs::{Data, Entity, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Reads `A` and `B`: the system whose entities the adds and removes
/// change. Keeps how many entities it processed last.
#[derive(Default)]
pub struct UsesB {
    seen: AtomicUsize,
}

ecs::declare_context! {
    pub context AddRem {
        settings { entities: fixed(10_000), threads: 1 }
        components { A, B: contiguous; }
        systems { uses_b: UsesB { read: [A, B] } }
    }
}

impl System<AddRem> for UsesB {
    fn process(&self, data: &mut Data<'_, AddRem, Self>, _: &()) {
        let mut seen = 0;
        let mut sum = 0.0;
        data.for_each::<(&A, &B)>(|(a, b)| {
            seen += 1;
            sum += read_ab(a, b);
        });
        black_box(sum);
        self.seen.store(seen, Ordering::Relaxed);
    }
}

/// How the workload is written.
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    /// `add`/`remove` for each handle instead of `add_to_all`/`remove_from_all`.
    pub each: bool,
    /// `run_all` in the step of each change, which matches it to the
    /// system and runs the system.
    pub run: bool,
}

impl Mode {
    /// The README's way, with the change visible to the system: the one
    /// the table reports.
    pub const BULK: Mode = Mode { each: false, run: true };
}

pub struct AddRemove {
    world: AddRem,
    entities: Vec<Entity>,
    mode: Mode,
}

impl AddRemove {
    pub fn new(mode: Mode) -> Self {
        let mut world = AddRem::new();
        let entities = world.step(|p| p.spawn_batch((0..N).map(|_| (A(0.0),))).expect("room").collect());
        AddRemove { world, entities, mode }
    }

    fn add(&mut self) {
        let (es, mode) = (&self.entities, self.mode);
        self.world.step(|p| {
            if mode.each {
                for &e in es {
                    p.add(e, B(0.0)).expect("alive");
                }
            } else {
                let added = p.add_to_all::<(A,), _>(|_| B(0.0));
                debug_assert_eq!(added, N);
            }
            if mode.run {
                p.run_all(&());
            }
        });
    }

    fn remove(&mut self) {
        let (es, mode) = (&self.entities, self.mode);
        self.world.step(|p| {
            if mode.each {
                for &e in es {
                    p.remove::<B>(e);
                }
            } else {
                let removed = p.remove_from_all::<B>();
                debug_assert_eq!(removed, N);
            }
            if mode.run {
                p.run_all(&());
            }
        });
    }

    /// Entities holding `B`, those `uses_b` is matched to and (when it
    /// ran) those it processed, which must agree.
    fn with_b(&mut self) -> Result<usize, String> {
        let es = &self.entities;
        let held = self.world.step(|p| es.iter().filter(|&&e| p.has::<B>(e)).count());
        let matched = self.world.subscribers::<UsesB>().len();
        let processed = if self.mode.run {
            self.world.system::<UsesB>().seen.load(Ordering::Relaxed)
        } else {
            held
        };
        if held == matched && held == processed {
            Ok(held)
        } else {
            Err(format!(
                "{held} entities hold B but `uses_b` is matched to {matched} and processed {processed}"
            ))
        }
    }
}

impl Bench for AddRemove {
    fn run(&mut self) {
        self.add();
        self.remove();
    }

    fn check(&mut self) -> Check {
        self.add();
        let added = self.with_b()?;
        self.remove();
        let left = self.with_b()?;
        let es = &self.entities;
        let with_a = self.world.step(|p| es.iter().filter(|&&e| p.has::<A>(e)).count());
        expect::add_remove(with_a, added, left)
    }
}
