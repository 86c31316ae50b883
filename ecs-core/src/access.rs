//! The access rights a declaration grants each system, as traits.
//!
//! `declare_context!` implements these for a system only when its declaration
//! allows the access; a proxy method asks for the trait, so an access the
//! declaration does not allow is a compile error whose message says what to
//! add where.
//!
//! Rights, after bevy's `Access`: writing implies reading; two systems may run
//! at the same time only when neither writes what the other reads or writes,
//! which `declare_context!` checks once, at expansion time.

use crate::decl::{ContextDecl, SystemOf};

/// System `Self` may read component `C` of the entities it processes.
///
/// # Safety
/// `C` is in the system's `read` or `write` list (so every entity it
/// processes has `C`), and no system that can run at the same time writes `C`.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` does not declare access to component `{C}`",
    label = "`{C}` is in neither `read` nor `write` of `{Self}`",
    note = "add `{C}` to the `read` list of system `{Self}` in `declare_context!` (or to `write` to also modify it)"
)]
pub unsafe trait CanRead<Cx: ContextDecl, C>: SystemOf<Cx> {}

/// System `Self` may modify component `C` of the entities it processes.
///
/// # Safety
/// `C` is in the system's `write` list, and no system that can run at the
/// same time reads or writes `C`.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` may not modify component `{C}`",
    label = "`{C}` is not in the `write` list of `{Self}`",
    note = "add `{C}` to the `write` list of system `{Self}` in `declare_context!`"
)]
pub unsafe trait CanWrite<Cx: ContextDecl, C>: CanRead<Cx, C> {}

/// System `Self` may read component `C` of any entity, including those that
/// other subtasks of the same system process.
///
/// # Safety
/// As [`CanRead`], and the system does not write `C`, so no subtask of it
/// writes `C` either.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` may not read component `{C}` of entities outside its own subtask",
    label = "`{C}` is not a read-only component of `{Self}`",
    note = "add `{C}` to the `read` list of system `{Self}` in `declare_context!`; a component in `write` can be read only through the entity being processed, since other subtasks may be writing it"
)]
pub unsafe trait CanReadShared<Cx: ContextDecl, C>: CanRead<Cx, C> {}

/// System `Self` runs after system `T` whenever both run: it may read `T`'s
/// state and outputs.
///
/// # Safety
/// `T` is an ancestor of `Self` in the dependency graph.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` may not access system `{T}`: it does not depend on it",
    label = "`{T}` is not an ancestor of `{Self}`",
    note = "add `{T}`'s name to the `after` list of system `{Self}` (or of one of its ancestors) in `declare_context!`"
)]
pub unsafe trait DependsOn<Cx: ContextDecl, T: SystemOf<Cx>>: SystemOf<Cx> {}
