//! Column steps: systems declared `kind: columns`, which see no entity and
//! compute over whole component columns as slices (ECST's planned
//! "generic computation step", thesis 13.1). They take part in the
//! dependency graph and the conflict checks as any system does; only their
//! code, and the proxy it gets, differ.

use crate::context::Context;
use crate::decl::{ContextDecl, SystemOf};
use crate::pending::Pending;
use crate::proxy::columns::Columns;
use crate::schedule::{Adapter, Adapters};
use crate::sparse_set::SparseSet;
use crate::subtask_proxy::SubtaskProxy;
use core::marker::PhantomData;

/// Marks system `Self` of context `Cx` as a column step (declared with
/// `kind: columns`): it runs as a [`ColumnSystem`], never as a
/// [`System`](crate::System).
///
/// `declare_context!` implements it for each column step. Nothing unsafe
/// relies on it: a column step's slices are sound for any system, by its
/// access rights ([`CanRead`](crate::CanRead), [`CanWrite`](crate::CanWrite)).
/// It makes code written for the wrong kind a compile error that says what
/// to declare.
///
/// ```
/// use ecs::traits::{ColumnStepOf, ContextDecl};
/// use ecs::Adapters;
/// # pub struct Mass(pub f32);
/// # #[derive(Default)]
/// # pub struct Weigh;
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Mass: contiguous; }
/// #         systems { weigh: Weigh { kind: columns, read: [Mass], output: usize } }
/// #     }
/// # }
/// /// `adapters` with code for column step `S` that counts its ids, in any context.
/// fn count<'f, Cx: ContextDecl, S: ColumnStepOf<Cx, Output = usize>>(adapters: Adapters<'f, Cx>) -> Adapters<'f, Cx> {
///     adapters.columns::<S>(|_, columns| *columns.output() = columns.len())
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     p.spawn_batch((0..4).map(|x| (Mass(x as f32),))).map(drop).unwrap();
///     p.run_adapted(&count::<_, Weigh>(Adapters::new()));
/// });
/// assert_eq!(world.outputs::<Weigh>(), [4]);
/// ```
#[diagnostic::on_unimplemented(
    message = "system `{Self}` is not a column step of context `{Cx}`",
    label = "`{Self}` is declared as an entity system",
    note = "declare it with `kind: columns` in `{Cx}`'s `declare_context!` to run it over whole columns, or implement `ecs::System` for it and iterate its entities"
)]
pub trait ColumnStepOf<Cx: ContextDecl>: SystemOf<Cx> {}

/// The code of a column step, run with arguments `A` (`()` by default).
///
/// Running it calls [`before`](Self::before) once, then
/// [`process`](Self::process) once per subtask (in parallel when its
/// parallelism strategy splits it), then [`after`](Self::after) once with
/// every subtask's output, as for a [`System`](crate::System). `process`
/// gets a [`Columns`] proxy instead of entities: the step's columns as
/// slices, one per run of ids (see [`Columns`] for which values).
///
/// ```
/// use ecs::{ColumnSystem, Columns};
///
/// pub struct Mass(pub f32);
///
/// /// Weighs every mass, keeping the last total.
/// #[derive(Default)]
/// pub struct Weigh {
///     pub runs: u32,
///     pub total: f32,
/// }
///
/// ecs::declare_context! {
///     pub context World {
///         components { Mass: contiguous; }
///         systems { weigh: Weigh { kind: columns, read: [Mass], output: f32 } }
///     }
/// }
///
/// impl ColumnSystem<World> for Weigh {
///     fn before(&mut self, _: &()) {
///         self.runs += 1;
///     }
///     fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
///         let mut sum = 0.0;
///         columns.for_each_run::<&Mass>(|masses| sum += masses.iter().map(|m| m.0).sum::<f32>());
///         *columns.output() += sum;
///     }
///     fn reset_output(output: &mut f32) {
///         *output = 0.0;
///     }
///     fn after(&mut self, outputs: &mut [f32], _: &()) {
///         self.total = outputs.iter().sum();
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     p.spawn((Mass(1.0),)).unwrap();
///     p.spawn((Mass(2.0),)).unwrap();
/// });
/// world.step(|p| p.run_all(&()));
/// world.step(|p| p.run_all(&())); // outputs start again from `reset_output`'s 0
/// assert_eq!((world.system::<Weigh>().runs, world.system::<Weigh>().total), (2, 3.0));
/// ```
#[diagnostic::on_unimplemented(
    message = "column step `{Self}` cannot run with arguments of type `{A}`",
    label = "no `impl ecs::ColumnSystem<{Cx}, {A}> for {Self}`",
    note = "`{Self}` is declared `kind: columns`: implement `ecs::ColumnSystem<{Cx}, {A}>` for it (not `ecs::System`); every system run by `run_all`/`run_from` takes the same arguments"
)]
pub trait ColumnSystem<Cx: ContextDecl, A: ?Sized = ()>: ColumnStepOf<Cx> {
    /// Runs once before the subtasks, with exclusive access to the state.
    ///
    /// See [the trait's example](ColumnSystem), which implements it.
    fn before(&mut self, args: &A) {
        let _ = args;
    }

    /// Processes the columns of one subtask.
    ///
    /// See [the trait's example](ColumnSystem), which implements it.
    fn process(&self, columns: &mut Columns<'_, Cx, Self>, args: &A);

    /// Makes one subtask's output ready for [`process`](Self::process), as
    /// [`System::reset_output`](crate::System::reset_output) does.
    ///
    /// See [the trait's example](ColumnSystem), which implements it.
    #[inline]
    fn reset_output(output: &mut Self::Output) {
        *output = Default::default();
    }

    /// Runs once after every subtask finished, with their outputs in
    /// subtask order.
    ///
    /// See [the trait's example](ColumnSystem), which implements it.
    fn after(&mut self, outputs: &mut [Self::Output], args: &A) {
        let _ = (outputs, args);
    }
}

impl<Cx: ContextDecl> Context<Cx> {
    /// Runs column step `S` with `args`: `before`, every subtask, `after`.
    ///
    /// # Safety
    /// As [`run_system`](Self::run_system): only the dispatch that
    /// `run_selected` (or `run_all` on one thread) calls may call it (generated
    /// [`Dispatch`](crate::Dispatch) code does).
    #[doc(hidden)]
    pub unsafe fn run_column_system<S: ColumnSystem<Cx, A>, A: ?Sized + Sync>(&self, args: &A) {
        self.run_with::<S, ColumnsProxy>(
            |s| s.before(args),
            |s, columns| s.process(columns, args),
            |s, outputs| s.after(outputs, args),
            S::reset_output,
        );
    }
}

/// Builds a [`Columns`] proxy per subtask (column steps queue nothing, so
/// it leaves the subtask's queue alone).
pub(crate) enum ColumnsProxy {}

impl<Cx: ContextDecl, S: SystemOf<Cx>> SubtaskProxy<Cx, S> for ColumnsProxy {
    type Proxy<'a> = Columns<'a, Cx, S>;

    #[inline(always)]
    unsafe fn new<'a, const MAY_SPLIT: bool>(
        cx: &'a Context<Cx>,
        set: &'a SparseSet,
        subtask: usize,
        subtasks: usize,
        output: &'a mut S::Output,
        _: &'a mut Pending<Cx>,
    ) -> Columns<'a, Cx, S> {
        // SAFETY: `Columns::new`'s contract is this one (caller), whose
        // parts of `set` are `subtask_range`'s, as `Columns` splits it.
        unsafe { Columns::new(cx, set, subtask, subtasks, output) }
    }
}

/// A column step's code given as closures.
struct ColumnsDetailed<S, B, P, A> {
    before: B,
    process: P,
    after: A,
    _system: PhantomData<fn(S)>,
}

impl<Cx, S, B, P, A> Adapter<Cx> for ColumnsDetailed<S, B, P, A>
where
    Cx: ContextDecl,
    S: ColumnStepOf<Cx>,
    B: Fn(&mut S) + Sync,
    P: Fn(&S, &mut Columns<'_, Cx, S>) + Sync,
    A: Fn(&mut S, &mut [S::Output]) + Sync,
{
    fn run(&self, cx: &Context<Cx>) {
        cx.run_with::<S, ColumnsProxy>(&self.before, &self.process, &self.after, |o| *o = Default::default());
    }
}

impl<'f, Cx: ContextDecl> Adapters<'f, Cx> {
    /// Runs column step `S` with `process` for each of its subtasks.
    ///
    /// # Examples
    /// ```
    /// use ecs::Adapters;
    /// # pub struct Health(pub i32);
    /// # #[derive(Default)]
    /// # pub struct Heal;
    /// # ecs::declare_context! {
    /// #     pub context Game {
    /// #         components { Health: contiguous; }
    /// #         systems { heal: Heal { kind: columns, write: [Health] } }
    /// #     }
    /// # }
    /// let mut game = Game::new();
    /// let e = game.step(|p| p.spawn((Health(1),)).unwrap());
    /// let amount = 4; // captured: no `impl ColumnSystem` needed
    /// game.step(|p| {
    ///     p.run_adapted(&Adapters::new().columns::<Heal>(move |_, columns| {
    ///         columns.for_each_run::<&mut Health>(|hs| hs.iter_mut().for_each(|h| h.0 += amount));
    ///     }))
    /// });
    /// game.step(|p| assert_eq!(p.get::<Health>(e).unwrap().0, 5));
    /// ```
    pub fn columns<S: ColumnStepOf<Cx>>(self, process: impl Fn(&S, &mut Columns<'_, Cx, S>) + Sync + 'f) -> Self {
        self.columns_detailed::<S>(|_| {}, process, |_, _| {})
    }

    /// Runs column step `S` with `before` once, `process` for each subtask
    /// (in parallel where split), then `after` once with every subtask's
    /// output, in subtask order.
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
    /// #         systems { census: Census { kind: columns, read: [Health], output: usize } }
    /// #     }
    /// # }
    /// let mut game = Game::new();
    /// game.step(|p| {
    ///     for h in [5, 0, 7] {
    ///         p.spawn((Health(h),)).unwrap();
    ///     }
    ///     p.run_adapted(&Adapters::new().columns_detailed::<Census>(
    ///         |census| census.runs += 1,
    ///         |_, columns| {
    ///             let mut n = 0;
    ///             columns.for_each_run::<&Health>(|hs| n += hs.iter().filter(|h| h.0 > 0).count());
    ///             *columns.output() = n;
    ///         },
    ///         |census, outputs| census.alive = outputs.iter().sum(),
    ///     ));
    /// });
    /// assert_eq!((game.system::<Census>().runs, game.system::<Census>().alive), (1, 2));
    /// ```
    pub fn columns_detailed<S: ColumnStepOf<Cx>>(
        self,
        before: impl Fn(&mut S) + Sync + 'f,
        process: impl Fn(&S, &mut Columns<'_, Cx, S>) + Sync + 'f,
        after: impl Fn(&mut S, &mut [S::Output]) + Sync + 'f,
    ) -> Self {
        self.with_adapter(
            S::INDEX,
            Box::new(ColumnsDetailed {
                before,
                process,
                after,
                _system: PhantomData,
            }),
        )
    }
}
