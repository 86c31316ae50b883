//! Systems: the trait users implement, and how a context makes the slot it
//! keeps for each (the slots' types are in `decl.rs`, whose accessors name them).

use crate::decl::{ContextDecl, SlotCore, SystemOf};
use crate::fn_queue::FnQueue;
use crate::pending::Pending;
use crate::proxy::Data;
use core::sync::atomic::AtomicBool;
use parking_lot::Mutex;

/// The code of a system, run with arguments `A` (`()` by default).
///
/// Running a system calls [`before`](System::before) once, then
/// [`process`](System::process) once per subtask (in parallel when the
/// system's parallelism strategy splits it), then [`after`](System::after)
/// once with every subtask's output — ECST's detailed execution adapter.
///
/// ```
/// use ecs::{Data, System};
///
/// pub struct Velocity(pub f32);
/// pub struct Acceleration(pub f32);
///
/// /// Counts the entities it accelerated, over every run.
/// #[derive(Default)]
/// pub struct Accelerate {
///     pub total: usize,
/// }
///
/// ecs::declare_context! {
///     pub context Particles {
///         components { Velocity, Acceleration: contiguous; }
///         systems {
///             accelerate: Accelerate { read: [Acceleration], write: [Velocity], output: usize }
///         }
///     }
/// }
///
/// impl System<Particles, f32> for Accelerate {
///     fn process(&self, data: &mut Data<'_, Particles, Self>, dt: &f32) {
///         data.for_each::<(&mut Velocity, &Acceleration)>(|(v, a)| v.0 += a.0 * *dt);
///         let n = data.entity_count();
///         *data.output() += n;
///     }
///
///     fn after(&mut self, counts: &mut [usize], _: &f32) {
///         self.total += counts.iter().sum::<usize>();
///     }
/// }
///
/// let mut particles = Particles::new();
/// let e = particles.step(|p| p.spawn((Velocity(0.0), Acceleration(2.0))).unwrap());
/// particles.step(|p| p.run_all(&0.5));
/// particles.step(|p| assert_eq!(p.get::<Velocity>(e).map(|v| v.0), Some(1.0)));
/// assert_eq!(particles.system::<Accelerate>().total, 1);
/// ```
#[diagnostic::on_unimplemented(
    message = "system `{Self}` cannot run with arguments of type `{A}`",
    label = "no `impl ecs::System<{Cx}, {A}> for {Self}`",
    note = "implement `ecs::System<{Cx}, {A}>` for `{Self}`: every system run by `run_all`/`run_from` takes the same arguments"
)]
pub trait System<Cx: ContextDecl, A: ?Sized = ()>: SystemOf<Cx> {
    /// Runs once before the subtasks, with exclusive access to the state.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// #[derive(Default)]
    /// pub struct Move {
    ///     step: f32,
    ///     moved: usize,
    /// }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { movement: Move { write: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World, f32> for Move {
    ///     // Once per run, before any subtask: derive what subtasks share.
    ///     fn before(&mut self, dt: &f32) {
    ///         self.step = 2.0 * dt;
    ///     }
    ///     // Per subtask, with shared access to the state.
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &f32) {
    ///         data.for_each::<&mut Position>(|p| p.0 += self.step);
    ///         *data.output() = data.entity_count();
    ///     }
    ///     // Once per run, after every subtask, with their outputs.
    ///     fn after(&mut self, outputs: &mut [usize], _: &f32) {
    ///         self.moved += outputs.iter().sum::<usize>();
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.step(|p| {
    ///     p.spawn((Position(0.0),)).unwrap();
    ///     p.spawn((Position(0.0),)).unwrap();
    ///     p.spawn((Position(0.0),)).unwrap()
    /// });
    /// world.step(|p| p.run_all(&0.25f32));
    /// world.step(|p| p.run_all(&0.5f32));
    /// assert_eq!(world.outputs::<Move>(), [2, 1]);
    /// assert_eq!(world.system::<Move>().moved, 6);
    /// world.step(|p| assert_eq!(p.get::<Position>(e).unwrap().0, 1.5));
    /// ```
    // The defaults are always inlined: in a debug build each was one more
    // function per system (their calls sit in `run_body!`, `run.rs`).
    #[inline(always)]
    fn before(&mut self, args: &A) {
        let _ = args;
    }

    /// Processes the entities of one subtask.
    ///
    /// # Examples
    /// See [`System`]'s example and [`before`](System::before)'s.
    fn process(&self, data: &mut Data<'_, Cx, Self>, args: &A);

    /// Makes one subtask's output ready for [`process`](System::process).
    ///
    /// A context keeps each subtask's output from one run to the next (the
    /// output of subtask `i` is handed back to subtask `i`, or is
    /// `Default::default()` when there was none) and calls this on it first.
    /// By default it is replaced by `Default::default()`, so every run
    /// starts from fresh outputs. Override it to keep their memory when the
    /// outputs are large buffers, so that a step allocates nothing:
    ///
    /// ```
    /// # use ecs::{Data, System};
    /// # #[derive(Clone, Copy)] pub struct Position(pub f32);
    /// # #[derive(Default)] pub struct Draw;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { draw: Draw { read: [Position], output: Vec<f32> } }
    /// #     }
    /// # }
    /// impl System<World> for Draw {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let mut vertices = Vec::new();
    ///         data.for_each::<&Position>(|p| vertices.push(p.0));
    ///         data.output().extend(vertices);
    ///     }
    ///
    ///     fn reset_output(vertices: &mut Vec<f32>) {
    ///         vertices.clear(); // keeps the capacity of the last run
    ///     }
    /// }
    /// # let mut world = World::new();
    /// # world.step(|p| p.spawn((Position(1.0),)).map(drop).unwrap());
    /// # world.step(|p| p.run_all(&()));
    /// # world.step(|p| p.run_all(&()));
    /// # assert_eq!(world.outputs::<Draw>().concat(), [1.0]);
    /// ```
    #[inline(always)]
    fn reset_output(output: &mut Self::Output) {
        *output = Default::default();
    }

    /// Runs once after every subtask finished, with their outputs in subtask
    /// order; the outputs stay readable (by the step proxy and dependent
    /// systems) until the system runs again.
    ///
    /// # Examples
    /// See [`before`](System::before)'s example.
    #[inline(always)]
    fn after(&mut self, outputs: &mut [Self::Output], args: &A) {
        let _ = (outputs, args);
    }
}

impl<Cx: ContextDecl> SlotCore<Cx> {
    /// Nothing pending: a `const fn`, so that [`new_array`](Self::new_array)
    /// is an array repeat of a constant rather than `array::from_fn`.
    const fn new() -> Self {
        Self {
            pending: Mutex::new(Pending {
                deferred: FnQueue::new(),
                kills: Vec::new(),
            }),
            streamed: AtomicBool::new(false),
        }
    }

    /// The cores of a context's `N` systems, each with nothing pending:
    /// one loop, whatever `N`.
    ///
    /// # Examples
    /// ```
    /// use ecs::__private::SlotCore;
    /// # #[derive(Default)]
    /// # pub struct Idle;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components {}
    ///         systems { idle: Idle {} }
    ///     }
    /// }
    /// # impl ecs::System<World> for Idle {
    /// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
    /// # }
    ///
    /// let cores = SlotCore::<World>::new_array::<3>();
    /// assert_eq!(cores.len(), 3);
    /// ```
    #[inline(never)]
    pub fn new_array<const N: usize>() -> [Self; N] {
        // A repeat of a constant: a loop of stores. `array::from_fn` compiled
        // its iterator machinery and drop guard into every context (with
        // `run.rs`'s `fit` replacing `resize_with`: at a declaration of one
        // system, 7 847 -> 6 915 debug IR instructions, 7 576 -> 6 741
        // lines of unoptimised release IR; COMPILE_COST.md, twelfth round).
        [const { Self::new() }; N]
    }
}
