/**

# Components

| component | storage | read by | written by | description |
| --- | --- | --- | --- | --- |
| `C0` | `contiguous` | `s4` | `s0` |  |
| `C1` | `contiguous` | — | `s0` |  |
| `C2` | `sparse_set` | `s5` | `s1` |  |
| `C3` | `sparse_set` | — | `s1` |  |
| `C4` | `hash_map` | `s6` | `s2` |  |
| `C5` | `hash_map` | — | `s2` |  |
| `C6` | grouped with `C7` | `s7` | `s3` |  |
| `C7` | grouped with `C6` | — | `s3` |  |
| `C8` | `tag` | — | `s4` |  |
| `C9` | `tag` | — | `s4` |  |
| `C10` | `contiguous` | — | `s5` |  |
| `C11` | `contiguous` | — | `s5` |  |
| `C12` | `sparse_set` | — | `s6` |  |
| `C13` | `sparse_set` | — | `s6` |  |
| `C14` | `hash_map` | — | `s7` |  |
| `C15` | `hash_map` | — | `s7` |  |

# Systems

| system | type | reads | writes | after | parallelism | output | description |
| --- | --- | --- | --- | --- | --- | --- | --- |
| `s0` | `S0` | — | `C0`, `C1` | — | none | `Vec<u32>` |  |
| `s1` | `S1` | — | `C2`, `C3` | — | split evenly per core | — |  |
| `s2` | `S2` | — | `C4`, `C5` | — | split every 64 entities | — |  |
| `s3` | `S3` | — | `C6`, `C7` | — | none below 100 entities, else split evenly per core | `Vec<u32>` |  |
| `s4` | `S4` | `C0` | `C8`, `C9` | `s0` | none | — |  |
| `s5` | `S5` | `C2` | `C10`, `C11` | `s1` | split evenly per core | — |  |
| `s6` | `S6` | `C4` | `C12`, `C13` | `s2` | split every 64 entities | `Vec<u32>` |  |
| `s7` | `S7` | `C6` | `C14`, `C15` | `s3` | none below 100 entities, else split evenly per core | — |  |

# Dependency graph

```text
Levels (systems on one level may run together):
  0: s0, s1, s2, s3
  1: s4, s5, s6, s7
Independent chains:
  s0 -> s4 (after s0)
  s1 -> s5 (after s1)
  s2 -> s6 (after s2)
  s3 -> s7 (after s3)
```

# Settings

- entities: fixed, 1024 entities (allocated once)
- inner parallelism: allowed
- threads: 2
*/
pub struct Stress {
    inner: ::ecs::__private::Context<Stress>,
}
#[allow(dead_code)]
impl Stress {
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
        for<'__ecs> StressSystems: ::core::default::Default,
        for<'__ecs> StressResources: ::core::default::Default,
    {
        Self::with_systems(::core::default::Default::default())
    }
    /// Creates the context with the given system states, and every
    /// resource in its default state.
    ///
    /// Starts no thread: the workers start when a step first has
    /// work for them.
    #[must_use]
    pub fn with_systems(systems: StressSystems) -> Self
    where
        for<'__ecs> StressResources: ::core::default::Default,
    {
        Self::from_parts(
            systems,
            ::core::default::Default::default(),
            ::core::option::Option::Some(2usize),
        )
    }
    /// Creates the context with the given system states and
    /// resource values.
    ///
    /// Starts no thread: the workers start when a step first has
    /// work for them.
    #[must_use]
    pub fn with_resources(systems: StressSystems, resources: StressResources) -> Self {
        Self::from_parts(systems, resources, ::core::option::Option::Some(2usize))
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
        systems: StressSystems,
        threads: ::core::option::Option<usize>,
    ) -> Self
    where
        for<'__ecs> StressResources: ::core::default::Default,
    {
        Self::from_parts(systems, ::core::default::Default::default(), threads)
    }
    /// Creates the context with the given system states and
    /// resource values, running on `threads` threads (as
    /// `with_threads`).
    #[must_use]
    pub fn from_parts(
        systems: StressSystems,
        resources: StressResources,
        threads: ::core::option::Option<usize>,
    ) -> Self {
        Self {
            inner: ::ecs::__private::Context::from_parts(systems, resources, threads),
        }
    }
}
impl ::core::default::Default for Stress
where
    for<'__ecs> StressSystems: ::core::default::Default,
    for<'__ecs> StressResources: ::core::default::Default,
{
    fn default() -> Self {
        Self::new()
    }
}
impl ::core::ops::Deref for Stress {
    type Target = ::ecs::__private::Context<Stress>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}
impl ::core::ops::DerefMut for Stress {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}
unsafe impl ::ecs::__private::ContextDecl for Stress {
    type Bits = ::ecs::__private::Bits16;
    type Storages = __StressStorages;
    type Systems = __StressSlots;
    type States = StressSystems;
    type Resources = __StressResourceCells;
    type ResourceValues = StressResources;
    const NAME: &'static str = "Stress";
    const SETTINGS: ::ecs::__private::Settings = ::ecs::__private::Settings {
        entities: ::ecs::__private::EntityLimit::Fixed(1024usize),
        inner_parallelism: true,
        threads: ::core::option::Option::Some(2usize),
        layout: ::ecs::__private::Layout::Ids,
    };
    const COMPONENTS: &'static [&'static str] = &[
        "C0",
        "C1",
        "C2",
        "C3",
        "C4",
        "C5",
        "C6",
        "C7",
        "C8",
        "C9",
        "C10",
        "C11",
        "C12",
        "C13",
        "C14",
        "C15",
    ];
    const RESOURCES: &'static [&'static str] = &[];
    const SYSTEMS: &'static [::ecs::__private::SystemInfo] = &[
        ::ecs::__private::SystemInfo {
            name: "s0",
            type_name: "S0",
            dependencies: &[],
            dependents: &[4usize],
            ancestors: &[],
        },
        ::ecs::__private::SystemInfo {
            name: "s1",
            type_name: "S1",
            dependencies: &[],
            dependents: &[5usize],
            ancestors: &[],
        },
        ::ecs::__private::SystemInfo {
            name: "s2",
            type_name: "S2",
            dependencies: &[],
            dependents: &[6usize],
            ancestors: &[],
        },
        ::ecs::__private::SystemInfo {
            name: "s3",
            type_name: "S3",
            dependencies: &[],
            dependents: &[7usize],
            ancestors: &[],
        },
        ::ecs::__private::SystemInfo {
            name: "s4",
            type_name: "S4",
            dependencies: &[0usize],
            dependents: &[],
            ancestors: &[0usize],
        },
        ::ecs::__private::SystemInfo {
            name: "s5",
            type_name: "S5",
            dependencies: &[1usize],
            dependents: &[],
            ancestors: &[1usize],
        },
        ::ecs::__private::SystemInfo {
            name: "s6",
            type_name: "S6",
            dependencies: &[2usize],
            dependents: &[],
            ancestors: &[2usize],
        },
        ::ecs::__private::SystemInfo {
            name: "s7",
            type_name: "S7",
            dependencies: &[3usize],
            dependents: &[],
            ancestors: &[3usize],
        },
    ];
    const SIGNATURES: &'static [Self::Bits] = &[
        ::ecs::__private::Bits16::from_indices(&[0usize, 1usize]),
        ::ecs::__private::Bits16::from_indices(&[2usize, 3usize]),
        ::ecs::__private::Bits16::from_indices(&[4usize, 5usize]),
        ::ecs::__private::Bits16::from_indices(&[6usize, 7usize]),
        ::ecs::__private::Bits16::from_indices(&[0usize, 8usize, 9usize]),
        ::ecs::__private::Bits16::from_indices(&[2usize, 10usize, 11usize]),
        ::ecs::__private::Bits16::from_indices(&[4usize, 12usize, 13usize]),
        ::ecs::__private::Bits16::from_indices(&[6usize, 14usize, 15usize]),
    ];
    const TOPOLOGICAL: &'static [usize] = &[
        0usize, 1usize, 2usize, 3usize, 4usize, 5usize, 6usize, 7usize,
    ];
    const SUMMARY: &'static str = "context Stress\nsettings: entities fixed(1024), inner parallelism allowed, threads 2\ncomponents (16):\n  C0: contiguous\n  C1: contiguous\n  C2: sparse_set\n  C3: sparse_set\n  C4: hash_map\n  C5: hash_map\n  C6: grouped\n  C7: grouped\n  C8: tag\n  C9: tag\n  C10: contiguous\n  C11: contiguous\n  C12: sparse_set\n  C13: sparse_set\n  C14: hash_map\n  C15: hash_map\nsystems (8):\n  s0: S0 read [] write [C0, C1] after [] output Vec<u32>\n  s1: S1 read [] write [C2, C3] after []\n  s2: S2 read [] write [C4, C5] after []\n  s3: S3 read [] write [C6, C7] after [] output Vec<u32>\n  s4: S4 read [C0] write [C8, C9] after [s0]\n  s5: S5 read [C2] write [C10, C11] after [s1]\n  s6: S6 read [C4] write [C12, C13] after [s2] output Vec<u32>\n  s7: S7 read [C6] write [C14, C15] after [s3]\nLevels (systems on one level may run together):\n  0: s0, s1, s2, s3\n  1: s4, s5, s6, s7\nIndependent chains:\n  s0 -> s4 (after s0)\n  s1 -> s5 (after s1)\n  s2 -> s6 (after s2)\n  s3 -> s7 (after s3)\n";
    const DOT: &'static str = "digraph \"Stress\" {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n  \"s0\" [label=\"s0\\nS0\"];\n  \"s1\" [label=\"s1\\nS1\"];\n  \"s2\" [label=\"s2\\nS2\"];\n  \"s3\" [label=\"s3\\nS3\"];\n  \"s4\" [label=\"s4\\nS4\"];\n  \"s5\" [label=\"s5\\nS5\"];\n  \"s6\" [label=\"s6\\nS6\"];\n  \"s7\" [label=\"s7\\nS7\"];\n  \"s0\" -> \"s4\";\n  \"s1\" -> \"s5\";\n  \"s2\" -> \"s6\";\n  \"s3\" -> \"s7\";\n}\n";
    const DOT_WITH_COMPONENTS: &'static str = "digraph \"Stress\" {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n  \"s0\" [label=\"s0\\nS0\"];\n  \"s1\" [label=\"s1\\nS1\"];\n  \"s2\" [label=\"s2\\nS2\"];\n  \"s3\" [label=\"s3\\nS3\"];\n  \"s4\" [label=\"s4\\nS4\"];\n  \"s5\" [label=\"s5\\nS5\"];\n  \"s6\" [label=\"s6\\nS6\"];\n  \"s7\" [label=\"s7\\nS7\"];\n  \"s0\" -> \"s4\";\n  \"s1\" -> \"s5\";\n  \"s2\" -> \"s6\";\n  \"s3\" -> \"s7\";\n  node [shape=ellipse, style=filled, fillcolor=lightgrey];\n  \"component C0\" [label=\"C0\\ncontiguous\"];\n  \"component C1\" [label=\"C1\\ncontiguous\"];\n  \"component C2\" [label=\"C2\\nsparse_set\"];\n  \"component C3\" [label=\"C3\\nsparse_set\"];\n  \"component C4\" [label=\"C4\\nhash_map\"];\n  \"component C5\" [label=\"C5\\nhash_map\"];\n  \"component C6\" [label=\"C6\\ngrouped\"];\n  \"component C7\" [label=\"C7\\ngrouped\"];\n  \"component C8\" [label=\"C8\\ntag\"];\n  \"component C9\" [label=\"C9\\ntag\"];\n  \"component C10\" [label=\"C10\\ncontiguous\"];\n  \"component C11\" [label=\"C11\\ncontiguous\"];\n  \"component C12\" [label=\"C12\\nsparse_set\"];\n  \"component C13\" [label=\"C13\\nsparse_set\"];\n  \"component C14\" [label=\"C14\\nhash_map\"];\n  \"component C15\" [label=\"C15\\nhash_map\"];\n  \"s0\" -> \"component C0\" [style=bold];\n  \"s0\" -> \"component C1\" [style=bold];\n  \"s1\" -> \"component C2\" [style=bold];\n  \"s1\" -> \"component C3\" [style=bold];\n  \"s2\" -> \"component C4\" [style=bold];\n  \"s2\" -> \"component C5\" [style=bold];\n  \"s3\" -> \"component C6\" [style=bold];\n  \"s3\" -> \"component C7\" [style=bold];\n  \"component C0\" -> \"s4\" [style=dashed];\n  \"s4\" -> \"component C8\" [style=bold];\n  \"s4\" -> \"component C9\" [style=bold];\n  \"component C2\" -> \"s5\" [style=dashed];\n  \"s5\" -> \"component C10\" [style=bold];\n  \"s5\" -> \"component C11\" [style=bold];\n  \"component C4\" -> \"s6\" [style=dashed];\n  \"s6\" -> \"component C12\" [style=bold];\n  \"s6\" -> \"component C13\" [style=bold];\n  \"component C6\" -> \"s7\" [style=dashed];\n  \"s7\" -> \"component C14\" [style=bold];\n  \"s7\" -> \"component C15\" [style=bold];\n}\n";
    fn new_storages(limit: ::ecs::__private::EntityLimit) -> __StressStorages {
        __StressStorages {
            c0: ::ecs::__private::new_column::<Stress, C0>(limit),
            c1: ::ecs::__private::new_column::<Stress, C1>(limit),
            c2: ::ecs::__private::new_column::<Stress, C2>(limit),
            c3: ::ecs::__private::new_column::<Stress, C3>(limit),
            c4: ::ecs::__private::new_column::<Stress, C4>(limit),
            c5: ::ecs::__private::new_column::<Stress, C5>(limit),
            c8: ::ecs::__private::new_column::<Stress, C8>(limit),
            c9: ::ecs::__private::new_column::<Stress, C9>(limit),
            c10: ::ecs::__private::new_column::<Stress, C10>(limit),
            c11: ::ecs::__private::new_column::<Stress, C11>(limit),
            c12: ::ecs::__private::new_column::<Stress, C12>(limit),
            c13: ::ecs::__private::new_column::<Stress, C13>(limit),
            c14: ::ecs::__private::new_column::<Stress, C14>(limit),
            c15: ::ecs::__private::new_column::<Stress, C15>(limit),
            g0: ::ecs::__private::new_group::<Stress, _>(limit),
        }
    }
    fn new_resources(values: StressResources) -> __StressResourceCells {
        let _ = &values;
        __StressResourceCells {}
    }
    fn new_systems(states: StressSystems) -> __StressSlots {
        __StressSlots {
            cores: ::ecs::__private::SlotCore::new_array(),
            s0: ::ecs::__private::SystemSlot::new(states.s0),
            s1: ::ecs::__private::SystemSlot::new(states.s1),
            s2: ::ecs::__private::SystemSlot::new(states.s2),
            s3: ::ecs::__private::SystemSlot::new(states.s3),
            s4: ::ecs::__private::SystemSlot::new(states.s4),
            s5: ::ecs::__private::SystemSlot::new(states.s5),
            s6: ::ecs::__private::SystemSlot::new(states.s6),
            s7: ::ecs::__private::SystemSlot::new(states.s7),
        }
    }
    fn remove_component(
        storages: &mut __StressStorages,
        index: usize,
        id: ::ecs::__private::EntityId,
    ) {
        match index {
            0usize | 1usize | 10usize | 11usize => {
                unsafe {
                    ::ecs::__private::discard_contiguous(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        id,
                    )
                }
            }
            2usize | 3usize | 12usize | 13usize => {
                unsafe {
                    ::ecs::__private::discard_sparse_set(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        id,
                    )
                }
            }
            4usize | 5usize | 14usize | 15usize => {
                unsafe {
                    ::ecs::__private::discard_hash_map(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        id,
                    )
                }
            }
            8usize | 9usize => {
                unsafe {
                    ::ecs::__private::discard_tag(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        __StressStorages::DROPS[index],
                        id,
                    )
                }
            }
            6usize | 7usize => {
                unsafe {
                    ::ecs::__private::discard_grouped(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        __StressStorages::MEMBERS[index],
                        __StressStorages::DROPS[index],
                        id,
                    )
                }
            }
            _ => {}
        }
    }
    fn relocate_component(
        storages: &mut __StressStorages,
        index: usize,
        from: ::ecs::__private::EntityId,
        to: ::ecs::__private::EntityId,
    ) {
        match index {
            0usize | 1usize | 10usize | 11usize => {
                unsafe {
                    ::ecs::__private::relocate_contiguous(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        from,
                        to,
                    )
                }
            }
            2usize | 3usize | 12usize | 13usize => {
                unsafe {
                    ::ecs::__private::relocate_sparse_set(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        from,
                        to,
                    )
                }
            }
            4usize | 5usize | 14usize | 15usize => {
                unsafe {
                    ::ecs::__private::relocate_hash_map(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        from,
                        to,
                    )
                }
            }
            8usize | 9usize => {
                unsafe {
                    ::ecs::__private::relocate_tag(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        from,
                        to,
                    )
                }
            }
            6usize | 7usize => {
                unsafe {
                    ::ecs::__private::relocate_grouped(
                        storages as *mut __StressStorages as *mut u8,
                        __StressStorages::OFFSETS[index],
                        __StressStorages::MEMBERS[index],
                        from,
                        to,
                    )
                }
            }
            _ => {}
        }
    }
    fn swap_component(
        storages: &mut __StressStorages,
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
        systems: &__StressSlots,
        index: usize,
    ) -> &::ecs::__private::SlotCore<Self> {
        &systems.cores[index]
    }
    #[inline]
    fn slot_core_mut(
        systems: &mut __StressSlots,
        index: usize,
    ) -> &mut ::ecs::__private::SlotCore<Self> {
        &mut systems.cores[index]
    }
}
const _: () = ::core::assert!(
    ::core::mem::size_of:: < C8 > () == 0, "{}",
    "component `C8` is declared `tag`, which stores no values, but `C8` holds data; store it with `contiguous`, `sparse_set` or `hash_map`, or make it a unit struct"
);
const _: () = ::core::assert!(
    ::core::mem::size_of:: < C9 > () == 0, "{}",
    "component `C9` is declared `tag`, which stores no values, but `C9` holds data; store it with `contiguous`, `sparse_set` or `hash_map`, or make it a unit struct"
);
#[doc(hidden)]
#[allow(non_snake_case)]
pub struct __StressStorages {
    c0: ::ecs::__private::Contiguous<C0>,
    c1: ::ecs::__private::Contiguous<C1>,
    c2: ::ecs::__private::SparseSetStorage<C2>,
    c3: ::ecs::__private::SparseSetStorage<C3>,
    c4: ::ecs::__private::HashMapStorage<C4>,
    c5: ::ecs::__private::HashMapStorage<C5>,
    c8: ::ecs::__private::Tag<C8>,
    c9: ::ecs::__private::Tag<C9>,
    c10: ::ecs::__private::Contiguous<C10>,
    c11: ::ecs::__private::Contiguous<C11>,
    c12: ::ecs::__private::SparseSetStorage<C12>,
    c13: ::ecs::__private::SparseSetStorage<C13>,
    c14: ::ecs::__private::HashMapStorage<C14>,
    c15: ::ecs::__private::HashMapStorage<C15>,
    g0: ::ecs::__private::Grouped<(C6, C7)>,
}
impl __StressStorages {
    /// The byte offset of each component's field, by component
    /// index (its group's for a grouped one): where the dispatches
    /// by component index find the columns they reach untyped
    /// (unread when no component is `contiguous`, `sparse_set`,
    /// `hash_map`, `tag` or grouped).
    #[allow(dead_code)]
    const OFFSETS: [usize; 16usize] = [
        ::core::mem::offset_of!(__StressStorages, c0),
        ::core::mem::offset_of!(__StressStorages, c1),
        ::core::mem::offset_of!(__StressStorages, c2),
        ::core::mem::offset_of!(__StressStorages, c3),
        ::core::mem::offset_of!(__StressStorages, c4),
        ::core::mem::offset_of!(__StressStorages, c5),
        ::core::mem::offset_of!(__StressStorages, g0),
        ::core::mem::offset_of!(__StressStorages, g0),
        ::core::mem::offset_of!(__StressStorages, c8),
        ::core::mem::offset_of!(__StressStorages, c9),
        ::core::mem::offset_of!(__StressStorages, c10),
        ::core::mem::offset_of!(__StressStorages, c11),
        ::core::mem::offset_of!(__StressStorages, c12),
        ::core::mem::offset_of!(__StressStorages, c13),
        ::core::mem::offset_of!(__StressStorages, c14),
        ::core::mem::offset_of!(__StressStorages, c15),
    ];
    /// By component index, a grouped member's byte offset within
    /// its group's slot, size and mask bit (zeros for the others):
    /// what `relocate_grouped` and `discard_grouped` need of it
    /// (unread without groups).
    #[allow(dead_code)]
    const MEMBERS: [(usize, usize, u8); 16usize] = [
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (
            ::core::mem::offset_of!(
                (::core::mem::MaybeUninit < C6 >, ::core::mem::MaybeUninit < C7 >,), 0
            ),
            ::core::mem::size_of::<C6>(),
            1u8,
        ),
        (
            ::core::mem::offset_of!(
                (::core::mem::MaybeUninit < C6 >, ::core::mem::MaybeUninit < C7 >,), 1
            ),
            ::core::mem::size_of::<C7>(),
            2u8,
        ),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
    ];
    /// By component index, the drop that `discard_tag` and
    /// `discard_grouped` are given for a tag's or a grouped
    /// member's value (`None` when it needs none, and for the
    /// others).
    #[allow(dead_code)]
    const DROPS: [::core::option::Option<unsafe fn(*mut u8)>; 16usize] = [
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::ecs::__private::member_drop::<C6>(),
        ::ecs::__private::member_drop::<C7>(),
        ::ecs::__private::tag_drop::<C8>(),
        ::ecs::__private::tag_drop::<C9>(),
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
        ::core::option::Option::None,
    ];
}
unsafe impl ::core::marker::Send for __StressStorages {}
unsafe impl ::core::marker::Sync for __StressStorages {}
unsafe impl ::ecs::__private::Component<Stress> for C0 {
    const INDEX: usize = 0usize;
    const NAME: &'static str = "C0";
    type Column = ::ecs::__private::Contiguous<C0>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c0
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c0
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C1 {
    const INDEX: usize = 1usize;
    const NAME: &'static str = "C1";
    type Column = ::ecs::__private::Contiguous<C1>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c1
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c1
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C2 {
    const INDEX: usize = 2usize;
    const NAME: &'static str = "C2";
    type Column = ::ecs::__private::SparseSetStorage<C2>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c2
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c2
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C3 {
    const INDEX: usize = 3usize;
    const NAME: &'static str = "C3";
    type Column = ::ecs::__private::SparseSetStorage<C3>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c3
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c3
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C4 {
    const INDEX: usize = 4usize;
    const NAME: &'static str = "C4";
    type Column = ::ecs::__private::HashMapStorage<C4>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c4
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c4
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C5 {
    const INDEX: usize = 5usize;
    const NAME: &'static str = "C5";
    type Column = ::ecs::__private::HashMapStorage<C5>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c5
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c5
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C6 {
    const INDEX: usize = 6usize;
    const NAME: &'static str = "C6";
    type Column = ::ecs::__private::GroupColumn<(C6, C7), 0usize>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        storages.g0.column::<0usize>()
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        storages.g0.column_mut::<0usize>()
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C7 {
    const INDEX: usize = 7usize;
    const NAME: &'static str = "C7";
    type Column = ::ecs::__private::GroupColumn<(C6, C7), 1usize>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        storages.g0.column::<1usize>()
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        storages.g0.column_mut::<1usize>()
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C8 {
    const INDEX: usize = 8usize;
    const NAME: &'static str = "C8";
    type Column = ::ecs::__private::Tag<C8>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c8
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c8
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C9 {
    const INDEX: usize = 9usize;
    const NAME: &'static str = "C9";
    type Column = ::ecs::__private::Tag<C9>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c9
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c9
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C10 {
    const INDEX: usize = 10usize;
    const NAME: &'static str = "C10";
    type Column = ::ecs::__private::Contiguous<C10>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c10
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c10
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C11 {
    const INDEX: usize = 11usize;
    const NAME: &'static str = "C11";
    type Column = ::ecs::__private::Contiguous<C11>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c11
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c11
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C12 {
    const INDEX: usize = 12usize;
    const NAME: &'static str = "C12";
    type Column = ::ecs::__private::SparseSetStorage<C12>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c12
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c12
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C13 {
    const INDEX: usize = 13usize;
    const NAME: &'static str = "C13";
    type Column = ::ecs::__private::SparseSetStorage<C13>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c13
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c13
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C14 {
    const INDEX: usize = 14usize;
    const NAME: &'static str = "C14";
    type Column = ::ecs::__private::HashMapStorage<C14>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c14
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c14
    }
}
unsafe impl ::ecs::__private::Component<Stress> for C15 {
    const INDEX: usize = 15usize;
    const NAME: &'static str = "C15";
    type Column = ::ecs::__private::HashMapStorage<C15>;
    #[inline(always)]
    fn column(storages: &__StressStorages) -> &Self::Column {
        &storages.c15
    }
    #[inline(always)]
    fn column_mut(storages: &mut __StressStorages) -> &mut Self::Column {
        &mut storages.c15
    }
}
///The state of every system of [`Stress`], given to [`Stress::with_systems`].
pub struct StressSystems {
    pub s0: S0,
    pub s1: S1,
    pub s2: S2,
    pub s3: S3,
    pub s4: S4,
    pub s5: S5,
    pub s6: S6,
    pub s7: S7,
}
impl ::core::default::Default for StressSystems
where
    for<'__ecs> S0: ::core::default::Default,
    for<'__ecs> S1: ::core::default::Default,
    for<'__ecs> S2: ::core::default::Default,
    for<'__ecs> S3: ::core::default::Default,
    for<'__ecs> S4: ::core::default::Default,
    for<'__ecs> S5: ::core::default::Default,
    for<'__ecs> S6: ::core::default::Default,
    for<'__ecs> S7: ::core::default::Default,
{
    fn default() -> Self {
        Self {
            s0: ::core::default::Default::default(),
            s1: ::core::default::Default::default(),
            s2: ::core::default::Default::default(),
            s3: ::core::default::Default::default(),
            s4: ::core::default::Default::default(),
            s5: ::core::default::Default::default(),
            s6: ::core::default::Default::default(),
            s7: ::core::default::Default::default(),
        }
    }
}
#[doc(hidden)]
pub struct __StressSlots {
    cores: [::ecs::__private::SlotCore<Stress>; 8usize],
    s0: ::ecs::__private::SystemSlot<Stress, S0>,
    s1: ::ecs::__private::SystemSlot<Stress, S1>,
    s2: ::ecs::__private::SystemSlot<Stress, S2>,
    s3: ::ecs::__private::SystemSlot<Stress, S3>,
    s4: ::ecs::__private::SystemSlot<Stress, S4>,
    s5: ::ecs::__private::SystemSlot<Stress, S5>,
    s6: ::ecs::__private::SystemSlot<Stress, S6>,
    s7: ::ecs::__private::SystemSlot<Stress, S7>,
}
unsafe impl ::ecs::__private::SystemOf<Stress> for S0 {
    const INDEX: usize = 0usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::None;
    type Output = Vec<u32>;
    #[inline(always)]
    fn slot(systems: &__StressSlots) -> &::ecs::__private::SystemSlot<Stress, Self> {
        &systems.s0
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __StressSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Stress, Self> {
        &mut systems.s0
    }
}
unsafe impl ::ecs::__private::CanRead<Stress, C0> for S0 {}
unsafe impl ::ecs::__private::CanRead<Stress, C1> for S0 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C0> for S0 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C1> for S0 {}
impl ::ecs::__private::Relations<Stress> for S0 {
    type Chunk = ();
    type Offset = ();
    type Related = ((bool, ((), ((), ((), (bool, ((), ((), ((), ())))))))), ());
}
unsafe impl ::ecs::__private::SystemOf<Stress> for S1 {
    const INDEX: usize = 1usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::SplitEvenlyPerCore;
    type Output = ();
    #[inline(always)]
    fn slot(systems: &__StressSlots) -> &::ecs::__private::SystemSlot<Stress, Self> {
        &systems.s1
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __StressSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Stress, Self> {
        &mut systems.s1
    }
}
unsafe impl ::ecs::__private::CanRead<Stress, C2> for S1 {}
unsafe impl ::ecs::__private::CanRead<Stress, C3> for S1 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C2> for S1 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C3> for S1 {}
impl ::ecs::__private::Relations<Stress> for S1 {
    type Chunk = ();
    type Offset = ((),);
    type Related = (((), (bool, ((), ((), ((), (bool, ((), ((), ())))))))), ());
}
unsafe impl ::ecs::__private::SystemOf<Stress> for S2 {
    const INDEX: usize = 2usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::SplitEvery(
        64,
    );
    type Output = ();
    #[inline(always)]
    fn slot(systems: &__StressSlots) -> &::ecs::__private::SystemSlot<Stress, Self> {
        &systems.s2
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __StressSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Stress, Self> {
        &mut systems.s2
    }
}
unsafe impl ::ecs::__private::CanRead<Stress, C4> for S2 {}
unsafe impl ::ecs::__private::CanRead<Stress, C5> for S2 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C4> for S2 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C5> for S2 {}
impl ::ecs::__private::Relations<Stress> for S2 {
    type Chunk = ();
    type Offset = (((),),);
    type Related = (((), ((), (bool, ((), ((), ((), (bool, ((), ())))))))), ());
}
unsafe impl ::ecs::__private::SystemOf<Stress> for S3 {
    const INDEX: usize = 3usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::NoneBelow {
        threshold: 100,
        otherwise: &::ecs::__private::Parallelism::SplitEvenlyPerCore,
    };
    type Output = Vec<u32>;
    #[inline(always)]
    fn slot(systems: &__StressSlots) -> &::ecs::__private::SystemSlot<Stress, Self> {
        &systems.s3
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __StressSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Stress, Self> {
        &mut systems.s3
    }
}
unsafe impl ::ecs::__private::CanRead<Stress, C6> for S3 {}
unsafe impl ::ecs::__private::CanRead<Stress, C7> for S3 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C6> for S3 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C7> for S3 {}
impl ::ecs::__private::Relations<Stress> for S3 {
    type Chunk = ();
    type Offset = ((((),),),);
    type Related = (((), ((), ((), (bool, ((), ((), ((), (bool, ())))))))), ());
}
unsafe impl ::ecs::__private::SystemOf<Stress> for S4 {
    const INDEX: usize = 4usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::None;
    type Output = ();
    #[inline(always)]
    fn slot(systems: &__StressSlots) -> &::ecs::__private::SystemSlot<Stress, Self> {
        &systems.s4
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __StressSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Stress, Self> {
        &mut systems.s4
    }
}
unsafe impl ::ecs::__private::CanRead<Stress, C0> for S4 {}
unsafe impl ::ecs::__private::CanRead<Stress, C8> for S4 {}
unsafe impl ::ecs::__private::CanRead<Stress, C9> for S4 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C8> for S4 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C9> for S4 {}
unsafe impl ::ecs::__private::CanReadShared<Stress, C0> for S4 {}
unsafe impl ::ecs::__private::DependsOn<Stress, S0> for S4 {}
impl ::ecs::__private::Relations<Stress> for S4 {
    type Chunk = ();
    type Offset = (((((),),),),);
    type Related = ((bool, ((), ((), ((), (bool, ((), ((), ((), ())))))))), ());
}
unsafe impl ::ecs::__private::SystemOf<Stress> for S5 {
    const INDEX: usize = 5usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::SplitEvenlyPerCore;
    type Output = ();
    #[inline(always)]
    fn slot(systems: &__StressSlots) -> &::ecs::__private::SystemSlot<Stress, Self> {
        &systems.s5
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __StressSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Stress, Self> {
        &mut systems.s5
    }
}
unsafe impl ::ecs::__private::CanRead<Stress, C2> for S5 {}
unsafe impl ::ecs::__private::CanRead<Stress, C10> for S5 {}
unsafe impl ::ecs::__private::CanRead<Stress, C11> for S5 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C10> for S5 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C11> for S5 {}
unsafe impl ::ecs::__private::CanReadShared<Stress, C2> for S5 {}
unsafe impl ::ecs::__private::DependsOn<Stress, S1> for S5 {}
impl ::ecs::__private::Relations<Stress> for S5 {
    type Chunk = ();
    type Offset = ((((((),),),),),);
    type Related = (((), (bool, ((), ((), ((), (bool, ((), ((), ())))))))), ());
}
unsafe impl ::ecs::__private::SystemOf<Stress> for S6 {
    const INDEX: usize = 6usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::SplitEvery(
        64,
    );
    type Output = Vec<u32>;
    #[inline(always)]
    fn slot(systems: &__StressSlots) -> &::ecs::__private::SystemSlot<Stress, Self> {
        &systems.s6
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __StressSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Stress, Self> {
        &mut systems.s6
    }
}
unsafe impl ::ecs::__private::CanRead<Stress, C4> for S6 {}
unsafe impl ::ecs::__private::CanRead<Stress, C12> for S6 {}
unsafe impl ::ecs::__private::CanRead<Stress, C13> for S6 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C12> for S6 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C13> for S6 {}
unsafe impl ::ecs::__private::CanReadShared<Stress, C4> for S6 {}
unsafe impl ::ecs::__private::DependsOn<Stress, S2> for S6 {}
impl ::ecs::__private::Relations<Stress> for S6 {
    type Chunk = ();
    type Offset = (((((((),),),),),),);
    type Related = (((), ((), (bool, ((), ((), ((), (bool, ((), ())))))))), ());
}
unsafe impl ::ecs::__private::SystemOf<Stress> for S7 {
    const INDEX: usize = 7usize;
    const PARALLELISM: ::ecs::__private::Parallelism = ::ecs::__private::Parallelism::NoneBelow {
        threshold: 100,
        otherwise: &::ecs::__private::Parallelism::SplitEvenlyPerCore,
    };
    type Output = ();
    #[inline(always)]
    fn slot(systems: &__StressSlots) -> &::ecs::__private::SystemSlot<Stress, Self> {
        &systems.s7
    }
    #[inline(always)]
    fn slot_mut(
        systems: &mut __StressSlots,
    ) -> &mut ::ecs::__private::SystemSlot<Stress, Self> {
        &mut systems.s7
    }
}
unsafe impl ::ecs::__private::CanRead<Stress, C6> for S7 {}
unsafe impl ::ecs::__private::CanRead<Stress, C14> for S7 {}
unsafe impl ::ecs::__private::CanRead<Stress, C15> for S7 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C14> for S7 {}
unsafe impl ::ecs::__private::CanWrite<Stress, C15> for S7 {}
unsafe impl ::ecs::__private::CanReadShared<Stress, C6> for S7 {}
unsafe impl ::ecs::__private::DependsOn<Stress, S3> for S7 {}
impl ::ecs::__private::Relations<Stress> for S7 {
    type Chunk = ();
    type Offset = ((((((((),),),),),),),);
    type Related = (((), ((), ((), (bool, ((), ((), ((), (bool, ())))))))), ());
}
unsafe impl<
    __A: ?::core::marker::Sized + ::core::marker::Sync,
> ::ecs::__private::Dispatch<__A> for Stress
where
    S0: ::ecs::__private::System<Stress, __A>,
    S1: ::ecs::__private::System<Stress, __A>,
    S2: ::ecs::__private::System<Stress, __A>,
    S3: ::ecs::__private::System<Stress, __A>,
    S4: ::ecs::__private::System<Stress, __A>,
    S5: ::ecs::__private::System<Stress, __A>,
    S6: ::ecs::__private::System<Stress, __A>,
    S7: ::ecs::__private::System<Stress, __A>,
{
    unsafe fn dispatch(cx: &::ecs::__private::Context<Self>, index: usize, args: &__A) {
        match index {
            0usize => unsafe { cx.run_system_with_data::<S0, __A>(args) }
            1usize => unsafe { cx.run_system_with_data::<S1, __A>(args) }
            2usize => unsafe { cx.run_system_with_data::<S2, __A>(args) }
            3usize => unsafe { cx.run_system_with_data::<S3, __A>(args) }
            4usize => unsafe { cx.run_system_with_data::<S4, __A>(args) }
            5usize => unsafe { cx.run_system_with_data::<S5, __A>(args) }
            6usize => unsafe { cx.run_system_with_data::<S6, __A>(args) }
            7usize => unsafe { cx.run_system_with_data::<S7, __A>(args) }
            _ => {}
        }
    }
}
///The initial value of every resource of [`Stress`], given to [`Stress::with_resources`] (the other constructors use `Default`).
pub struct StressResources {}
impl ::core::default::Default for StressResources {
    fn default() -> Self {
        Self {}
    }
}
#[doc(hidden)]
pub struct __StressResourceCells {}
