//! Proxies: the only ways user code touches a context's data.
//!
//! - [`Step`]: inside [`Context::step`](crate::Context::step), exclusive access to
//!   everything: entities, components, systems, running systems;
//! - [`Data`] and [`View`]: inside a system's subtask, the access its
//!   declaration grants;
//! - [`Defer`]: inside a deferred function, run at refresh: entity and
//!   component operations.

pub(crate) mod bulk;
pub(crate) mod columns;
pub(crate) mod data;
pub(crate) mod defer;
pub(crate) mod entity_mut;
pub(crate) mod instances;
pub(crate) mod lookup;
pub(crate) mod names;
pub(crate) mod prepared;
pub(crate) mod spawn;
pub(crate) mod step;
pub(crate) mod world_query;

pub use columns::Columns;
pub use data::{Data, View};
pub use defer::Defer;
pub use entity_mut::EntityMut;
pub use instances::ManyComponent;
pub use lookup::Lookup;
pub use prepared::PreparedQuery;
pub use spawn::{Bundle, CloneBundle, Components, Spawned};
pub use step::Step;
pub use world_query::{Exclusive, QueryIter};
