//! Resources: values that belong to the context rather than to an entity
//! (time, input, a random generator, a spatial grid, a score).
//!
//! A declaration lists them in its `resources` block; `declare_context!`
//! generates a public struct of their values (`<Name>Resources`, given to
//! the context's constructor) and a hidden struct of [`ResourceCell`]s, one
//! per resource, which the context holds. Each resource type implements
//! [`Resource`], which finds its own cell: static dispatch, no map.
//!
//! Who may touch a resource:
//! - with exclusive access to the context (the context itself, the step
//!   closure, a deferred function): every resource, read and write;
//! - a system: the resources in its `read` list (shared) and its `write`
//!   list (exclusive), checked at compile time through
//!   [`CanReadResource`](crate::CanReadResource) and
//!   [`CanWriteResource`](crate::CanWriteResource). Systems that may run at
//!   the same time never conflict on a resource (the macro rejects the
//!   declaration), and a system that writes one runs as a single subtask
//!   (its `parallelism` must be `none`), so a written resource is never
//!   handed out to two subtasks at once.

use crate::decl::ContextDecl;
use core::cell::UnsafeCell;
use core::marker::PhantomData;

/// A resource type of context `Cx`.
///
/// # Safety
/// `INDEX` is this resource's index in the declaration (distinct from every
/// other resource's, below `Cx::RESOURCES.len()`), and `cell`/`cell_mut`
/// return this resource's own cell of the resources struct, the same one on
/// every call, which no other resource shares.
///
/// ```
/// use ecs::traits::{ContextDecl, Resource};
/// use ecs::Defer;
/// #[derive(Default)]
/// pub struct Score(pub u32);
/// # ecs::declare_context! {
/// #     pub context World { components {} resources { Score } systems {} }
/// # }
/// /// Puts resource `R` back to its default value, in any context.
/// fn reset<Cx: ContextDecl, R: Resource<Cx> + Default>(p: &mut Defer<'_, Cx>) {
///     *p.resource_mut::<R>() = R::default();
/// }
///
/// let mut world = World::new();
/// world.resource_mut::<Score>().0 = 9;
/// world.step(|p| reset::<_, Score>(p));
/// assert_eq!(world.resource::<Score>().0, 0);
/// assert_eq!(<Score as Resource<World>>::NAME, "Score");
/// assert_eq!(<Score as Resource<World>>::INDEX, 0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource of context `{Cx}`",
    label = "not declared in `{Cx}`",
    note = "add `{Self}` to the `resources` block of `{Cx}`'s `declare_context!`"
)]
pub unsafe trait Resource<Cx: ContextDecl>: ResourceBounds {
    /// The resource's index in the declaration.
    const INDEX: usize;
    /// The resource's name in the declaration.
    const NAME: &'static str;
    /// Its cell.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn cell(resources: &Cx::Resources) -> &ResourceCell<Self>;
    /// Its cell, mutably.
    // Hidden: implemented by `declare_context!`, called only by the runtime.
    #[doc(hidden)]
    fn cell_mut(resources: &mut Cx::Resources) -> &mut ResourceCell<Self>;
}

/// What every resource type must be: `Send + Sync + 'static`, since the
/// systems that read it run on several threads.
///
/// Implemented for every such type.
///
/// ```
/// use ecs::traits::ResourceBounds;
/// use std::sync::{Arc, Mutex};
///
/// /// Compiles only for types that may be resources.
/// fn may_be_resource<R: ResourceBounds>() {}
///
/// may_be_resource::<Vec<u8>>();
/// may_be_resource::<Arc<Mutex<String>>>();
/// // `Rc<u8>` or `Cell<u8>` would not compile: they are not `Sync`.
/// ```
#[diagnostic::on_unimplemented(
    message = "resource `{Self}` is not `Send + Sync + 'static`, which resources must be: systems run on several threads",
    label = "`{Self}` is not `Send + Sync + 'static`",
    note = "make every field of `{Self}` thread-safe: `Arc` instead of `Rc`, `Mutex`, `RwLock` or atomics instead of `Cell` and `RefCell`, owned values or `&'static` instead of borrowed references"
)]
pub trait ResourceBounds: Sized + Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> ResourceBounds for T {}

/// The cell holding one resource in a context: shared by the systems that
/// run at the same time, which the declaration allows to read it or (one of
/// them, alone) to write it.
///
/// Only this crate reads through a shared cell, under the rules in the
/// module's documentation; with `&mut` to the cell, anyone may.
pub struct ResourceCell<T> {
    value: UnsafeCell<T>,
    // Invariant in `T`: a cell made for one `T` never becomes
    // one of another type (with shorter lifetimes) that `new` did not check.
    _invariant: PhantomData<fn(T) -> T>,
}

// SAFETY: a `ResourceCell<T>` exists only if `new` made it, which requires
// `T: Send + Sync`; `T` is fixed (invariant). Sharing the cell hands out `&T`
// to several threads (fine, `T: Sync`) or `&mut T` to one at a time, which
// the callers of `get_mut_unchecked` guarantee (fine, `T: Send`).
unsafe impl<T> Sync for ResourceCell<T> {}
// SAFETY: as for `Sync`: `T: Send`.
unsafe impl<T> Send for ResourceCell<T> {}

impl<T> ResourceCell<T> {
    /// A cell holding `value`.
    #[inline]
    pub fn new(value: T) -> Self
    where
        T: Send + Sync,
    {
        ResourceCell {
            value: UnsafeCell::new(value),
            _invariant: PhantomData,
        }
    }

    /// The value, mutably: the `&mut` to the cell proves no one else holds it.
    #[inline(always)]
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }

    /// The value, taken out of the cell.
    #[inline]
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }

    /// The value, shared.
    ///
    /// # Safety
    /// For the returned lifetime, no `&mut T` from
    /// [`get_mut_unchecked`](Self::get_mut_unchecked) exists.
    #[inline(always)]
    pub(crate) unsafe fn get_unchecked(&self) -> &T {
        // SAFETY: the caller guarantees no `&mut T` exists meanwhile.
        unsafe { &*self.value.get() }
    }

    /// The value, exclusively, through a shared cell.
    ///
    /// # Safety
    /// For the returned lifetime, no other reference to the value exists.
    #[inline(always)]
    #[expect(
        clippy::mut_from_ref,
        reason = "the caller guarantees exclusivity, as for `UnsafeCell::get`"
    )]
    pub(crate) unsafe fn get_mut_unchecked(&self) -> &mut T {
        // SAFETY: the caller guarantees no other reference exists meanwhile.
        unsafe { &mut *self.value.get() }
    }
}

/// The cell of resource `R` holding `value`: what the generated resources
/// struct is made of, asking nothing of `R` beyond its [`Resource`] impl.
#[inline]
pub fn new_resource_cell<Cx: ContextDecl, R: Resource<Cx>>(value: R) -> ResourceCell<R> {
    ResourceCell::new(value)
}
