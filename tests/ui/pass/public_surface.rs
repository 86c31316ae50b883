//! Every item of the crate root and of `ecs::traits` and `ecs::storage` can
//! be named from a crate outside the workspace (tests/surface.rs pins the
//! list of root items; tests/ui/surface that internals are not there).
#![expect(unused_imports, reason = "the imports are the test")]

use ecs::storage::{Column, Contiguous, Group, GroupColumn, Grouped, HashMapStorage, Member, SparseSetStorage, Storage, Tag};
use ecs::traits::{
    Bundle, CanRead, CanReadShared, CanWrite, CloneBundle, Component, ComponentBounds, ComponentSet, Components, ContextDecl,
    DependsOn, Dispatch, Exclusive, Independent, Parallelism, Query, Roots, Settings, SharedQuery, SystemInfo,
    SystemOf,
};
use ecs::{
    declare_context, Adapters, Context, ContextFull, Data, Defer, Entity, EntityId, EntityLimit, EntityMut, NoSuchEntity,
    QueryIter, RefreshEvents, Spawned, Step, System, View,
};
use ecs::{ColumnSystem, Columns, InstanceKey, Instances, InstancesMut, Liveness, Many, ManyMut, ManyRef, NameError};
use ecs::storage::{IterMut, ManyColumn};
use ecs::traits::{InstanceQuery, ManyComponent};
use ecs::{Consume, Layout, Lookup, Stream};
use ecs::traits::StreamOutput;
use ecs::traits::{ColumnQuery, ColumnStepOf};
use ecs::save;
use ecs::traits::{CanReadResource, CanWriteResource, Resource, ResourceBounds};

fn main() {}
