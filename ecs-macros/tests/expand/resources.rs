/**

# Components

| component | storage | read by | written by | description |
| --- | --- | --- | --- | --- |
| `Position` | `contiguous` | `index` | `movement` |  |

# Resources

| resource | field of `GameResources` | read by | written by | description |
| --- | --- | --- | --- | --- |
| `Time` | `time` | `movement` | — |  |
| `SpatialGrid` | `spatial_grid` | — | `index` |  |

# Systems

| system | type | reads | writes | after | parallelism | output | description |
| --- | --- | --- | --- | --- | --- | --- | --- |
| `movement` | `Move` | `Time` | `Position` | — | none | — |  |
| `index` | `Index` | `Position` | `SpatialGrid` | `movement` | none | — |  |

# Dependency graph

```text
Levels (systems on one level may run together):
  0: movement
  1: index
Independent chains:
  movement -> index (after movement)
```

# Settings

- entities: dynamic, growing from 1024
- inner parallelism: allowed
- threads: one per available core
*/
pub struct Game {
    inner: ::ecs::__private::Context<Game>,
}
#[allow(dead_code)]
impl Game {
    /// Creates the context with every system and resource in its
    /// default state.
    ///
    /// Exists when every system's state type implements `Default`:
    /// that is all the `where` clause says (it is written with
    /// `for<'__ecs>` so that a context whose states are not all
    /// `Default` still compiles, without `new`). Otherwise, create
    /// the context with [`with_systems`](Self::with_systems).
    ///
    /// Starts no thread: the workers start when a step first has
    /// work for them.
    #[must_use]
    pub fn new() -> Self
    where
        for<'__ecs> GameSystems: ::core::default::Default,
        for<'__ecs> GameResources: ::core::default::Default,
    {
        Self::with_systems(::core::default::Default::default())
    }
    /// Creates the context with the given system states, and every
    /// resource in its default state.
    ///
    /// Starts no thread: the workers start when a step first has
    /// work for them.
    #[must_use]
    pub fn with_systems(systems: GameSystems) -> Self
    where
        for<'__ecs> GameResources: ::core::default::Default,
    {
        Self::from_parts(
            systems,
            ::core::default::Default::default(),
            ::core::option::Option::None,
        )
    }
    /// Creates the context with the given system states and
    /// resource values.
    ///
    /// Starts no thread: the workers start when a step first has
    /// work for them.
    #[must_use]
    pub fn with_resources(systems: GameSystems, resources: GameResources) -> Self {
        Self::from_parts(systems, resources, ::core::option::Option::None)
    }
    /// Creates the context with the given system states, running on
    /// `threads` threads instead of the declared count (`None`: one
    /// per available core): the caller of `step` and `threads - 1`
    /// workers. A count above 1024 is capped at 1024. Resources hold
    /// their default values.
    ///
    /// Starts no thread: the workers start when a step first has
    /// work for them.
    #[must_use]
    pub fn with_threads(
        systems: GameSystems,
        threads: ::core::option::Option<usize>,
    ) -> Self
    where
        for<'__ecs> GameResources: ::core::default::Default,
    {
        Self::from_parts(systems, ::core::default::Default::default(), threads)
    }
    /// Creates the context with the given system states and
    /// resource values, running on `threads` threads (as
    /// `with_threads`).
    #[must_use]
    pub fn from_parts(
        systems: GameSystems,
        resources: GameResources,
        threads: ::core::option::Option<usize>,
    ) -> Self {
        Self {
            inner: ::ecs::__private::Context::from_parts(systems, resources, threads),
        }
    }
}
impl ::core::default::Default for Game
where
    for<'__ecs> GameSystems: ::core::default::Default,
    for<'__ecs> GameResources: ::core::default::Default,
{
    fn default() -> Self {
        Self::new()
    }
}
impl ::core::ops::Deref for Game {
    type Target = ::ecs::__private::Context<Game>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}
impl ::core::ops::DerefMut for Game {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}
unsafe impl ::ecs::__private::ContextDecl for Game {
    type Bits = ::ecs::__private::Bits8;
    type Storages = __GameStorages;
    type Systems = __GameSlots;
    type States = GameSystems;
    type Resources = __GameResourceCells;
    type ResourceValues = GameResources;
    const NAME: &'static str = "Game";
    const SETTINGS: ::ecs::__private::Settings = ::ecs::__private::Settings {
        entities: ::ecs::__private::EntityLimit::Dynamic {
            initial: 1024usize,
        },
        inner_parallelism: true,
        threads: ::core::option::Option::None,
        layout: ::ecs::__private::Layout::Ids,
    };
    const COMPONENTS: &'static [&'static str] = &["Position"];
    const RESOURCES: &'static [&'static str] = &["Time", "SpatialGrid"];
    const SYSTEMS: &'static [::ecs::__private::SystemInfo] = &[
        ::ecs::__private::SystemInfo {
            name: "movement",
            type_name: "Move",
            dependencies: &[],
            dependents: &[1usize],
            ancestors: &[],
        },
        ::ecs::__private::SystemInfo {
            name: "index",
            type_name: "Index",
            dependencies: &[0usize],
            dependents: &[],
            ancestors: &[0usize],
        },
    ];
    const SIGNATURES: &'static [Self::Bits] = &[
        ::ecs::__private::Bits8::from_indices(&[0usize]),
        ::ecs::__private::Bits8::from_indices(&[0usize]),
    ];
    const TOPOLOGICAL: &'static [usize] = &[0usize, 1usize];
    const SUMMARY: &'static str = "context Game\nsettings: entities dynamic(1024), inner parallelism allowed, threads auto\ncomponents (1):\n  Position: contiguous\nresources (2):\n  Time\n  SpatialGrid\nsystems (2):\n  movement: Move read [Time] write [Position] after []\n  index: Index read [Position] write [SpatialGrid] after [movement]\nLevels (systems on one level may run together):\n  0: movement\n  1: index\nIndependent chains:\n  movement -> index (after movement)\n";
    const DOT: &'static str = "digraph \"Game\" {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n  \"movement\" [label=\"movement\\nMove\"];\n  \"index\" [label=\"index\\nIndex\"];\n  \"movement\" -> \"index\";\n}\n";
    const DOT_WITH_COMPONENTS: &'static str = "digraph \"Game\" {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n  \"movement\" [label=\"movement\\nMove\"];\n  \"index\" [label=\"index\\nIndex\"];\n  \"movement\" -> \"index\";\n  node [shape=ellipse, style=filled, fillcolor=lightgrey];\n  \"component Position\" [label=\"Position\\ncontiguous\"];\n  \"movement\" -> \"component Position\" [style=bold];\n  \"component Position\" -> \"index\" [style=dashed];\n  node [shape=hexagon, style=filled, fillcolor=lightyellow];\n  \"resource Time\" [label=\"Time\\nresource\"];\n  \"resource SpatialGrid\" [label=\"SpatialGrid\\nresource\"];\n  \"resource Time\" -> \"movement\" [style=dashed];\n  \"index\" -> \"resource SpatialGrid\" [style=bold];\n}\n";
    fn new_storages(limit: ::ecs::__private::EntityLimit) -> __GameStorages {
        __GameStorages {
            c0: ::ecs::__private::new_column::<Game, Position>(limit),
        }
    }
    fn new_resources(values: GameResources) -> __GameResourceCells {
        let _ = &values;
        __GameResourceCells {
            r0: ::ecs::__private::new_resource_cell::<Game, Time>(values.time),
            r1: ::ecs::__private::new_resource_cell::<
                Game,
                SpatialGrid,
            >(values.spatial_grid),
        }
    }
    fn new_systems(states: GameSystems) -> __GameSlots {
        __GameSlots {
            cores: ::ecs::__private::SlotCore::new_array(),
            s0: ::ecs::__private::SystemSlot::new(states.movement),
            s1: ::ecs::__private::SystemSlot::new(states.index),
        }
    }
    fn remove_component(
        storages: &mut __GameStorages,
        index: usize,
        id: ::ecs::__private::EntityId,
    ) {
        match index {
            0usize => {
                unsafe {
                    ::ecs::__private::discard_contiguous(
                        storages as *mut __GameStorages as *mut u8,
                        __GameStorages::OFFSETS[index],
                        id,
                    )
                }
            }
            _ => {}
        }
    }
    fn relocate_component(
        storages: &mut __GameStorages,
        index: usize,
        from: ::ecs::__private::EntityId,
        to: ::ecs::__private::EntityId,
    ) {
        match index {
            0usize => {
                unsafe {
                    ::ecs::__private::relocate_contiguous(
                        storages as *mut __GameStorages as *mut u8,
                        __GameStorages::OFFSETS[index],
                        from,
                        to,
                    )
                }
            }
            _ => {}
        }
    }
    fn swap_component(
        storages: &mut __GameStorages,
        index: usize,
        a: ::ecs::__private::EntityId,
        b: ::ecs::__private::EntityId,
    ) {
        match index {
            _ => {}
        }
    }
    #[inline]
    fn slot_core(
        systems: &__GameSlots,
        index: usize,
    ) -> &::ecs::__private::SlotCore<Self> {
        &systems.cores[index]
    }
    #[inline]
    fn slot_core_mut(
        systems: &mut __GameSlots,
        index: usize,
    ) -> &mut ::ecs::__private::SlotCore<Self> {
        &mut systems.cores[index]
    }
}
#[doc(hidden)]
#[allow(non_snake_case)]
pub struct __GameStorages {
    c0: ::ecs::__private::Contiguous<Position>,
}
impl __GameStorages {
    /// The byte offset of each component's field, by component
    /// index (its group's for a grouped one): where the dispatches
    /// by component index find the columns they reach untyped
    /// (unread when no component is `contiguous`, `sparse_set`,
    /// `hash_map`, `tag` or grouped).
    #[allow(dead_code)]
    const OFFSETS: [usize; 1usize] = [::core::mem::offset_of!(__GameStorages, c0)];
    /// By component index, a grouped member's byte offset within
    /// its group's slot, size and mask bit (zeros for the others):
    /// what `relocate_grouped` and `discard_grouped` need of it
    /// (unread without groups).
    #[allow(dead_code)]
    const MEMBERS: [(usize, usize, u8); 1usize] = [(0, 0, 0)];
    /// By component index, the drop that `discard_tag` and
    /// `discard_grouped` are given for a tag's or a grouped
    /// member's value (`None` when it needs none, and for the
    /// others).
    #[allow(dead_code)]
    const DROPS: [::core::option::Option<unsafe fn(*mut u8)>; 1usize] = [
        ::core::option::Option::None,
    ];
}
unsafe impl ::core::marker::Send for __GameStorages {}
unsafe impl ::core::marker::Sync for __GameStorages {}
unsafe impl ::ecs::__private::Component<Game> for Position {
    const INDEX: usize = 0usize;
    const NAME: &'static str = "Position";
    type Column = ::ecs::__private::Contiguous<Position>;
    #[inline(always)]
    fn column(storages: &__GameStorages) -> &Self::Column {
        &storages.c0
    }
    #[inline(always)]
    fn column_mut(storages: &mut __GameStorages) -> &mut Self::Column {
        &mut storages.c0
    }
}
///The state of every system of [`Game`], given to [`Game::with_systems`].
pub struct GameSystems {
    pub movement: Move,
    pub index: Index,
}
impl ::core::default::Default for GameSystems
where
    for<'__ecs> Move: ::core::default::Default,
    for<'__ecs> Index: ::core::default::Default,
{
    fn default() -> Self {
        Self {
            movement: ::core::default::Default::default(),
            index: ::core::default::Default::default(),
        }
    }
}
#[doc(hidden)]
pub struct __GameSlots {
    cores: [::ecs::__private::SlotCore<Game>; 2usize],
    s0: ::ecs::__private::SystemSlot<Game, Move>,
    s1: ::ecs::__private::SystemSlot<Game, Index>,
}
unsafe impl ::ecs::__private::SystemOf<Game> for Move {
    const INDEX: usize = 0usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::None;
    type Output = ();
    #[inline(always)]
    fn slot(systems: &__GameSlots) -> &::ecs::__private::SystemSlot<Game, Self> {
        &systems.s0
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __GameSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Game, Self> {
        &mut systems.s0
    }
}
unsafe impl ::ecs::__private::CanRead<Game, Position> for Move {}
unsafe impl ::ecs::__private::CanWrite<Game, Position> for Move {}
impl ::ecs::__private::Relations<Game> for Move {
    type Chunk = ();
    type Offset = ();
    type Related = ((bool, (bool, ())), ());
}
unsafe impl ::ecs::__private::SystemOf<Game> for Index {
    const INDEX: usize = 1usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::None;
    type Output = ();
    #[inline(always)]
    fn slot(systems: &__GameSlots) -> &::ecs::__private::SystemSlot<Game, Self> {
        &systems.s1
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __GameSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Game, Self> {
        &mut systems.s1
    }
}
unsafe impl ::ecs::__private::CanRead<Game, Position> for Index {}
unsafe impl ::ecs::__private::CanReadShared<Game, Position> for Index {}
unsafe impl ::ecs::__private::DependsOn<Game, Move> for Index {}
impl ::ecs::__private::Relations<Game> for Index {
    type Chunk = ();
    type Offset = ((),);
    type Related = ((bool, (bool, ())), ());
}
unsafe impl<
    __A: ?::core::marker::Sized + ::core::marker::Sync,
> ::ecs::__private::Dispatch<__A> for Game
where
    Move: ::ecs::__private::System<Game, __A>,
    Index: ::ecs::__private::System<Game, __A>,
{
    unsafe fn dispatch(cx: &::ecs::__private::Context<Self>, index: usize, args: &__A) {
        match index {
            0usize => unsafe { cx.run_system_with_data::<Move, __A>(args) }
            1usize => unsafe { cx.run_system_with_data::<Index, __A>(args) }
            _ => {}
        }
    }
}
///The initial value of every resource of [`Game`], given to [`Game::with_resources`] (the other constructors use `Default`).
pub struct GameResources {
    pub time: Time,
    pub spatial_grid: SpatialGrid,
}
impl ::core::default::Default for GameResources
where
    for<'__ecs> Time: ::core::default::Default,
    for<'__ecs> SpatialGrid: ::core::default::Default,
{
    fn default() -> Self {
        Self {
            time: ::core::default::Default::default(),
            spatial_grid: ::core::default::Default::default(),
        }
    }
}
#[doc(hidden)]
pub struct __GameResourceCells {
    r0: ::ecs::__private::ResourceCell<Time>,
    r1: ::ecs::__private::ResourceCell<SpatialGrid>,
}
unsafe impl ::ecs::__private::Resource<Game> for Time {
    const INDEX: usize = 0usize;
    const NAME: &'static str = "Time";
    #[inline(always)]
    fn cell(resources: &__GameResourceCells) -> &::ecs::__private::ResourceCell<Self> {
        &resources.r0
    }
    #[inline(always)]
    fn cell_mut(
        resources: &mut __GameResourceCells,
    ) -> &mut ::ecs::__private::ResourceCell<Self> {
        &mut resources.r0
    }
}
unsafe impl ::ecs::__private::Resource<Game> for SpatialGrid {
    const INDEX: usize = 1usize;
    const NAME: &'static str = "SpatialGrid";
    #[inline(always)]
    fn cell(resources: &__GameResourceCells) -> &::ecs::__private::ResourceCell<Self> {
        &resources.r1
    }
    #[inline(always)]
    fn cell_mut(
        resources: &mut __GameResourceCells,
    ) -> &mut ::ecs::__private::ResourceCell<Self> {
        &mut resources.r1
    }
}
unsafe impl ::ecs::__private::CanReadResource<Game, Time> for Move {}
unsafe impl ::ecs::__private::CanReadResource<Game, SpatialGrid> for Index {}
unsafe impl ::ecs::__private::CanWriteResource<Game, SpatialGrid> for Index {}
::ecs::__private::with_serde! {
    const _ : () = { ::ecs::__private::assert_saved:: < Position > ();
    ::ecs::__private::assert_saved:: < Time > (); ::ecs::__private::assert_saved:: <
    SpatialGrid > (); }; #[derive(::ecs::__private::serde::Serialize,
    ::ecs::__private::serde::Deserialize)] #[serde(crate = "::ecs::__private::serde",
    deny_unknown_fields)] #[doc(hidden)] pub struct __GameSavedColumns < __C0 > {
    #[serde(rename = "Position", default)] c0 : __C0, }
    #[derive(::ecs::__private::serde::Serialize, ::ecs::__private::serde::Deserialize)]
    #[serde(crate = "::ecs::__private::serde", deny_unknown_fields)] #[doc(hidden)] pub
    struct __GameSavedResources < __R0, __R1 > { time : __R0, spatial_grid : __R1, } impl
    ::ecs::__private::SaveDecl for Game where for < '__ecs > Position :
    ::ecs::__private::Saved, for < '__ecs > Time : ::ecs::__private::Saved, for < '__ecs
    > SpatialGrid : ::ecs::__private::Saved, { type Columns = __GameSavedColumns <
    ::ecs::__private::LoadColumn < Position > >; type ColumnsRef < '__ecs > =
    __GameSavedColumns < ::ecs::__private::SaveColumn < '__ecs, Game, Position > >; type
    SavedResources = __GameSavedResources < Time, SpatialGrid >; type ResourcesRef <
    '__ecs > = __GameSavedResources < & '__ecs Time, & '__ecs SpatialGrid >; fn
    columns_ref(cx : & ::ecs::__private::Context < Self >) -> Self::ColumnsRef < '_ > {
    let _ = cx; __GameSavedColumns { c0 : ::ecs::__private::SaveColumn::new(cx), } } fn
    resources_ref(cx : & ::ecs::__private::Context < Self >) -> Self::ResourcesRef < '_ >
    { let _ = cx; __GameSavedResources { time : cx.resource:: < Time > (), spatial_grid :
    cx.resource:: < SpatialGrid > (), } } fn columns_fit(columns : & Self::Columns, ids :
    usize) -> bool { let _ = (columns, ids); true && columns.c0.fits(ids) } fn
    restore_columns(cx : & mut ::ecs::__private::Context < Self >, columns :
    Self::Columns) { let _ = (& cx, & columns); ::ecs::__private::restore_column:: <
    Game, Position > (cx, columns.c0); } fn resource_values(saved : Self::SavedResources)
    -> GameResources { let _ = & saved; GameResources { time : saved.time, spatial_grid :
    saved.spatial_grid, } } }
}
