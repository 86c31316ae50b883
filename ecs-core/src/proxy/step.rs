//! The step proxy: exclusive access to a context between refreshes.

use crate::access::Independent;
use crate::decl::{ContextDecl, SystemOf};
use crate::event_sink::EventSink;
use crate::proxy::Defer;
use crate::run::Dispatch;
use crate::schedule::Adapters;
use core::ops::{Deref, DerefMut};

/// What the closure given to [`Context::step`](crate::Context::step) works
/// with: every operation of [`Defer`] (which it dereferences to), plus
/// running systems and reading their state and outputs.
///
/// ```
/// use ecs::{Data, Step, System};
///
/// pub struct Score(pub u32);
/// #[derive(Default)]
/// pub struct Total;
///
/// ecs::declare_context! {
///     pub context Game {
///         components { Score: contiguous; }
///         systems { total: Total { read: [Score], output: u32 } }
///     }
/// }
///
/// impl System<Game> for Total {
///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
///         let mut sum = 0;
///         data.for_each::<&Score>(|s| sum += s.0);
///         *data.output() += sum;
///     }
/// }
///
/// /// Spawns a player, runs the systems and reads the total.
/// fn play(p: &mut Step<'_, Game>) -> u32 {
///     p.spawn((Score(3),)).unwrap();
///     p.run_all(&());
///     p.outputs::<Total>().iter().sum()
/// }
///
/// let mut game = Game::new();
/// assert_eq!(game.step(play), 3);
/// assert_eq!(game.step(play), 6);
/// ```
pub struct Step<'a, Cx: ContextDecl> {
    defer: Defer<'a, Cx>,
    events: &'a mut (dyn EventSink + 'a),
    /// Whether `events` has handlers (asked once, when the step began).
    collect: bool,
}

/// A set of systems to start chains from: a tuple of system types, none of
/// which depends on another.
///
/// ```
/// use ecs::traits::{ContextDecl, Dispatch, Roots};
/// use ecs::{Data, Step, System};
/// # pub struct Position(pub f32);
/// # pub struct Velocity(pub f32);
/// # #[derive(Default)]
/// # pub struct Move;
/// # #[derive(Default)]
/// # pub struct Draw;
/// #
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position, Velocity: contiguous; }
/// #         systems {
/// #             movement: Move { read: [Velocity], write: [Position] }
/// #             draw: Draw { read: [Position], after: [movement] }
/// #         }
/// #     }
/// # }
/// #
/// impl System<World> for Move {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
///     }
/// }
/// # impl System<World> for Draw {
/// #     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
/// # }
///
/// /// Runs the chains starting from the systems of `R`, in any context.
/// fn run_chains<Cx: ContextDecl + Dispatch<()>, R: Roots<Cx>>(p: &mut Step<'_, Cx>) {
///     p.run_from::<R, ()>(&());
/// }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Position(0.0), Velocity(1.0))).unwrap());
/// world.step(run_chains::<World, (Move,)>); // `movement`, then `draw`
/// world.step(|p| assert_eq!(p.get::<Position>(e).map(|p| p.0), Some(1.0)));
/// assert_eq!(<(Move,) as Roots<World>>::INDICES, [0]);
/// ```
pub trait Roots<Cx: ContextDecl> {
    /// The systems' indices.
    const INDICES: &'static [usize];
}

// Each two systems of the tuple are `Independent` (a bound per pair, built
// head by head), so a dependent pair fails under `cargo check`, naming both.
macro_rules! roots {
    ($($S:ident),+) => {
        roots!(@pairs [$($S),+] [] $($S),+);
    };
    (@pairs [$($all:ident),+] [$($bounds:tt)*] $head:ident, $($tail:ident),+) => {
        roots!(@pairs [$($all),+] [$($bounds)* $($head: Independent<Cx, $tail>,)+] $($tail),+);
    };
    (@pairs [$($S:ident),+] [$($bounds:tt)*] $last:ident) => {
        impl<Cx: ContextDecl, $($S: SystemOf<Cx>),+> RootTuple<Cx> for ($($S,)+)
        where
            $($bounds)*
        {
            const INDICES: &'static [usize] = &[$($S::INDEX),+];
        }
    };
}
/// The tuples [`Roots`] is implemented for, each two of whose systems are
/// [`Independent`]. A trait of its own so that a dependent pair's error
/// names the pair without listing every tuple arity.
pub trait RootTuple<Cx: ContextDecl> {
    /// The systems' indices.
    const INDICES: &'static [usize];
}

impl<Cx: ContextDecl, T: RootTuple<Cx>> Roots<Cx> for T {
    const INDICES: &'static [usize] = T::INDICES;
}

roots!(A);
roots!(A, B);
roots!(A, B, C);
roots!(A, B, C, D);
roots!(A, B, C, D, E);
roots!(A, B, C, D, E, F);
roots!(A, B, C, D, E, F, G);
roots!(A, B, C, D, E, F, G, H);

/// Whether no root is an ancestor of (or the same as) another.
const fn independent(systems: &[crate::decl::SystemInfo], roots: &[usize]) -> bool {
    let mut i = 0;
    while i < roots.len() {
        let mut j = 0;
        while j < roots.len() {
            if i != j {
                if roots[i] == roots[j] {
                    return false;
                }
                let anc = systems[roots[j]].ancestors;
                let mut k = 0;
                while k < anc.len() {
                    if anc[k] == roots[i] {
                        return false;
                    }
                    k += 1;
                }
            }
            j += 1;
        }
        i += 1;
    }
    true
}

impl<'a, Cx: ContextDecl> Step<'a, Cx> {
    #[inline(always)]
    pub(crate) fn new(defer: Defer<'a, Cx>, events: &'a mut (dyn EventSink + 'a), collect: bool) -> Self {
        Self { defer, events, collect }
    }

    /// Runs every system, each after its dependencies (in parallel where the
    /// graph and the settings allow), with `args` passed to each.
    ///
    /// Entities created or changed since the last matching are matched to
    /// systems first: an entity killed through this proxy (or a [`Defer`])
    /// is no system's any more. A kill a system asks for with
    /// [`data.kill(id)`](crate::View::kill) waits for the step's refresh:
    /// the systems that run after it in this `run_all` (or a later one of
    /// the step) still iterate the entity, which is alive until then.
    ///
    /// # Panics
    /// Re-raises a panic of a system once the systems running beside it have
    /// finished; systems depending on the one that panicked do not run.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// #[derive(Default)]
    /// pub struct Move;
    /// #[derive(Default)]
    /// pub struct Bound;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position, Velocity: contiguous; }
    /// #         systems {
    /// #             movement: Move { read: [Velocity], write: [Position] }
    /// #             bound: Bound { write: [Position], after: [movement] }
    /// #         }
    /// #     }
    /// # }
    /// impl System<World, f32> for Move {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, dt: &f32) {
    ///         data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0 * dt);
    ///     }
    /// }
    /// impl System<World, f32> for Bound {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &f32) {
    ///         data.for_each::<&mut Position>(|p| p.0 = p.0.min(10.0));
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(0.0), Velocity(8.0))).unwrap());
    /// // `movement`, then `bound`, both given the time step.
    /// world.step(|p| p.run_all(&0.5f32));
    /// assert_eq!(world.step(|p| p.get::<Position>(e).unwrap().0), 4.0);
    /// world.step(|p| p.run_all(&1.0f32));
    /// assert_eq!(world.step(|p| p.get::<Position>(e).unwrap().0), 10.0);
    /// ```
    pub fn run_all<A: ?Sized + Sync>(&mut self, args: &A)
    where
        Cx: Dispatch<A>,
    {
        self.defer.cx.run_all(self.events, self.collect, args);
    }

    /// Runs the chains that start from the systems of the tuple `R`: those
    /// systems and every system that depends on them, directly or not, each
    /// after its dependencies (ECST's `execute_systems_from`).
    ///
    /// # Panics
    /// Fails to compile (under `cargo check` too) when a system of `R`
    /// depends on another one of `R` or is named twice. At run time, as
    /// [`run_all`](Self::run_all).
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// #[derive(Default)]
    /// pub struct Move;
    /// #[derive(Default)]
    /// pub struct Draw {
    ///     frames: u32,
    /// }
    /// #[derive(Default)]
    /// pub struct Spin {
    ///     turns: u32,
    /// }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position, Velocity: contiguous; }
    /// #         systems {
    /// #             movement: Move { read: [Velocity], write: [Position] }
    /// #             draw: Draw { read: [Position], after: [movement] }
    /// #             spin: Spin { read: [Velocity] }
    /// #         }
    /// #     }
    /// # }
    /// impl System<World> for Move {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
    ///     }
    /// }
    /// impl System<World> for Draw {
    ///     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
    ///     fn after(&mut self, _: &mut [()], _: &()) {
    ///         self.frames += 1;
    ///     }
    /// }
    /// impl System<World> for Spin {
    ///     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
    ///     fn after(&mut self, _: &mut [()], _: &()) {
    ///         self.turns += 1;
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.spawn((Position(0.0), Velocity(1.0))).unwrap();
    ///     // `movement` and what depends on it (`draw`); not `spin`.
    ///     p.run_from::<(Move,), ()>(&());
    ///     assert_eq!((p.system::<Draw>().frames, p.system::<Spin>().turns), (1, 0));
    ///     // From `draw` and `spin`: those two, not `movement`.
    ///     p.run_from::<(Draw, Spin), ()>(&());
    ///     assert_eq!((p.system::<Draw>().frames, p.system::<Spin>().turns), (2, 1));
    ///     assert_eq!(p.get::<Position>(e).unwrap().0, 1.0);
    /// });
    /// ```
    pub fn run_from<R: Roots<Cx>, A: ?Sized + Sync>(&mut self, args: &A)
    where
        Cx: Dispatch<A>,
    {
        const {
            assert!(
                independent(Cx::SYSTEMS, R::INDICES),
                "`run_from` needs independent systems: one of them depends on another (or is named twice)"
            )
        };
        let mut selected = vec![false; Cx::SYSTEMS.len()];
        for &r in R::INDICES {
            selected[r] = true;
        }
        for &i in Cx::TOPOLOGICAL {
            if !selected[i] && Cx::SYSTEMS[i].dependencies.iter().any(|&d| selected[d]) {
                selected[i] = true;
            }
        }
        self.defer
            .cx
            // SAFETY: as in `run_all`.
            .run_selected(&selected, self.events, self.collect, &|cx, i| unsafe {
                Cx::dispatch(cx, i, args)
            });
    }

    /// Runs the systems that `adapters` gives code for, with that code
    /// instead of their [`System`](crate::System) implementations: ECST's
    /// execution adapters. Each runs after every system it depends on,
    /// directly or through systems given no code, that runs too: skipping
    /// `b` of a chain `a -> b -> c` still runs `c` after `a`.
    ///
    /// # Panics
    /// As [`run_all`](Self::run_all).
    ///
    /// # Examples
    /// ```
    /// use ecs::Adapters;
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// #[derive(Default)]
    /// pub struct Move;
    /// #[derive(Default)]
    /// pub struct Draw;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position, Velocity: contiguous; }
    /// #         systems {
    /// #             movement: Move { read: [Velocity], write: [Position] }
    /// #             draw: Draw { read: [Position], after: [movement], output: f32 }
    /// #         }
    /// #     }
    /// # }
    /// // No `impl System`: the step gives each system its code.
    /// let mut world = World::new();
    /// world.step(|p| p.spawn((Position(1.0), Velocity(2.0))).map(drop).unwrap());
    /// let dt = 0.5;
    /// let drawn = world.step(|p| {
    ///     p.run_adapted(
    ///         &Adapters::new()
    ///             .system::<Move>(move |_, data| {
    ///                 data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0 * dt)
    ///             })
    ///             .system::<Draw>(|_, data| {
    ///                 let mut sum = 0.0;
    ///                 data.for_each::<&Position>(|p| sum += p.0);
    ///                 *data.output() = sum;
    ///             }),
    ///     );
    ///     p.outputs::<Draw>()[0]
    /// });
    /// assert_eq!(drawn, 2.0);
    /// ```
    pub fn run_adapted(&mut self, adapters: &Adapters<'_, Cx>) {
        let selected = adapters.selected();
        self.defer
            .cx
            .run_selected(&selected, self.events, self.collect, &|cx, i| adapters.run(cx, i));
    }

    /// The state of system `S`.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Score(pub u32);
    /// #[derive(Default)]
    /// pub struct Best {
    ///     best: u32,
    /// }
    /// # ecs::declare_context! {
    /// #     pub context Game {
    /// #         components { Score: contiguous; }
    /// #         systems { best: Best { read: [Score], output: u32 } }
    /// #     }
    /// # }
    /// impl System<Game> for Best {
    ///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    ///         let mut best = self.best;
    ///         data.for_each::<&Score>(|s| best = best.max(s.0));
    ///         *data.output() = best;
    ///     }
    ///     fn after(&mut self, outputs: &mut [u32], _: &()) {
    ///         self.best = outputs.iter().copied().max().unwrap_or(self.best);
    ///     }
    /// }
    ///
    /// let mut game = Game::new();
    /// game.step(|p| {
    ///     p.spawn((Score(4),)).unwrap();
    ///     p.run_all(&());
    ///     assert_eq!(p.system::<Best>().best, 4);
    ///     assert_eq!(p.outputs::<Best>(), [4]);
    ///     p.system_mut::<Best>().best = 9;
    ///     p.run_all(&());
    ///     assert_eq!(p.outputs::<Best>(), [9]);
    /// });
    /// ```
    pub fn system<S: SystemOf<Cx>>(&self) -> &S {
        self.defer.cx.system::<S>()
    }

    /// The state of system `S`, mutably.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// #[derive(Default)]
    /// pub struct Move {
    ///     speed: f32,
    /// }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { movement: Move { write: [Position] } }
    /// #     }
    /// # }
    /// impl System<World> for Move {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         data.for_each::<&mut Position>(|p| p.0 += self.speed);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.spawn((Position(0.0),)).unwrap();
    ///     p.system_mut::<Move>().speed = 1.0;
    ///     p.run_all(&());
    ///     p.system_mut::<Move>().speed = 10.0;
    ///     p.run_all(&());
    ///     assert_eq!(p.get::<Position>(e).unwrap().0, 11.0);
    /// });
    /// ```
    pub fn system_mut<S: SystemOf<Cx>>(&mut self) -> &mut S {
        self.defer.cx.system_mut::<S>()
    }

    /// The outputs of the last run of system `S`, one per subtask.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Count;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { count: Count { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Count {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.entity_count();
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     for x in 0..5 {
    ///         p.spawn((Position(x as f32),)).unwrap();
    ///     }
    ///     p.run_all(&());
    ///     // One output per subtask, in subtask order.
    ///     assert_eq!(p.outputs::<Count>(), [2, 2, 1]);
    /// });
    /// ```
    pub fn outputs<S: SystemOf<Cx>>(&self) -> &[S::Output] {
        self.defer.cx.outputs::<S>()
    }
}

impl<'a, Cx: ContextDecl> Deref for Step<'a, Cx> {
    type Target = Defer<'a, Cx>;
    fn deref(&self) -> &Self::Target {
        &self.defer
    }
}

impl<Cx: ContextDecl> DerefMut for Step<'_, Cx> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.defer
    }
}
