//! `add_remove`: `B` added to every entity in one step and removed in the
//! next, with `add_to_all` and `remove_from_all`, the README's way to change
//! many entities at once. The change is visible at once to the step proxy
//! (`has`, `get`); systems see it when they next run: `run_all` (or
//! `subscribers`) first matches the change to the system that reads `B`.
//! No system runs in this workload, so the changes, which cancel, are
//! matched only by the check (as specs and shipyard compute a join's
//! entities when the join runs). The variants measure `add` and `remove`
//! per entity, and both ways with the system run after each step, matching
//! included.

use crate::components::letters::{A, B};
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::N;
use ecs::{Data, Entity, System};

/// Reads `A` and `B`: the system whose entities the adds and removes change.
#[derive(Default)]
pub struct UsesB;

ecs::declare_context! {
    pub context AddRem {
        settings { entities: fixed(10_000), threads: 1 }
        components { A, B: contiguous; }
        systems { uses_b: UsesB { read: [A, B] } }
    }
}

impl System<AddRem> for UsesB {
    fn process(&self, _: &mut Data<'_, AddRem, Self>, _: &()) {}
}

/// How the workload is written.
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    /// `add`/`remove` for each handle instead of `add_to_all`/`remove_from_all`.
    pub each: bool,
    /// A step with `run_all` after each change, which matches it.
    pub run: bool,
}

impl Mode {
    /// The README's way, and the one the table reports.
    pub const BULK: Mode = Mode {
        each: false,
        run: false,
    };
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
        let es = &self.entities;
        if self.mode.each {
            self.world.step(|p| {
                for &e in es {
                    p.add(e, B(0.0)).expect("alive");
                }
            });
        } else {
            let added = self.world.step(|p| p.add_to_all::<(A,), _>(|_| B(0.0)));
            debug_assert_eq!(added, N);
        }
        if self.mode.run {
            self.world.step(|p| p.run_all(&()));
        }
    }

    fn remove(&mut self) {
        let es = &self.entities;
        if self.mode.each {
            self.world.step(|p| {
                for &e in es {
                    p.remove::<B>(e);
                }
            });
        } else {
            let removed = self.world.step(|p| p.remove_from_all::<B>());
            debug_assert_eq!(removed, N);
        }
        if self.mode.run {
            self.world.step(|p| p.run_all(&()));
        }
    }

    /// Entities holding `B` and those `uses_b` processes, which must agree.
    fn with_b(&mut self) -> Result<usize, String> {
        let es = &self.entities;
        let held = self.world.step(|p| es.iter().filter(|&&e| p.has::<B>(e)).count());
        let matched = self.world.subscribers::<UsesB>().len();
        if held == matched {
            Ok(held)
        } else {
            Err(format!("{held} entities hold B but `uses_b` processes {matched}"))
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
