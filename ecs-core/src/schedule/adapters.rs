//! Execution adapters (thesis, 12.2): the code a step runs for each system,
//! given as closures that capture what they need (a time step, a renderer),
//! instead of the systems' `System` implementations.

use crate::context::Context;
use crate::decl::{ContextDecl, SystemOf};
use crate::proxy::data::DataProxy;
use crate::proxy::Data;
use core::marker::PhantomData;

/// Closures to run systems with, for [`Step::run_adapted`](crate::Step::run_adapted).
///
/// ```
/// # use ecs::Data;
/// # pub struct Velocity(pub f32);
/// # pub struct Acceleration(pub f32);
/// #[derive(Default)]
/// pub struct Accelerate;
/// #[derive(Default)]
/// pub struct Count {
///     pub total: usize,
/// }
/// # ecs::declare_context! {
/// #     pub context Particles {
/// #         components { Velocity, Acceleration: contiguous; }
/// #         systems {
/// #             accelerate: Accelerate { read: [Acceleration], write: [Velocity] }
/// #             count: Count { read: [Velocity], after: [accelerate], output: usize }
/// #         }
/// #     }
/// # }
/// impl Accelerate {
///     fn integrate(&self, data: &mut Data<'_, Particles, Self>, dt: f32) {
///         data.for_each::<(&mut Velocity, &Acceleration)>(|(v, a)| v.0 += a.0 * dt);
///     }
/// }
///
/// let mut particles = Particles::new();
/// particles.step(|p| p.spawn((Velocity(0.0), Acceleration(1.0))).map(drop).unwrap());
/// let dt = 0.5;
/// particles.step(|p| {
///     p.run_adapted(
///         &ecs::Adapters::new()
///             // No `impl System` needed: the closures are the code.
///             .system::<Accelerate>(move |s, data| s.integrate(data, dt))
///             .detailed::<Count>(
///                 |count| count.total = 0,
///                 |_, data| {
///                     let n = data.entity_count();
///                     *data.output() = n;
///                 },
///                 |count, outputs| count.total = outputs.iter().sum(),
///             ),
///     );
/// });
/// assert_eq!(particles.system::<Count>().total, 1);
/// ```
///
/// A system given no code does not run. To give several systems the same
/// code, call a shared function from each closure; to give every system the
/// same code with the same arguments, implement [`System`](crate::System)
/// and use [`Step::run_all`](crate::Step::run_all).
pub struct Adapters<'f, Cx: ContextDecl> {
    slots: Vec<Option<Box<dyn Adapter<Cx> + 'f>>>,
}

/// Type-erased code for one system: one virtual call per system run.
pub(crate) trait Adapter<Cx: ContextDecl>: Sync {
    fn run(&self, cx: &Context<Cx>);
}

struct Detailed<S, B, P, A> {
    before: B,
    process: P,
    after: A,
    _system: PhantomData<fn(S)>,
}

impl<Cx, S, B, P, A> Adapter<Cx> for Detailed<S, B, P, A>
where
    Cx: ContextDecl,
    S: SystemOf<Cx>,
    B: Fn(&mut S) + Sync,
    P: Fn(&S, &mut Data<'_, Cx, S>) + Sync,
    A: Fn(&mut S, &mut [S::Output]) + Sync,
{
    fn run(&self, cx: &Context<Cx>) {
        cx.run_with::<S, DataProxy>(&self.before, &self.process, &self.after, |o| *o = Default::default());
    }
}

impl<Cx: ContextDecl> Default for Adapters<'_, Cx> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'f, Cx: ContextDecl> Adapters<'f, Cx> {
    /// No code for any system.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// #[derive(Default)]
    /// pub struct Draw {
    ///     frames: u32,
    /// }
    /// impl ecs::System<World> for Draw {
    ///     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
    ///     fn after(&mut self, _: &mut [()], _: &()) {
    ///         self.frames += 1;
    ///     }
    /// }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { draw: Draw { read: [Position] } }
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// // A system given no code does not run, even with an `impl System`.
    /// world.step(|p| p.run_adapted(&ecs::Adapters::new()));
    /// assert_eq!(world.system::<Draw>().frames, 0);
    /// world.step(|p| p.run_all(&()));
    /// assert_eq!(world.system::<Draw>().frames, 1);
    /// ```
    pub fn new() -> Self {
        Self {
            slots: (0..Cx::SYSTEMS.len()).map(|_| None).collect(),
        }
    }

    /// Runs system `S` with `process` for each of its subtasks.
    ///
    /// # Examples
    /// ```
    /// use ecs::Adapters;
    /// # pub struct Health(pub i32);
    /// # #[derive(Default)]
    /// # pub struct Damage;
    /// # ecs::declare_context! {
    /// #     pub context Game {
    /// #         components { Health: contiguous; }
    /// #         systems { damage: Damage { write: [Health] } }
    /// #     }
    /// # }
    /// let mut game = Game::new();
    /// let e = game.step(|p| p.spawn((Health(10),)).unwrap());
    /// // The closure captures what the step has: here, this frame's damage.
    /// for hit in [3, 4] {
    ///     game.step(|p| {
    ///         p.run_adapted(&Adapters::new().system::<Damage>(move |_, data| {
    ///             data.for_each::<&mut Health>(|h| h.0 -= hit);
    ///         }))
    ///     });
    /// }
    /// game.step(|p| assert_eq!(p.get::<Health>(e).unwrap().0, 3));
    /// ```
    pub fn system<S: SystemOf<Cx>>(self, process: impl Fn(&S, &mut Data<'_, Cx, S>) + Sync + 'f) -> Self {
        self.detailed::<S>(|_| {}, process, |_, _| {})
    }

    /// Runs system `S` with `before` once (exclusive access to the state),
    /// `process` for each subtask (in parallel where split), then `after`
    /// once with every subtask's output, in subtask order.
    ///
    /// # Examples
    /// ```
    /// use ecs::Adapters;
    /// # pub struct Health(pub i32);
    /// #[derive(Default)]
    /// pub struct Census {
    ///     runs: u32,
    ///     alive: usize,
    /// }
    /// # ecs::declare_context! {
    /// #     pub context Game {
    /// #         components { Health: contiguous; }
    /// #         systems { census: Census { read: [Health], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// let mut game = Game::new();
    /// game.step(|p| {
    ///     for h in [5, 0, 7, 1, 0] {
    ///         p.spawn((Health(h),)).unwrap();
    ///     }
    ///     p.run_adapted(&Adapters::new().detailed::<Census>(
    ///         |census| census.runs += 1,
    ///         |_, data| {
    ///             let mut n = 0;
    ///             data.for_each::<&Health>(|h| n += (h.0 > 0) as usize);
    ///             *data.output() = n;
    ///         },
    ///         // Every subtask's output, in order.
    ///         |census, outputs| census.alive = outputs.iter().sum(),
    ///     ));
    /// });
    /// assert_eq!(game.system::<Census>().runs, 1);
    /// assert_eq!(game.system::<Census>().alive, 3);
    /// assert_eq!(game.outputs::<Census>().len(), 3);
    /// ```
    pub fn detailed<S: SystemOf<Cx>>(
        mut self,
        before: impl Fn(&mut S) + Sync + 'f,
        process: impl Fn(&S, &mut Data<'_, Cx, S>) + Sync + 'f,
        after: impl Fn(&mut S, &mut [S::Output]) + Sync + 'f,
    ) -> Self {
        self.slots[S::INDEX] = Some(Box::new(Detailed {
            before,
            process,
            after,
            _system: PhantomData,
        }));
        self
    }

    /// Gives system `index` the code `adapter` (for adapters of other
    /// kinds, such as column steps').
    pub(crate) fn with_adapter(mut self, index: usize, adapter: Box<dyn Adapter<Cx> + 'f>) -> Self {
        self.slots[index] = Some(adapter);
        self
    }

    pub(crate) fn selected(&self) -> Vec<bool> {
        self.slots.iter().map(Option::is_some).collect()
    }

    pub(crate) fn run(&self, cx: &Context<Cx>, index: usize) {
        if let Some(adapter) = &self.slots[index] {
            adapter.run(cx);
        }
    }
}
