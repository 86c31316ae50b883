/// A tiny simulation.
/**

# Components

| component | storage | read by | written by | description |
| --- | --- | --- | --- | --- |
| `Position` | `contiguous` | — | `movement` |  |
| `Velocity` | `contiguous` | `movement` | — |  |
| `Life` | `sparse_set` | — | `aging` |  |

# Systems

| system | type | reads | writes | after | parallelism | output | description |
| --- | --- | --- | --- | --- | --- | --- | --- |
| `movement` | `Move` | `Velocity` | `Position` | — | split evenly per core | — |  |
| `aging` | `Age` | — | `Life` | — | none | `usize` |  |

# Dependency graph

```text
Levels (systems on one level may run together):
  0: movement, aging
Independent chains:
  movement
  aging
```

# Settings

- entities: fixed, 10000 entities (allocated once)
- inner parallelism: allowed
- threads: one per available core
*/
pub struct World {
    inner: ::ecs::__private::Context<World>,
}
#[allow(dead_code)]
impl World {
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
        for<'__ecs> WorldSystems: ::core::default::Default,
        for<'__ecs> WorldResources: ::core::default::Default,
    {
        Self::with_systems(::core::default::Default::default())
    }
    /// Creates the context with the given system states, and every
    /// resource in its default state.
    ///
    /// Starts no thread: the workers start when a step first has
    /// work for them.
    #[must_use]
    pub fn with_systems(systems: WorldSystems) -> Self
    where
        for<'__ecs> WorldResources: ::core::default::Default,
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
    pub fn with_resources(systems: WorldSystems, resources: WorldResources) -> Self {
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
        systems: WorldSystems,
        threads: ::core::option::Option<usize>,
    ) -> Self
    where
        for<'__ecs> WorldResources: ::core::default::Default,
    {
        Self::from_parts(systems, ::core::default::Default::default(), threads)
    }
    /// Creates the context with the given system states and
    /// resource values, running on `threads` threads (as
    /// `with_threads`).
    #[must_use]
    pub fn from_parts(
        systems: WorldSystems,
        resources: WorldResources,
        threads: ::core::option::Option<usize>,
    ) -> Self {
        Self {
            inner: ::ecs::__private::Context::from_parts(systems, resources, threads),
        }
    }
}
impl ::core::default::Default for World
where
    for<'__ecs> WorldSystems: ::core::default::Default,
    for<'__ecs> WorldResources: ::core::default::Default,
{
    fn default() -> Self {
        Self::new()
    }
}
impl ::core::ops::Deref for World {
    type Target = ::ecs::__private::Context<World>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}
impl ::core::ops::DerefMut for World {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}
unsafe impl ::ecs::__private::ContextDecl for World {
    type Bits = ::ecs::__private::Bits8;
    type Storages = __WorldStorages;
    type Systems = __WorldSlots;
    type States = WorldSystems;
    type Resources = __WorldResourceCells;
    type ResourceValues = WorldResources;
    const NAME: &'static str = "World";
    const SETTINGS: ::ecs::__private::Settings = ::ecs::__private::Settings {
        entities: ::ecs::__private::EntityLimit::Fixed(10000usize),
        inner_parallelism: true,
        threads: ::core::option::Option::None,
        layout: ::ecs::__private::Layout::Ids,
    };
    const COMPONENTS: &'static [&'static str] = &["Position", "Velocity", "Life"];
    const RESOURCES: &'static [&'static str] = &[];
    const SYSTEMS: &'static [::ecs::__private::SystemInfo] = &[
        ::ecs::__private::SystemInfo {
            name: "movement",
            type_name: "Move",
            dependencies: &[],
            dependents: &[],
            ancestors: &[],
        },
        ::ecs::__private::SystemInfo {
            name: "aging",
            type_name: "Age",
            dependencies: &[],
            dependents: &[],
            ancestors: &[],
        },
    ];
    const SIGNATURES: &'static [Self::Bits] = &[
        ::ecs::__private::Bits8::from_indices(&[1usize, 0usize]),
        ::ecs::__private::Bits8::from_indices(&[2usize]),
    ];
    const TOPOLOGICAL: &'static [usize] = &[0usize, 1usize];
    const SUMMARY: &'static str = "context World\nsettings: entities fixed(10000), inner parallelism allowed, threads auto\ncomponents (3):\n  Position: contiguous\n  Velocity: contiguous\n  Life: sparse_set\nsystems (2):\n  movement: Move read [Velocity] write [Position] after []\n  aging: Age read [] write [Life] after [] output usize\nLevels (systems on one level may run together):\n  0: movement, aging\nIndependent chains:\n  movement\n  aging\n";
    const DOT: &'static str = "digraph \"World\" {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n  \"movement\" [label=\"movement\\nMove\"];\n  \"aging\" [label=\"aging\\nAge\"];\n}\n";
    const DOT_WITH_COMPONENTS: &'static str = "digraph \"World\" {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n  \"movement\" [label=\"movement\\nMove\"];\n  \"aging\" [label=\"aging\\nAge\"];\n  node [shape=ellipse, style=filled, fillcolor=lightgrey];\n  \"component Position\" [label=\"Position\\ncontiguous\"];\n  \"component Velocity\" [label=\"Velocity\\ncontiguous\"];\n  \"component Life\" [label=\"Life\\nsparse_set\"];\n  \"component Velocity\" -> \"movement\" [style=dashed];\n  \"movement\" -> \"component Position\" [style=bold];\n  \"aging\" -> \"component Life\" [style=bold];\n}\n";
    fn new_storages(limit: ::ecs::__private::EntityLimit) -> __WorldStorages {
        __WorldStorages {
            c0: ::ecs::__private::new_column::<World, Position>(limit),
            c1: ::ecs::__private::new_column::<World, Velocity>(limit),
            c2: ::ecs::__private::new_column::<World, Life>(limit),
        }
    }
    fn new_resources(values: WorldResources) -> __WorldResourceCells {
        let _ = &values;
        __WorldResourceCells {}
    }
    fn new_systems(states: WorldSystems) -> __WorldSlots {
        __WorldSlots {
            cores: ::ecs::__private::SlotCore::new_array(),
            s0: ::ecs::__private::SystemSlot::new(states.movement),
            s1: ::ecs::__private::SystemSlot::new(states.aging),
        }
    }
    fn remove_component(
        storages: &mut __WorldStorages,
        index: usize,
        id: ::ecs::__private::EntityId,
    ) {
        match index {
            0usize | 1usize => {
                unsafe {
                    ::ecs::__private::discard_contiguous(
                        storages as *mut __WorldStorages as *mut u8,
                        __WorldStorages::OFFSETS[index],
                        id,
                    )
                }
            }
            2usize => {
                unsafe {
                    ::ecs::__private::discard_sparse_set(
                        storages as *mut __WorldStorages as *mut u8,
                        __WorldStorages::OFFSETS[index],
                        id,
                    )
                }
            }
            _ => {}
        }
    }
    fn relocate_component(
        storages: &mut __WorldStorages,
        index: usize,
        from: ::ecs::__private::EntityId,
        to: ::ecs::__private::EntityId,
    ) {
        match index {
            0usize | 1usize => {
                unsafe {
                    ::ecs::__private::relocate_contiguous(
                        storages as *mut __WorldStorages as *mut u8,
                        __WorldStorages::OFFSETS[index],
                        from,
                        to,
                    )
                }
            }
            2usize => {
                unsafe {
                    ::ecs::__private::relocate_sparse_set(
                        storages as *mut __WorldStorages as *mut u8,
                        __WorldStorages::OFFSETS[index],
                        from,
                        to,
                    )
                }
            }
            _ => {}
        }
    }
    fn swap_component(
        storages: &mut __WorldStorages,
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
        systems: &__WorldSlots,
        index: usize,
    ) -> &::ecs::__private::SlotCore<Self> {
        &systems.cores[index]
    }
    #[inline]
    fn slot_core_mut(
        systems: &mut __WorldSlots,
        index: usize,
    ) -> &mut ::ecs::__private::SlotCore<Self> {
        &mut systems.cores[index]
    }
}
#[doc(hidden)]
#[allow(non_snake_case)]
pub struct __WorldStorages {
    c0: ::ecs::__private::Contiguous<Position>,
    c1: ::ecs::__private::Contiguous<Velocity>,
    c2: ::ecs::__private::SparseSetStorage<Life>,
}
impl __WorldStorages {
    /// The byte offset of each component's field, by component
    /// index (its group's for a grouped one): where the dispatches
    /// by component index find the columns they reach untyped
    /// (unread when no component is `contiguous`, `sparse_set`,
    /// `hash_map`, `tag` or grouped).
    #[allow(dead_code)]
    const OFFSETS: [usize; 3usize] = [
        ::core::mem::offset_of!(__WorldStorages, c0),
        ::core::mem::offset_of!(__WorldStorages, c1),
        ::core::mem::offset_of!(__WorldStorages, c2),
    ];
    /// By component index, a grouped member's byte offset within
    /// its group's slot, size and mask bit (zeros for the others):
    /// what `relocate_grouped` and `discard_grouped` need of it
    /// (unread without groups).
    #[allow(dead_code)]
    const MEMBERS: [(usize, usize, u8); 3usize] = [(0, 0, 0), (0, 0, 0), (0, 0, 0)];
    /// By component index, the drop that `discard_tag` and
    /// `discard_grouped` are given for a tag's or a grouped
    /// member's value (`None` when it needs none, and for the
    /// others).
    #[allow(dead_code)]
    const DROPS: [::core::option::Option<unsafe fn(*mut u8)>; 3usize] = [
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
    ];
}
unsafe impl ::core::marker::Send for __WorldStorages {}
unsafe impl ::core::marker::Sync for __WorldStorages {}
unsafe impl ::ecs::__private::Component<World> for Position {
    const INDEX: usize = 0usize;
    const NAME: &'static str = "Position";
    type Column = ::ecs::__private::Contiguous<Position>;
    #[inline(always)]
    fn column(storages: &__WorldStorages) -> &Self::Column {
        &storages.c0
    }
    #[inline(always)]
    fn column_mut(storages: &mut __WorldStorages) -> &mut Self::Column {
        &mut storages.c0
    }
}
unsafe impl ::ecs::__private::Component<World> for Velocity {
    const INDEX: usize = 1usize;
    const NAME: &'static str = "Velocity";
    type Column = ::ecs::__private::Contiguous<Velocity>;
    #[inline(always)]
    fn column(storages: &__WorldStorages) -> &Self::Column {
        &storages.c1
    }
    #[inline(always)]
    fn column_mut(storages: &mut __WorldStorages) -> &mut Self::Column {
        &mut storages.c1
    }
}
unsafe impl ::ecs::__private::Component<World> for Life {
    const INDEX: usize = 2usize;
    const NAME: &'static str = "Life";
    type Column = ::ecs::__private::SparseSetStorage<Life>;
    #[inline(always)]
    fn column(storages: &__WorldStorages) -> &Self::Column {
        &storages.c2
    }
    #[inline(always)]
    fn column_mut(storages: &mut __WorldStorages) -> &mut Self::Column {
        &mut storages.c2
    }
}
///The state of every system of [`World`], given to [`World::with_systems`].
pub struct WorldSystems {
    pub movement: Move,
    pub aging: Age,
}
impl ::core::default::Default for WorldSystems
where
    for<'__ecs> Move: ::core::default::Default,
    for<'__ecs> Age: ::core::default::Default,
{
    fn default() -> Self {
        Self {
            movement: ::core::default::Default::default(),
            aging: ::core::default::Default::default(),
        }
    }
}
#[doc(hidden)]
pub struct __WorldSlots {
    cores: [::ecs::__private::SlotCore<World>; 2usize],
    s0: ::ecs::__private::SystemSlot<World, Move>,
    s1: ::ecs::__private::SystemSlot<World, Age>,
}
unsafe impl ::ecs::__private::SystemOf<World> for Move {
    const INDEX: usize = 0usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::SplitEvenlyPerCore;
    type Output = ();
    #[inline(always)]
    fn slot(systems: &__WorldSlots) -> &::ecs::__private::SystemSlot<World, Self> {
        &systems.s0
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __WorldSlots,
    ) -> &mut ::ecs::__private::SystemSlot<World, Self> {
        &mut systems.s0
    }
}
unsafe impl ::ecs::__private::CanRead<World, Velocity> for Move {}
unsafe impl ::ecs::__private::CanRead<World, Position> for Move {}
unsafe impl ::ecs::__private::CanWrite<World, Position> for Move {}
unsafe impl ::ecs::__private::CanReadShared<World, Velocity> for Move {}
impl ::ecs::__private::Relations<World> for Move {
    type Chunk = ();
    type Offset = ();
    type Related = ((bool, ((), ())), ());
}
unsafe impl ::ecs::__private::SystemOf<World> for Age {
    const INDEX: usize = 1usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::None;
    type Output = usize;
    #[inline(always)]
    fn slot(systems: &__WorldSlots) -> &::ecs::__private::SystemSlot<World, Self> {
        &systems.s1
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __WorldSlots,
    ) -> &mut ::ecs::__private::SystemSlot<World, Self> {
        &mut systems.s1
    }
}
unsafe impl ::ecs::__private::CanRead<World, Life> for Age {}
unsafe impl ::ecs::__private::CanWrite<World, Life> for Age {}
impl ::ecs::__private::Relations<World> for Age {
    type Chunk = ();
    type Offset = ((),);
    type Related = (((), (bool, ())), ());
}
unsafe impl<
    __A: ?::core::marker::Sized + ::core::marker::Sync,
> ::ecs::__private::Dispatch<__A> for World
where
    Move: ::ecs::__private::System<World, __A>,
    Age: ::ecs::__private::System<World, __A>,
{
    unsafe fn dispatch(cx: &::ecs::__private::Context<Self>, index: usize, args: &__A) {
        match index {
            0usize => unsafe { cx.run_system_with_data::<Move, __A>(args) }
            1usize => unsafe { cx.run_system_with_data::<Age, __A>(args) }
            _ => {}
        }
    }
}
///The initial value of every resource of [`World`], given to [`World::with_resources`] (the other constructors use `Default`).
pub struct WorldResources {}
impl ::core::default::Default for WorldResources {
    fn default() -> Self {
        Self {}
    }
}
#[doc(hidden)]
pub struct __WorldResourceCells {}
