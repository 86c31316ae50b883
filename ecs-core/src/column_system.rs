//! Column steps: systems declared `kind: columns`, which see no entity and
//! compute over whole component columns as slices (ECST's planned
//! "generic computation step", thesis 13.1). They take part in the
//! dependency graph and the conflict checks as any system does; only their
//! code, and the proxy it gets, differ.

use crate::context::Context;
use crate::decl::{ContextDecl, SystemOf};
use crate::pending::Pending;
use crate::proxy::columns::Columns;
use crate::run::SubtaskProxy;
use crate::schedule::{Adapter, Adapters};
use crate::sparse_set::SparseSet;
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
/// slices, one per run of ids (see [`Columns`] for which values, and for a
/// runnable example).
#[diagnostic::on_unimplemented(
    message = "column step `{Self}` cannot run with arguments of type `{A}`",
    label = "no `impl ecs::ColumnSystem<{Cx}, {A}> for {Self}`",
    note = "`{Self}` is declared `kind: columns`: implement `ecs::ColumnSystem<{Cx}, {A}>` for it (not `ecs::System`); every system run by `run_all`/`run_from` takes the same arguments"
)]
pub trait ColumnSystem<Cx: ContextDecl, A: ?Sized = ()>: ColumnStepOf<Cx> {
    /// Runs once before the subtasks, with exclusive access to the state.
    fn before(&mut self, args: &A) {
        let _ = args;
    }

    /// Processes the columns of one subtask.
    fn process(&self, columns: &mut Columns<'_, Cx, Self>, args: &A);

    /// Makes one subtask's output ready for [`process`](Self::process), as
    /// [`System::reset_output`](crate::System::reset_output) does.
    #[inline]
    fn reset_output(output: &mut Self::Output) {
        *output = Default::default();
    }

    /// Runs once after every subtask finished, with their outputs in
    /// subtask order.
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
    unsafe fn new<'a>(
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
    pub fn columns<S: ColumnStepOf<Cx>>(self, process: impl Fn(&S, &mut Columns<'_, Cx, S>) + Sync + 'f) -> Self {
        self.columns_detailed::<S>(|_| {}, process, |_, _| {})
    }

    /// Runs column step `S` with `before` once, `process` for each subtask
    /// (in parallel where split), then `after` once with every subtask's
    /// output, in subtask order.
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
