//! What every component type must be.

/// What every component type must be: `Send + Sync + 'static`, since the
/// systems that touch it run on several threads.
///
/// Implemented for every such type. The built-in storages ask for it of
/// their component (in their `Column`, `Storage`, `Send` and `Sync` impls),
/// so that a component that is not thread-safe gives one error, with this
/// trait's message, where its [`Component`](crate::Component) impl names its storage: on its
/// name in the declaration.
///
/// ```
/// use ecs::traits::ComponentBounds;
///
/// /// Stores a value the way a component is stored: on any thread.
/// fn share<T: ComponentBounds>(value: T) -> std::sync::Arc<T> {
///     std::sync::Arc::new(value)
/// }
///
/// let shared = share(vec![1, 2, 3]);
/// std::thread::spawn(move || assert_eq!(shared.len(), 3)).join().unwrap();
/// ```
///
/// A component that is not thread-safe is rejected where the declaration
/// names its storage:
///
/// ```compile_fail,E0277
/// pub struct Cached(pub std::rc::Rc<u32>);
///
/// ecs::declare_context! {
///     pub context World {
///         components { Cached: contiguous; }
///         systems {}
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "component `{Self}` is not `Send + Sync + 'static`, which components must be: systems run on several threads",
    label = "`{Self}` is not `Send + Sync + 'static`",
    note = "make every field of `{Self}` thread-safe: `Arc` instead of `Rc`, `Mutex`, `RwLock` or atomics instead of `Cell` and `RefCell`, owned values or `&'static` instead of borrowed references"
)]
pub trait ComponentBounds: Send + Sync + 'static {}

// `do_not_recommend`: a failure reports `ComponentBounds`'s message on the
// component, not `Send`'s on whichever field is not.
#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> ComponentBounds for T {}
