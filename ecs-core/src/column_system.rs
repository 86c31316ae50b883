//! Column steps: systems declared `kind: columns`, which see no entity and
//! compute over whole component columns as slices (ECST's planned
//! "generic computation step", thesis 13.1). They take part in the
//! dependency graph and the conflict checks as any system does; only their
//! code, and the proxy it gets, differ.

use crate::context::Context;
use crate::decl::{ContextDecl, SystemOf};
use crate::proxy::columns::Columns;
use crate::schedule::{Adapter, Adapters};
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
    /// `run_selected` calls may call it (generated
    /// [`Dispatch`](crate::Dispatch) code does).
    #[doc(hidden)]
    pub unsafe fn run_column_system<S: ColumnSystem<Cx, A>, A: ?Sized + Sync>(&self, args: &A) {
        self.run_columns_with::<S>(
            |s| s.before(args),
            |s, columns| s.process(columns, args),
            |s, outputs| s.after(outputs, args),
            S::reset_output,
        );
    }

    /// [`run_system_with`](Self::run_system_with) for a column step: the
    /// same run (state, outputs, subtasks on the team), with a [`Columns`]
    /// proxy per subtask.
    ///
    /// Called only from the closure `run_selected` gives the scheduler:
    /// through `Dispatch` (`run_column_system`) or an adapter.
    pub(crate) fn run_columns_with<S: SystemOf<Cx>>(
        &self,
        before: impl FnOnce(&mut S),
        process: impl Fn(&S, &mut Columns<'_, Cx, S>) + Sync,
        after: impl FnOnce(&mut S, &mut [S::Output]),
        reset: impl Fn(&mut S::Output) + Sync,
    ) {
        let slot = S::slot(&self.systems);
        // SAFETY: this is the run of `S`, as in `run_system_with`: the
        // scheduler runs `S` once, and its descendants, the only systems
        // that read its cell, after this returns.
        let (state, outputs, scratch) = unsafe { slot.cell.run() };
        before(state);
        let set = self.subscriptions.of::<Cx>(&self.systems, S::INDEX);
        let subtasks = if Cx::SETTINGS.inner_parallelism {
            S::PARALLELISM.subtasks(set.len(), self.threads)
        } else {
            1
        };
        let shared: &S = state;
        let core = Cx::slot_core(&self.systems, S::INDEX);
        self.run_subtasks(core, subtasks, outputs, scratch, &|i, output, _| {
            reset(output);
            // SAFETY: as in `run_system_with`: `set` holds the system's
            // subscribers, distinct and matched before any system ran, so
            // each holds its signature, and nothing changes components
            // while systems run; subtask `i` of `subtasks` gets its own part
            // of the set (`run_subtasks` calls this once per index, and
            // `Columns` splits one set into the same number of parts); the
            // scheduler runs only compatible systems at the same time.
            let mut columns = unsafe { Columns::<Cx, S>::new(self, set, i, subtasks, output) };
            process(shared, &mut columns);
        });
        after(state, outputs);
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
        cx.run_columns_with::<S>(&self.before, &self.process, &self.after, |o| *o = Default::default());
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
