//! The data proxy: what a system's subtask may do.

use crate::access::{CanRead, CanReadResource, CanReadShared, CanWrite, CanWriteResource, DependsOn};
use crate::bitset::ComponentSet;
use crate::block_walk;
use crate::context::Context;
use crate::decl::{Component, ContextDecl, SystemOf};
use crate::handle::{Entity, EntityId};
use crate::pending::Pending;
use crate::proxy::Defer;
use crate::query::{is_valid, Query, QueryCode, SharedQuery};
use crate::resource::Resource;
use crate::sparse_set::SparseSet;
use crate::storage::Column;
use crate::subtask_proxy::SubtaskProxy;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut, Range};

/// A walk's call of `f` with the view and an item of `Q`: `items`, `f` an
/// [`Items`], calls its closure with the item; `entities` calls `f`, a
/// closure, with both; `any` calls [`Visit::visit`], for a walk whose `f`
/// may be either (`Data::walk`, an optimised build's walks).
///
/// The closure called directly where the walking method knows its kind (a
/// debug build's walks, `walk!`): `visit`, always inlined, was one more
/// item per walk for rustc to collect, compile to IR and inline (64 at
/// 64 components / 32 systems, `-Zprint-mono-items`), for the same call
/// after inlining (COMPILE_COST.md, fifteenth round).
macro_rules! visit {
    (items, $Q:ty, $f:expr, $view:ident, $item:expr) => {
        ($f.0)($item)
    };
    (entities, $Q:ty, $f:expr, $view:ident, $item:expr) => {
        $f(&mut *$view, $item)
    };
    (any, $Q:ty, $f:expr, $view:ident, $item:expr) => {
        <_ as Visit<'_, Cx, S, $Q>>::visit(&mut $f, $view, $item)
    };
}

/// `$k += 1` for a walk's counter `k`, incremented only after `k < len`
/// was tested (`len` a `usize`): `k + 1 <= len` cannot overflow. A debug build adds
/// without the overflow check (`wrapping_add`, inlined even there), which
/// was a check, a branch and a panicking block in every walk; an
/// optimised build's code is unchanged.
#[cfg(debug_assertions)]
macro_rules! incr {
    ($k:ident) => {
        $k = $k.wrapping_add(1)
    };
}

/// `$k += 1`: see the debug build's `incr!`.
#[cfg(not(debug_assertions))]
macro_rules! incr {
    ($k:ident) => {
        $k += 1
    };
}

/// Calls `f` (a `Visit`, bound to a mutable local) with the view and the
/// item of `Q` for each entity of the subtask of `data` (a `Data`), in
/// blocks when `BLOCKS` and the ids are one run.
///
/// `BLOCKS` is a constant (`true`, `false`, or `Q::BLOCKS` tested on its
/// own) so that a walk one entity at a time (most queries) compiles no
/// block code at all: the block loop and the staging it needs are most of
/// a walk's code.
///
/// Callers first evaluate [`ValidQuery::OK`] for `Q` (once, not in each
/// walk: both walks' constants would be evaluated, giving two errors for
/// one mistake).
///
/// The body of `Data::walk`; in a debug build also expanded in each
/// walking method (`walk!`).
macro_rules! walk_body {
    ($data:ident, $Q:ty, $BLOCKS:expr, $f:ident, $how:ident) => {{
        // Every caller evaluated `ValidQuery::OK` (`is_valid(Q::ACCESS)`) first.
        let view = &mut $data.view;
        let fetch = <$Q as QueryCode<Cx>>::init(view.part.cx.storages());
        // Why fetching is sound, in both loops: every id is one of this subtask's
        // entities, which hold every component of the signature (guaranteed
        // by `DataProxy::new`'s caller), and `Q`'s accesses are within the
        // system's rights (trait bounds). `Q` itself is conflict-free
        // (`is_valid`); the item lives for one call of `f`, whose view cannot
        // hand out mutable borrows nor borrow components this system writes;
        // other subtasks touch other entities; no concurrent system
        // conflicts; and the storages stay shared-borrowed for `'a`.
        // A query that reads a linear column walks runs of consecutive ids,
        // from each column's value of the run's first id. `Q::LINEAR` is a
        // constant tested on its own, so that for other queries none of this
        // code is generated (not even in a debug build, where a branch on a
        // computed condition keeps both arms).
        //
        // A debug build (outside Miri) walks every query one id at a time,
        // as the loop after this test: the same items, each fetched by its
        // id, in place (blocks only move values to and from the stack; what
        // the closure sees is the same). The walks over runs and in blocks
        // were most of a debug build's code per walk (places, their
        // offsets, the count of runs): rustc's instructions for the 64/32
        // declaration's debug build 3.829 G -> 3.525 G (COMPILE_COST.md,
        // nineteenth round). Under Miri, which checks the run and block
        // code's raw pointers, a debug build keeps walking runs
        // (`next_run`); the release CI lane tests the optimised walk.
        #[cfg_attr(all(debug_assertions, not(miri)), allow(unused_labels))]
        'walk: {
            #[cfg(any(not(debug_assertions), miri))]
            if <$Q as QueryCode<Cx>>::LINEAR {
                // A debug build under Miri walks the runs `next_run` finds,
                // in one loop with one expansion of `walk_run!` (see
                // `next_run`).
                #[cfg(debug_assertions)]
                {
                    let mut done = 0;
                    loop {
                        let (first, len) = view.part.next_run(Self::RUNS, &mut done);
                        if len == 0 {
                            break;
                        }
                        // SAFETY: the ids `first..first + len` are the next
                        // `len` of the subtask's ids (`next_run`); see above.
                        walk_run!($Q, $BLOCKS, view, fetch, first, len, $f, $how);
                    }
                }
                // An optimised build, one loop per way the ids lie, each
                // specialised (`walk_run!` expanded in each).
                #[cfg(not(debug_assertions))]
                {
                    let ids = view.part.ids();
                    // The common case of entities created together: ids are one
                    // ascending run, walked as one (one address per column for
                    // the whole walk, not one per block or entity), and the loop
                    // can be vectorised. Only for a subtask with entities:
                    // `start` must be one of them. From the set rather than
                    // `view.part.run`: `run_start`'s checks, inlined here, tell the
                    // compiler that `start + k` does not wrap, so that it walks
                    // the columns with pointers; without them it recomputes each
                    // address from the id, which made simple_iter 1.25x slower.
                    if let Some(start) = run_from(view.part.set, view.part.range.start) {
                        if !ids.is_empty() {
                            // SAFETY: the ids `start..start + ids.len()` are `ids`
                            // (run invariant), all the subtask's; see above.
                            unsafe { walk_run_fn!($Q, $BLOCKS, view, fetch, start, ids.len(), $f) };
                        }
                        break 'walk;
                    }
                    if Self::RUNS && view.part.set.is_ascending() {
                        // Several runs, as `layout: archetypes` leaves a system
                        // over several sets: each run is walked as one.
                        let mut s = 0;
                        while s < ids.len() {
                            let rest = &ids[s..];
                            let len = run_len(rest);
                            // SAFETY: the ids `rest[0]..rest[0] + len` are
                            // `rest[..len]` (`run_len`), all the subtask's; see
                            // above.
                            unsafe { walk_run_fn!($Q, $BLOCKS, view, fetch, rest[0].0, len, $f) };
                            s += len;
                        }
                        break 'walk;
                    }
                    // Scattered ids, where the search for each run's end would
                    // be paid per id: one id at a time, each a run of one (`len`
                    // a constant 1: the same code as a fetch).
                    for k in 0..ids.len() {
                        // SAFETY: `k < ids.len()`, and `ids[k]` is one of the
                        // subtask's ids; see above.
                        unsafe { walk_run_fn!($Q, $BLOCKS, view, fetch, ids.get_unchecked(k).0, 1, $f) };
                    }
                }
                break 'walk;
            }
            // Any other query, one id at a time (`f` called from one site, so
            // that the compiler inlines it).
            let ids = view.part.ids();
            // A `while` rather than `for k in 0..ids.len()`: in a debug build
            // the range's `into_iter` and `next` were two calls in every walk.
            let mut k = 0;
            while k < ids.len() {
                visit!(
                    $how,
                    $Q,
                    $f,
                    view,
                    // SAFETY: `k < ids.len()`, and `ids[k]` is one of the
                    // subtask's ids; see above.
                    unsafe { <$Q as QueryCode<Cx>>::fetch(fetch, *ids.get_unchecked(k)) }
                );
                incr!(k);
            }
        }
    }};
}

/// A walk in a walking method (`for_each`, `for_entities` and their
/// variants). In a debug build, `walk_body!` expanded there rather than
/// the always-inlined `Data::walk`: as a method it was one more item per
/// walk for rustc to collect, compile to IR and inline (64 of the 4 475 at
/// 64/32, `-Zprint-mono-items`; rustc's debug instructions 5.146 G ->
/// 5.071 G), for the same code after inlining.
///
/// `$how` says how the walk calls `f` (`visit!`): `items` for an
/// [`Items`], `entities` for a closure of the view and the item.
#[cfg(debug_assertions)]
macro_rules! walk {
    ($data:ident, $Q:ty, $BLOCKS:expr, $f:ident, $how:ident) => {
        walk_body!($data, $Q, $BLOCKS, $f, $how)
    };
}

/// A walk in a walking method, in an optimised build: a call of
/// `Data::walk`, with `BLOCKS` a constant generic argument (only the call
/// taken is compiled). Expanded there, the walk made rustc's instructions
/// for the 64/32 declaration's release build 10.181 G -> 10.429 G (not
/// analysed further).
#[cfg(not(debug_assertions))]
macro_rules! walk {
    ($data:ident, $Q:ty, $BLOCKS:expr, $f:ident, $how:ident) => {
        if $BLOCKS {
            $data.walk::<$Q, true>($f)
        } else {
            $data.walk::<$Q, false>($f)
        }
    };
}

/// Calls `f` with the item of `Q` for each id of the run `first..first +
/// len`, in blocks when `BLOCKS`, from each linear column's value of
/// `first`: the body of every walk over runs (`walk!`'s one run, its
/// runs under `layout: archetypes`, and its ids one at a time).
///
/// Expanded (as it was always inlined) in an optimised build into each of the walk's three
/// loops, so that each is specialised (a run of one folds to a fetch, the
/// one run keeps `run_start`'s checks); in a debug build into the walk's
/// one loop (`next_run`). Before the debug build's loop was one, it called
/// this function from its three loops, compiled once per walk (inlined
/// there, each walk compiled its column accesses and the call of `f` three
/// times: the always-inliner runs even at `opt-level = 0`). For the same
/// reason, what it calls per run or block that is generic over the column
/// type only (`Place::new` and `offset`, `Staged::new` and `drop`, the
/// columns' `fetch`) is always inlined in an optimised build only: a debug
/// build compiles it once per column type, not into every walk of every
/// system. (`Place::ptr` and `Staged::get`, called per entity, stay always
/// inlined: as calls they made a debug build's simple_iter system 6.7%
/// slower (callgrind), for 46 instructions fewer.) For
/// `scripts/compile-cost`'s 64/32 declaration, what a debug build compiles
/// after the O0 pipeline went 117 076 → 113 946 instructions with the
/// call in each of three loops (eleventh round), and 101 919 → 98 525 with
/// the one loop inlining it (thirteenth: COMPILE_COST.md).
///
/// A macro, expanded in `walk!`, rather than an always-inlined
/// function: as a function it was one more item per linear walk for rustc
/// to collect, compile to IR and inline (32 of the 4 507 at 64/32,
/// `-Zprint-mono-items`), for the same code after inlining.
///
/// # Safety
/// Expanded only where the unsafe blocks inside may rely on
/// `walk!`'s guarantees for each id of the run: each is one of the
/// subtask's entities and holds every component `Q` borrows, `fetch` is
/// `Q::init` of the context's storages, and `f` gets each item for one
/// call.
// Unused by a debug build's walks outside Miri (`walk_body!`).
#[cfg_attr(all(debug_assertions, not(miri)), allow(unused_macros))]
macro_rules! walk_run {
    ($Q:ty, $BLOCKS:expr, $view:ident, $fetch:expr, $first:expr, $len:expr, $f:expr, $how:ident) => {{
        // `$first` (a `u32`) and `$len` (a `usize`) are the expansion
        // site's variables, used as they are: bound again here, they were
        // two more variables per walk for a debug build to describe and
        // spill (as `done` and `item` below were; COMPILE_COST.md, sixteenth
        // round).
        // SAFETY: `$first` is one of the subtask's entities (the expansion
        // site's guarantee).
        let place = unsafe { <$Q as QueryCode<Cx>>::run($fetch, EntityId($first)) };
        // Blocks first, when asked for, so that the compiler may vectorise
        // `f` across a block (see `block`): the first `k` entities go in
        // blocks, the rest one by one below, from `k` on. (`BLOCKS` is a
        // constant: a walk one entity at a time generates no block code.)
        let mut k = if $BLOCKS {
            // SAFETY: the expansion site's guarantees, for the ids
            // `$first..$first + $len`.
            unsafe { walk_blocks::<Cx, S, $Q>($view, &place, $len, &mut $f) }
        } else {
            0
        };
        // A range, not `ids.iter().enumerate().skip(done)`: the adapters'
        // code was inlined into every walk before LLVM saw it. One loop per
        // way of reaching the values, each with `f` inside (`call` is always
        // inlined, and `f` is called from it alone): one loop testing the
        // way per entity was not unswitched when `f` was large, and kept the
        // test's flag, the columns' places and its counter on the stack
        // (particles' spatial partition: 6 loads from the stack per entity).
        // A `while`, not `for k in done..len`: in a debug build the range's
        // `into_iter` and `next` were two calls in every walk (the same
        // optimised code: callgrind, COMPILE_COST.md's thirteenth round).
        while k < $len {
            visit!(
                $how,
                $Q,
                $f,
                $view,
                // SAFETY: `$first + k` is in the run, and the ids before it
                // are the subtask's too (the expansion site's guarantee).
                unsafe { <$Q as QueryCode<Cx>>::run_item(&place, k) }
            );
            incr!(k);
        }
    }};
}

/// Calls [`walk_run`] (inside an `unsafe` block: its contract) with
/// `BLOCKS` a constant generic argument, from `$BLOCKS`, which may be
/// `Q::BLOCKS`: tested on its own, so that only the call taken is compiled.
#[cfg(not(debug_assertions))]
macro_rules! walk_run_fn {
    ($Q:ty, $BLOCKS:expr, $view:ident, $fetch:expr, $first:expr, $len:expr, $f:ident) => {
        if $BLOCKS {
            walk_run::<Cx, S, $Q, true>($view, $fetch, $first, $len, &mut $f)
        } else {
            walk_run::<Cx, S, $Q, false>($view, $fetch, $first, $len, &mut $f)
        }
    };
}

/// [`walk_run!`] as a function, called from an optimised build's three
/// loops (`walk!`) and always inlined there. Expanded in each instead, its
/// body was three copies in the MIR of every walk: rustc's instructions
/// for the 64/32 declaration's release build went 10.164 G -> 10.181 G
/// with the macro there (a debug build, with one loop, expands the macro:
/// 5.160 G -> 5.146 G).
///
/// # Safety
/// As [`walk_run!`]'s, for the ids `first..first + len`.
#[cfg(not(debug_assertions))]
#[inline(always)]
unsafe fn walk_run<'a, Cx: ContextDecl, S: SystemOf<Cx>, Q: Query<Cx, S>, const BLOCKS: bool>(
    view: &mut View<'a, Cx, S>,
    fetch: Q::Fetch,
    first: u32,
    len: usize,
    f: &mut impl Visit<'a, Cx, S, Q>,
) {
    walk_run!(Q, BLOCKS, view, fetch, first, len, *f, any);
}

/// What a subtask of system `S` may do besides iterating its own entities:
/// read-only access to any entity, its output, kills, deferred operations, and
/// its ancestors' state and outputs.
///
/// A `View` is handed to the closure of [`Data::for_entities`] beside each
/// entity's item, and is what a [`Data`] dereferences to. [`Data`]'s
/// documentation lays out which accessor reaches what, on every proxy.
///
/// ```
/// use ecs::{Data, System, View};
///
/// pub struct Position(pub f32);
/// #[derive(Default)]
/// pub struct Rank;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems { rank: Rank { read: [Position], output: u32 } }
///     }
/// }
///
/// /// How many of the system's entities lie right of `x`.
/// fn right_of(view: &View<'_, World, Rank>, x: f32) -> u32 {
///     let mut n = 0;
///     view.for_all_entities::<&Position>(|other| {
///         if other.0 > x {
///             n += 1;
///         }
///     });
///     n
/// }
///
/// impl System<World> for Rank {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         data.for_entities::<&Position>(|view, pos| {
///             *view.output() += right_of(view, pos.0);
///         });
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     for x in [0.0, 1.0, 2.0] {
///         p.spawn((Position(x),)).unwrap();
///     }
///     p.run_all(&());
/// });
/// // 0.0 has two entities to its right, 1.0 one.
/// assert_eq!(world.outputs::<Rank>().iter().sum::<u32>(), 3);
/// ```
pub struct View<'a, Cx: ContextDecl, S: SystemOf<Cx>> {
    pub(crate) part: Part<'a, Cx>,
    pub(crate) output: &'a mut S::Output,
}

/// What a [`View`] holds but its output: nothing that depends on the
/// system, so that it is built by [`Part::new`], one function per context
/// (in a debug build, building the view's fields in every system's run and
/// every split system's subtask cost about 50 instructions each).
pub(crate) struct Part<'a, Cx: ContextDecl> {
    pub(crate) cx: &'a Context<Cx>,
    set: &'a SparseSet,
    /// The ids `set` holds when they are one ascending run (as `run_start`
    /// reports it), so that a membership test is a comparison.
    run: Option<Range<u32>>,
    all: &'a [EntityId],
    range: Range<usize>,
    subtask: usize,
    subtasks: usize,
    pending: &'a mut Pending<Cx>,
}

impl<'a, Cx: ContextDecl> Part<'a, Cx> {
    /// The part of subtask `subtask` of `subtasks` over the ids of `set`,
    /// found inline (`span`) unless `MAY_SPLIT` (`SubtaskProxy::new`).
    /// Always inlined in an optimised build, so that the constant subtask
    /// 0 of 1 folds into the walk; a debug build calls it.
    ///
    /// # Safety
    /// As [`SubtaskProxy::new`]'s, for the system whose proxy holds the
    /// part: its walks and fetches rely on them.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) unsafe fn new<const MAY_SPLIT: bool>(
        cx: &'a Context<Cx>,
        set: &'a SparseSet,
        subtask: usize,
        subtasks: usize,
        pending: &'a mut Pending<Cx>,
    ) -> Self {
        let (all, range, run) = if MAY_SPLIT {
            part(set, subtask, subtasks)
        } else {
            span(set, subtask, subtasks)
        };
        Part {
            cx,
            set,
            run,
            all,
            range,
            subtask,
            subtasks,
            pending,
        }
    }
}

/// The data proxy of one subtask of system `S`: its entities, and through
/// [`View`] (which it dereferences to) everything else the system may touch.
///
/// # Which accessor when
///
/// | where | to reach | call | rules |
/// | --- | --- | --- | --- |
/// | step closure, deferred function ([`Step`](crate::Step), [`Defer`]) | one component of an entity, by handle | `p.get::<C>(e)`, `get_mut`, `component` | any component; `None` (or a panic, for `component`) when dead or lacking `C` |
/// | step closure, deferred function | several components of an entity, by handle | `p.query_one::<(&A, &B)>(e)`, `query_one_mut` | any components; `None` when dead or lacking one |
/// | step closure, deferred function | every live entity holding some components | `p.for_each::<(&mut A, &B)>(..)` (fastest), `p.query::<Q>()` (read-only, yields handles), `query_mut` | any components; entities killed this step are skipped |
/// | system ([`Data`]) | its own subtask's entities, iterated | `data.for_each::<Q>(..)`, `for_entities` | the system's declared components; `&mut` for its `write` list |
/// | system | one of its own subtask's entities, by id | `data.read::<C>(id)`, `data.write::<C>(id)`, `query_many::<Q, N>(ids)` | declared components; `None` for other entities |
/// | system ([`View`], also through `Data`) | any entity, by id | `view.get::<C>(id)`, `has` | components the system reads and does not write |
/// | system | an entity the system processes, by id (a neighbour) | `view.lookup::<Q>(id)`, `view.prepare_lookup::<Q>()` then `.get(id)` (in loops), `data.for_entities_with_lookup::<Q, L>(..)` (a walk with a lookup), `for_all_entities`, `for_other_entities` | read-only queries of components the system does not write; `None` for entities the system does not process |
///
/// Handles ([`Entity`]) stay valid across steps; ids ([`EntityId`]) only
/// until the next refresh, and systems see ids only.
///
/// # Example
///
/// ```
/// use ecs::{Data, System};
///
/// pub struct Position(pub f32);
/// pub struct Velocity(pub f32);
/// #[derive(Default)]
/// pub struct Move;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position, Velocity: contiguous; }
///         systems { movement: Move { read: [Velocity], write: [Position] } }
///     }
/// }
///
/// impl System<World, f32> for Move {
///     fn process(&self, data: &mut Data<'_, World, Self>, dt: &f32) {
///         data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0 * dt);
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Position(0.0), Velocity(2.0))).unwrap());
/// world.step(|p| p.run_all(&0.5));
/// world.step(|p| assert_eq!(p.get::<Position>(e).map(|p| p.0), Some(1.0)));
/// ```
pub struct Data<'a, Cx: ContextDecl, S: SystemOf<Cx>> {
    // Built in place by a system's run (`run.rs`), from a `Part::new`.
    pub(crate) view: View<'a, Cx, S>,
}

/// Builds a [`Data`] proxy per subtask of a system's run.
pub(crate) enum DataProxy {}

impl<Cx: ContextDecl, S: SystemOf<Cx>> SubtaskProxy<Cx, S> for DataProxy {
    type Proxy<'a> = Data<'a, Cx, S>;

    /// The proxy, built here from its fields: the one function per system
    /// that builds it (in a debug build, where nothing is inlined before
    /// LLVM, each layer of construction was one more).
    #[inline(always)]
    unsafe fn new<'a, const MAY_SPLIT: bool>(
        cx: &'a Context<Cx>,
        set: &'a SparseSet,
        subtask: usize,
        subtasks: usize,
        output: &'a mut S::Output,
        pending: &'a mut Pending<Cx>,
    ) -> Data<'a, Cx, S> {
        Data {
            view: View {
                // SAFETY: forwarded from the caller (the same contract).
                part: unsafe { Part::new::<MAY_SPLIT>(cx, set, subtask, subtasks, pending) },
                output,
            },
        }
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> Data<'a, Cx, S> {
    /// Whether a walk over ids that are not one run walks them run by run
    /// (`run_len`): under `layout: archetypes`, where a system's ids are
    /// a few runs; elsewhere they may be scattered, and the search for each
    /// run's end would be paid per id.
    // Unused by a debug build's walks outside Miri (`walk_body!`).
    #[cfg_attr(all(debug_assertions, not(miri)), allow(dead_code))]
    const RUNS: bool = matches!(Cx::SETTINGS.layout, crate::layout::Layout::Archetypes);

    /// Calls `f` with the view and the item of query `Q` for each entity of
    /// this subtask.
    ///
    /// `Q` is `&C`, `&mut C`, [`EntityId`] or a tuple of them; mutable items
    /// are handed out only here, for this subtask's own entities.
    ///
    /// When the entities are one run of ids (entities created together), a
    /// query that writes exactly one `contiguous` component of at most 64
    /// bytes, reads another and asks for no [`EntityId`] is walked in
    /// blocks, as [`for_entities_in_blocks`](Self::for_entities_in_blocks)
    /// walks any query; any other query one entity at a time, as
    /// [`for_entities_in_place`](Self::for_entities_in_place) does (over a
    /// run, from each column's first value: a query that only writes one
    /// component walks its column like a slice). That suits most closures;
    /// call either one to choose.
    ///
    /// # Panics
    /// Fails to compile (constant evaluation) when `Q` borrows one component
    /// twice with one borrow mutable.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Nudge;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems { nudge: Nudge { write: [Position], output: Vec<EntityId> } }
    ///     }
    /// }
    ///
    /// impl System<World> for Nudge {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         // The view beside each item reaches the output (and kills, deferred
    ///         // functions, other entities' components) while iterating.
    ///         data.for_entities::<(EntityId, &mut Position)>(|view, (id, p)| {
    ///             p.0 += 1.0;
    ///             view.output().push(id);
    ///         });
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(1.0),)).unwrap());
    /// world.step(|p| {
    ///     p.run_all(&());
    ///     assert_eq!(p.outputs::<Nudge>()[0], [p.id_of(e).unwrap()]);
    ///     assert_eq!(p.get::<Position>(e).unwrap().0, 2.0);
    /// });
    /// ```
    #[inline]
    // `f` is walked in place in a debug build (`walk!`), moved on in an
    // optimised one.
    #[cfg_attr(not(debug_assertions), allow(unused_mut))]
    pub fn for_entities<Q: Query<Cx, S>>(&mut self, mut f: impl FnMut(&mut View<'a, Cx, S>, Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        // A constant condition: only the walk taken is compiled.
        walk!(self, Q, Q::BLOCKS, f, entities);
    }

    /// [`for_entities`](Self::for_entities), walking a run of ids in blocks
    /// of 8 whatever `Q` is: the values of the `contiguous` components it
    /// writes (those of at most 64 bytes) move into buffers on the stack
    /// for the block and back after it, so the compiler knows that a write
    /// cannot change what the query reads, and can turn straight-line
    /// arithmetic into vector instructions across the block.
    ///
    /// Worth it for closures that compute on every entity, such as an
    /// integrator writing position and velocity (4.2x faster on 10 000
    /// entities: `cargo bench --bench blocks`); a loss for closures that
    /// mostly branch and write little, since every moved value is moved
    /// back (1.6x slower on a bounds check that may write position and
    /// velocity). Entities that are not one run are walked one at a time.
    /// So is every walk of a debug build (outside Miri), each item fetched
    /// by its id: the same items, for less code to compile.
    ///
    /// # Panics
    /// As [`for_entities`](Self::for_entities). A panic of `f` moves every
    /// value of the block back before it unwinds further.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Integrate;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position, Velocity: contiguous; }
    ///         systems { integrate: Integrate { read: [Velocity], write: [Position], output: u32 } }
    ///     }
    /// }
    ///
    /// impl System<World, f32> for Integrate {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, dt: &f32) {
    ///         // Straight-line arithmetic on every entity: blocks pay off.
    ///         data.for_each_in_blocks::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0 * dt);
    ///         // With the view, to count as well.
    ///         data.for_entities_in_blocks::<&Position>(|view, p| *view.output() += (p.0 > 1.0) as u32);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let slow = world.step(|p| {
    ///     let slow = p.spawn((Position(0.0), Velocity(1.0))).unwrap();
    ///     for _ in 0..20 {
    ///         p.spawn((Position(0.0), Velocity(4.0))).unwrap();
    ///     }
    ///     slow
    /// });
    /// world.step(|p| {
    ///     p.run_all(&0.5f32);
    ///     assert_eq!(p.get::<Position>(slow).unwrap().0, 0.5);
    ///     assert_eq!(p.outputs::<Integrate>(), [20]);
    /// });
    /// ```
    #[inline]
    // `f` is walked in place in a debug build (`walk!`), moved on in an
    // optimised one.
    #[cfg_attr(not(debug_assertions), allow(unused_mut))]
    pub fn for_entities_in_blocks<Q: Query<Cx, S>>(&mut self, mut f: impl FnMut(&mut View<'a, Cx, S>, Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        walk!(self, Q, true, f, entities);
    }

    /// [`for_entities`](Self::for_entities), one entity at a time whatever
    /// `Q` is: every item borrows the values in their columns. For closures
    /// that mostly branch, which blocks (see
    /// [`for_entities_in_blocks`](Self::for_entities_in_blocks)) would slow
    /// down.
    ///
    /// # Panics
    /// As [`for_entities`](Self::for_entities).
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Bounce;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position, Velocity: contiguous; }
    ///         systems { bounce: Bounce { read: [Position], write: [Velocity], output: u32 } }
    ///     }
    /// }
    ///
    /// impl System<World> for Bounce {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         // Mostly branches, rarely writes: one entity at a time.
    ///         data.for_each_in_place::<(&Position, &mut Velocity)>(|(p, v)| {
    ///             if p.0 > 10.0 {
    ///                 v.0 = -v.0.abs();
    ///             }
    ///         });
    ///         data.for_entities_in_place::<&Velocity>(|view, v| *view.output() += (v.0 < 0.0) as u32);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let (inside, outside) = world.step(|p| {
    ///     (p.spawn((Position(1.0), Velocity(2.0))).unwrap(), p.spawn((Position(11.0), Velocity(2.0))).unwrap())
    /// });
    /// world.step(|p| {
    ///     p.run_all(&());
    ///     assert_eq!(p.get::<Velocity>(inside).unwrap().0, 2.0);
    ///     assert_eq!(p.get::<Velocity>(outside).unwrap().0, -2.0);
    ///     assert_eq!(p.outputs::<Bounce>(), [1]);
    /// });
    /// ```
    #[inline]
    // `f` is walked in place in a debug build (`walk!`), moved on in an
    // optimised one.
    #[cfg_attr(not(debug_assertions), allow(unused_mut))]
    pub fn for_entities_in_place<Q: Query<Cx, S>>(&mut self, mut f: impl FnMut(&mut View<'a, Cx, S>, Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        walk!(self, Q, false, f, entities);
    }

    /// [`walk_body!`] as a method: every walk in an optimised build
    /// (`walk!`), and the walks outside this file (`for_each_instance`).
    #[inline(always)]
    pub(super) fn walk<Q: Query<Cx, S>, const BLOCKS: bool>(&mut self, mut f: impl Visit<'a, Cx, S, Q>) {
        walk_body!(self, Q, BLOCKS, f, any);
    }

    /// This subtask's ids, whether they are one ascending run of
    /// consecutive ids, and the storages (for walks outside this file).
    #[inline(always)]
    pub(super) fn subtask_ids(&self) -> (&'a [EntityId], bool, &'a Cx::Storages) {
        let view = &self.view;
        let ids = view.part.ids();
        (
            ids,
            run_from(view.part.set, view.part.range.start).is_some(),
            view.part.cx.storages(),
        )
    }

    /// Component `C` of one of this subtask's own entities (`None` for any
    /// other entity). Unlike [`View::get`], this reads components the system
    /// writes too, since no other subtask touches its own entities.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Apply;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position, Velocity: contiguous; }
    ///         systems { apply: Apply { read: [Velocity], write: [Position], output: bool } }
    ///     }
    /// }
    ///
    /// // The argument: an entity the system does not process.
    /// impl System<World, EntityId> for Apply {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, stranger: &EntityId) {
    ///         for &id in data.entities() {
    ///             let v = data.read::<Velocity>(id).unwrap().0;
    ///             data.write::<Position>(id).unwrap().0 += v;
    ///         }
    ///         // Only this subtask's entities are reachable so.
    ///         let none = data.read::<Position>(*stranger).is_none() && data.write::<Position>(*stranger).is_none();
    ///         *data.output() = none;
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let (mover, still) = world.step(|p| {
    ///     (p.spawn((Position(0.0), Velocity(3.0))).unwrap(), p.spawn((Position(5.0),)).unwrap())
    /// });
    /// world.step(|p| {
    ///     let stranger = p.id_of(still).unwrap();
    ///     p.run_all(&stranger);
    ///     assert_eq!(p.outputs::<Apply>(), [true]);
    ///     assert_eq!(p.get::<Position>(mover).unwrap().0, 3.0);
    ///     assert_eq!(p.get::<Position>(still).unwrap().0, 5.0);
    /// });
    /// ```
    #[inline]
    pub fn read<C: Component<Cx>>(&self, id: EntityId) -> Option<&C>
    where
        S: CanRead<Cx, C>,
    {
        self.owns(id)?;
        // SAFETY: `id` is one of this subtask's entities, so it holds `C`
        // (the signature) and no other subtask borrows its `C`; this proxy
        // hands out no mutable borrow while `&self` lives.
        Some(unsafe { C::column(self.view.part.cx.storages()).get_ptr_unchecked(id).as_ref() })
    }

    /// Component `C` of one of this subtask's own entities, mutably (`None`
    /// for any other entity): random access for systems that do not iterate,
    /// such as a contact solver.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Snap;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems { snap: Snap { write: [Position] } }
    ///     }
    /// }
    ///
    /// // The argument: the entities to snap to the grid, found elsewhere.
    /// impl System<World, Vec<EntityId>> for Snap {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, ids: &Vec<EntityId>) {
    ///         for &id in ids {
    ///             if let Some(p) = data.write::<Position>(id) {
    ///                 p.0 = p.0.round();
    ///             }
    ///         }
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let a = p.spawn((Position(1.4),)).unwrap();
    ///     let b = p.spawn((Position(2.6),)).unwrap();
    ///     let ids = vec![p.id_of(b).unwrap()];
    ///     p.run_all(&ids);
    ///     assert_eq!((p.get::<Position>(a).unwrap().0, p.get::<Position>(b).unwrap().0), (1.4, 3.0));
    /// });
    /// ```
    #[inline]
    pub fn write<C: Component<Cx>>(&mut self, id: EntityId) -> Option<&mut C>
    where
        S: CanWrite<Cx, C>,
    {
        self.owns(id)?;
        // SAFETY: `id` is one of this subtask's entities, so it holds `C`
        // and no other subtask or concurrent system borrows its `C`; `&mut
        // self` excludes every other borrow made through this proxy.
        Some(unsafe { C::column(self.view.part.cx.storages()).get_ptr_unchecked(id).as_mut() })
    }

    /// The items of query `Q` for `N` distinct entities of this subtask at
    /// once; `None` when an id is not one of this subtask's entities or
    /// appears twice. For code that updates entities in pairs, such as a
    /// contact solver: `query_many::<(&mut Position, &mut Velocity), 2>([a, b])`.
    ///
    /// # Panics
    /// Fails to compile (constant evaluation) when `Q` borrows one component
    /// twice with one borrow mutable.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Swap;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems { swap: Swap { write: [Position], output: bool } }
    ///     }
    /// }
    ///
    /// impl System<World> for Swap {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let ids = data.entities();
    ///         let (a, b) = (ids[0], ids[1]);
    ///         // One id twice would alias: refused.
    ///         let twice = data.query_many::<&mut Position, 2>([a, a]).is_none();
    ///         *data.output() = twice;
    ///         if let Some([pa, pb]) = data.query_many::<&mut Position, 2>([a, b]) {
    ///             core::mem::swap(&mut pa.0, &mut pb.0);
    ///         }
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let (a, b) = world.step(|p| (p.spawn((Position(1.0),)).unwrap(), p.spawn((Position(2.0),)).unwrap()));
    /// world.step(|p| {
    ///     p.run_all(&());
    ///     assert_eq!(p.outputs::<Swap>(), [true]);
    ///     assert_eq!((p.get::<Position>(a).unwrap().0, p.get::<Position>(b).unwrap().0), (2.0, 1.0));
    /// });
    /// ```
    #[inline]
    pub fn query_many<Q: Query<Cx, S>, const N: usize>(&mut self, ids: [EntityId; N]) -> Option<[Q::Item<'_>; N]> {
        const {
            assert!(
                is_valid(Q::ACCESS),
                "a query may not borrow the same component twice when one borrow is mutable"
            )
        };
        for (k, &id) in ids.iter().enumerate() {
            self.owns(id)?;
            if ids[..k].contains(&id) {
                return None;
            }
        }
        let fetch = Q::init(self.view.part.cx.storages());
        // SAFETY: every id is one of this subtask's entities, so it holds the
        // signature, which covers `Q` (trait bounds), and no other subtask or
        // concurrent system borrows the components `Q` writes; the ids are
        // distinct and `Q` is conflict-free (`is_valid`), so the items do not
        // overlap; `&mut self` excludes every other borrow made through this
        // proxy while they live; the storages stay shared-borrowed for `'a`.
        Some(ids.map(|id| unsafe { Q::fetch(fetch, id) }))
    }

    /// `Some` when `id` is one of this subtask's entities.
    ///
    /// When the system's ids are one run, this subtask's are the run
    /// `first..first + range.len()` (`first` being the run's start plus the
    /// subtask's offset): one subtraction and one comparison, the
    /// subtraction wrapping an id below `first` past every length. (The
    /// place in the whole run and then in the subtask's range took four
    /// comparisons, and `query_many` makes one test per id:
    /// `examples/particles`' contact solver.)
    #[inline]
    fn owns(&self, id: EntityId) -> Option<()> {
        let range = &self.view.part.range;
        let owned = match &self.view.part.run {
            Some(run) => {
                // No overflow: `range` lies within `0..run.len()`, so
                // `first <= run.end`. An id below `first` wraps to at least
                // `2^32 - first`, above `run.end - first >= range.len()`.
                // `end - start`, not `range.len()`: that also tests
                // `start < end`, a comparison and a branch per call. (No
                // overflow: `span` never makes a reversed range.)
                let first = run.start + range.start as u32;
                (id.0.wrapping_sub(first) as usize) < range.end - range.start
            }
            None => self.view.part.set.position(id).is_some_and(|pos| range.contains(&pos)),
        };
        owned.then_some(())
    }

    /// Calls `f` with the item of query `Q` for each entity of this subtask:
    /// [`for_entities`](Self::for_entities) without the view (so in blocks
    /// or not as that one decides).
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Health(pub u32);
    /// # #[derive(Default)]
    /// # pub struct Heal;
    /// ecs::declare_context! {
    ///     pub context Game {
    ///         components { Health: contiguous; }
    ///         systems { heal: Heal { write: [Health], output: u32 } }
    ///     }
    /// }
    ///
    /// impl System<Game> for Heal {
    ///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    ///         let mut healed = 0;
    ///         data.for_each::<&mut Health>(|h| {
    ///             if h.0 < 10 {
    ///                 h.0 += 1;
    ///                 healed += 1;
    ///             }
    ///         });
    ///         // Each subtask fills its own output.
    ///         *data.output() = healed;
    ///     }
    /// }
    ///
    /// let mut game = Game::new();
    /// let hurt = game.step(|p| {
    ///     p.spawn((Health(10),)).unwrap();
    ///     p.spawn((Health(3),)).unwrap()
    /// });
    /// game.step(|p| p.run_all(&()));
    /// assert_eq!(game.outputs::<Heal>(), [1]);
    /// game.step(|p| assert_eq!(p.get::<Health>(hurt).unwrap().0, 4));
    /// ```
    #[inline]
    // `f` is walked in place in a debug build (`walk!`), moved on in an
    // optimised one.
    #[cfg_attr(not(debug_assertions), allow(unused_mut))]
    pub fn for_each<Q: Query<Cx, S>>(&mut self, f: impl FnMut(Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        let mut f = Items(f);
        // As in `for_entities`: only the walk taken is compiled.
        walk!(self, Q, Q::BLOCKS, f, items);
    }

    /// [`for_entities_in_blocks`](Self::for_entities_in_blocks) without the
    /// view: for arithmetic on every entity, such as
    /// `for_each_in_blocks::<(&mut Position, &mut Velocity, &Acceleration)>`.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// # pub struct Acceleration(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Integrate;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position, Velocity, Acceleration: contiguous; }
    ///         systems { integrate: Integrate { read: [Acceleration], write: [Position, Velocity] } }
    ///     }
    /// }
    ///
    /// impl System<World, f32> for Integrate {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, dt: &f32) {
    ///         data.for_each_in_blocks::<(&mut Position, &mut Velocity, &Acceleration)>(|(p, v, a)| {
    ///             v.0 += a.0 * dt;
    ///             p.0 += v.0 * dt;
    ///         });
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let handles: Vec<_> = world.step(|p| {
    ///     let bundles = (0..20).map(|_| (Position(0.0), Velocity(0.0), Acceleration(2.0)));
    ///     p.spawn_batch(bundles).unwrap().collect()
    /// });
    /// world.step(|p| {
    ///     p.run_all(&0.5f32);
    ///     assert!(handles.iter().all(|&e| p.get::<Velocity>(e).unwrap().0 == 1.0));
    ///     assert!(handles.iter().all(|&e| p.get::<Position>(e).unwrap().0 == 0.5));
    /// });
    /// ```
    #[inline]
    // `f` is walked in place in a debug build (`walk!`), moved on in an
    // optimised one.
    #[cfg_attr(not(debug_assertions), allow(unused_mut))]
    pub fn for_each_in_blocks<Q: Query<Cx, S>>(&mut self, f: impl FnMut(Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        let mut f = Items(f);
        walk!(self, Q, true, f, items);
    }

    /// [`for_entities_in_place`](Self::for_entities_in_place) without the
    /// view: for closures that mostly branch.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Health(pub i32);
    /// # #[derive(Default)]
    /// # pub struct Clamp;
    /// ecs::declare_context! {
    ///     pub context Game {
    ///         components { Health: contiguous; }
    ///         systems { clamp: Clamp { write: [Health] } }
    ///     }
    /// }
    ///
    /// impl System<Game> for Clamp {
    ///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    ///         // A branch that rarely writes: no block staging.
    ///         data.for_each_in_place::<&mut Health>(|h| {
    ///             if h.0 > 100 {
    ///                 h.0 = 100;
    ///             }
    ///         });
    ///     }
    /// }
    ///
    /// let mut game = Game::new();
    /// let (a, b) = game.step(|p| (p.spawn((Health(50),)).unwrap(), p.spawn((Health(150),)).unwrap()));
    /// game.step(|p| {
    ///     p.run_all(&());
    ///     assert_eq!((p.get::<Health>(a).unwrap().0, p.get::<Health>(b).unwrap().0), (50, 100));
    /// });
    /// ```
    #[inline]
    // `f` is walked in place in a debug build (`walk!`), moved on in an
    // optimised one.
    #[cfg_attr(not(debug_assertions), allow(unused_mut))]
    pub fn for_each_in_place<Q: Query<Cx, S>>(&mut self, f: impl FnMut(Q::Item<'_>)) {
        let () = ValidQuery::<Cx, S, Q>::OK;
        let mut f = Items(f);
        walk!(self, Q, false, f, items);
    }
}

/// Whether query `Q` of system `S` may hand out its items.
pub(super) struct ValidQuery<Cx, S, Q>(PhantomData<(Cx, S, Q)>);

impl<Cx: ContextDecl, S, Q: Query<Cx, S>> ValidQuery<Cx, S, Q> {
    /// Fails to compile (constant evaluation) when `Q` borrows one component
    /// twice with one borrow mutable: what makes handing out its items
    /// sound. A constant, not a function, so that checking it compiles no
    /// code.
    pub(super) const OK: () = assert!(
        is_valid(Q::ACCESS),
        "a query may not borrow the same component twice when one borrow is mutable"
    );
}

/// Calls `f` for the first `len / BLOCK * BLOCK` entities of the run at
/// `place`, a block at a time (`block_walk`), and returns how many that is.
/// One function for both walks of runs, called only when `BLOCKS`.
///
/// # Safety
/// `walk!`'s guarantees for each id of the run `start..start + len`
/// of `place`: each is one of the subtask's entities and holds every
/// component `Q` borrows, and `f` gets each item for one call.
// Unused by a debug build's walks outside Miri (`walk_body!`).
#[cfg_attr(all(debug_assertions, not(miri)), allow(dead_code))]
#[inline(always)]
unsafe fn walk_blocks<'a, Cx: ContextDecl, S: SystemOf<Cx>, Q: Query<Cx, S>>(
    view: &mut View<'a, Cx, S>,
    place: &Q::Run,
    len: usize,
    f: &mut impl Visit<'a, Cx, S, Q>,
) -> usize {
    // SAFETY: the caller's guarantees are `walk_blocks`'s: the ids are the
    // subtask's, which only it touches, and the view `f` gets cannot reach
    // the values `Q` borrows but through its items (`walk_body!`).
    unsafe { block_walk::walk_blocks::<Cx, Q>(place, len, &mut |item| f.visit(view, item)) }
}

/// The length of the run of consecutive ids that `ids` (strictly
/// ascending, not empty) starts with: under `layout: archetypes`,
/// `walk!` walks a subtask's ids run by run. In `benches/drivers`'
/// `runs_walk` (Move over movers of two sets that a third set's run parts),
/// Move cost 9.1 instructions per mover walked id by id, and costs 3.5 run
/// by run, as over movers of one set (callgrind, 20 000 and 40 000 movers,
/// 20 steps). Not generic, and out of line: compiled once, in `ecs-core`,
/// and called once per run.
// Unused by a debug build's walks outside Miri (`walk_body!`).
#[cfg_attr(all(debug_assertions, not(miri)), allow(dead_code))]
#[inline(never)]
fn run_len(ids: &[EntityId]) -> usize {
    let first = ids[0].0;
    // The ids strictly ascend (the caller checked `is_ascending`, which
    // `SparseSet`'s invariant makes mean so, as `run_start` relies on):
    // `ids[k] - first >= k`, equal exactly while the ids are consecutive,
    // so the run's length is a binary search.
    let (mut lo, mut hi) = (1, ids.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if (ids[mid].0 - first) as usize == mid {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

impl<'a, Cx: ContextDecl> Part<'a, Cx> {
    /// The subtask's ids. Inlined in an optimised build; a call in a debug
    /// build (one copy per context rather than the slicing and its checks
    /// in every walk).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn ids(&self) -> &'a [EntityId] {
        &self.all[self.range.clone()]
    }

    /// [`next_run`] over this part, from the `done`-th id on, counting the
    /// run into `done`: one copy per context, where each walk passed the
    /// part's fields and added to its count itself (about 14 instructions
    /// per walk in a debug build).
    // Unused by a debug build's walks outside Miri (`walk_body!`).
    #[cfg_attr(all(debug_assertions, not(miri)), allow(dead_code))]
    #[cfg(debug_assertions)]
    #[inline(never)]
    fn next_run(&self, runs: bool, done: &mut usize) -> (u32, usize) {
        let (first, len) = next_run(self.set, self.all, self.range.start, self.range.end, runs, *done);
        *done += len;
        (first, len)
    }
}

/// The next run of a linear walk's ids in a debug build: the first id and
/// the length of the run of consecutive ids that `ids[done..]` starts with
/// (`ids` being `all[start..end]`, the subtask's part of `set`, whose ids
/// `all` are), or a length of 0 when `done` is `ids.len()`. The whole of
/// `ids` when they are one run; under `layout: archetypes` (`runs`), each
/// run `run_len` finds; otherwise one id at a time. What `Data::walk` does in three loops in an optimised
/// build, where each loop is specialised; in a debug build, which
/// specialises nothing, each walk compiled the three loops and three calls
/// of `walk_run`, which this function's one loop replaces. Not generic,
/// and out of line: compiled once, in `ecs-core`.
// Unused by a debug build's walks outside Miri (`walk_body!`).
#[cfg_attr(all(debug_assertions, not(miri)), allow(dead_code))]
#[cfg(debug_assertions)]
fn next_run(set: &SparseSet, all: &[EntityId], start: usize, end: usize, runs: bool, done: usize) -> (u32, usize) {
    let rest = &all[start..end][done..];
    if rest.is_empty() {
        return (0, 0);
    }
    if let Some(first) = run_from(set, start) {
        // One run: `ids[done]` is `first + done`.
        (first + done as u32, rest.len())
    } else if runs && set.is_ascending() {
        (rest[0].0, run_len(rest))
    } else {
        (rest[0].0, 1)
    }
}

/// The ids of `set`, the range of them that subtask `subtask` of
/// `subtasks` walks, and the ids as a range when they are one run. The one
/// subtask of an unsplit run (the whole set) is inlined in an optimised
/// build, so that the constant subtask 0 of 1 folds into the walk; a part
/// is [`part`], compiled once rather than once per system. A debug build,
/// which folds nothing, calls it: compiled once, not into every system's
/// run.
#[cfg_attr(not(debug_assertions), inline(always))]
fn span(set: &SparseSet, subtask: usize, subtasks: usize) -> (&[EntityId], Range<usize>, Option<Range<u32>>) {
    if subtasks == 1 {
        let all = set.as_slice();
        let run = set.run_start().map(|first| first.0..first.0 + all.len() as u32);
        (all, 0..all.len(), run)
    } else {
        part(set, subtask, subtasks)
    }
}

/// [`span`] for a part of a split run, or of a run that may split
/// (`DataProxy::new`; one subtask of one is the whole set). Out of line:
/// compiled once, in `ecs-core`.
#[inline(never)]
fn part(set: &SparseSet, subtask: usize, subtasks: usize) -> (&[EntityId], Range<usize>, Option<Range<u32>>) {
    let all = set.as_slice();
    let range = crate::schedule::subtask_range(all.len(), subtasks, subtask);
    let run = set.run_start().map(|first| first.0..first.0 + all.len() as u32);
    (all, range, run)
}

/// What a walk calls for each item: a closure of the view and the item
/// (`for_entities`), or of the item alone ([`Items`], `for_each`).
/// `visit` is the one place a walk calls the closure from, always inlined
/// into each of the walk's loops, so that the compiler puts the closure
/// inside each of them.
pub(super) trait Visit<'a, Cx: ContextDecl, S: SystemOf<Cx>, Q: Query<Cx, S>> {
    /// Calls the closure with `view` and `item`.
    fn visit(&mut self, view: &mut View<'a, Cx, S>, item: Q::Item<'_>);
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>, Q: Query<Cx, S>, F> Visit<'a, Cx, S, Q> for F
where
    F: FnMut(&mut View<'a, Cx, S>, Q::Item<'_>),
{
    #[inline(always)]
    fn visit(&mut self, view: &mut View<'a, Cx, S>, item: Q::Item<'_>) {
        self(view, item)
    }
}

/// A closure of the item alone, as `for_each` takes it. A type rather than
/// a closure ignoring the view: such a closure was one more function per
/// walk in a debug build (`Data::for_each::{{closure}}`, between the walk
/// and the user's closure), where `visit`, always inlined, is none.
pub(super) struct Items<F>(pub(super) F);

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>, Q: Query<Cx, S>, F> Visit<'a, Cx, S, Q> for Items<F>
where
    F: FnMut(Q::Item<'_>),
{
    #[inline(always)]
    fn visit(&mut self, _: &mut View<'a, Cx, S>, item: Q::Item<'_>) {
        (self.0)(item)
    }
}

/// The id at place `start` of `set` when its ids are one run. Always
/// inlined in an optimised build, so that the walk sees `run_start`'s
/// checks; called in a debug build, which has nothing to gain from
/// inlining it into every walk (see `walk_run`).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn run_from(set: &SparseSet, start: usize) -> Option<u32> {
    set.run_start().map(|first| first.0 + start as u32)
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> Deref for Data<'a, Cx, S> {
    type Target = View<'a, Cx, S>;
    fn deref(&self) -> &Self::Target {
        &self.view
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> DerefMut for Data<'a, Cx, S> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.view
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> View<'a, Cx, S> {
    /// The entities of this subtask.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Census;
    /// /// What one subtask saw.
    /// #[derive(Default, Debug, PartialEq)]
    /// pub struct Seen {
    ///     index: usize,
    ///     count: usize,
    ///     mine: usize,
    ///     all: usize,
    ///     others: usize,
    /// }
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems { census: Census { read: [Position], parallelism: split_every(2), output: Seen } }
    ///     }
    /// }
    ///
    /// impl System<World> for Census {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         assert_eq!(data.entities().len(), data.entity_count());
    ///         assert_eq!(data.all_entities().len(), data.all_entity_count());
    ///         assert_eq!(data.other_entities().count(), data.other_entity_count());
    ///         // This subtask's entities are not among the others'.
    ///         let mine: Vec<EntityId> = data.entities().to_vec();
    ///         assert!(data.other_entities().all(|id| !mine.contains(&id)));
    ///         *data.output() = Seen {
    ///             index: data.subtask_index(),
    ///             count: data.subtask_count(),
    ///             mine: data.entity_count(),
    ///             all: data.all_entity_count(),
    ///             others: data.other_entity_count(),
    ///         };
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     for x in 0..5 {
    ///         p.spawn((Position(x as f32),)).unwrap();
    ///     }
    ///     p.run_all(&());
    ///     // Five entities in subtasks of two: three subtasks, in order.
    ///     let seen = p.outputs::<Census>();
    ///     assert_eq!(seen.len(), 3);
    ///     assert_eq!(seen[2], Seen { index: 2, count: 3, mine: 1, all: 5, others: 4 });
    ///     assert_eq!(seen.iter().map(|s| s.mine).sum::<usize>(), 5);
    /// });
    /// ```
    #[inline]
    pub fn entities(&self) -> &'a [EntityId] {
        self.part.ids()
    }

    /// Every entity of the system, all subtasks together.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Census;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { census: Census { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Census {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.all_entities().len();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Position(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Census>(), [5, 5, 5]);
    /// ```
    #[inline]
    pub fn all_entities(&self) -> &'a [EntityId] {
        self.part.all
    }

    /// The entities of the other subtasks: those before this subtask's slice
    /// and those after it.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Census;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { census: Census { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Census {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.other_entities().count();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Position(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Census>(), [3, 3, 4]);
    /// ```
    #[inline]
    pub fn other_entities(&self) -> impl Iterator<Item = EntityId> + 'a {
        let all = self.part.all;
        all[..self.part.range.start]
            .iter()
            .chain(&all[self.part.range.end..])
            .copied()
    }

    /// Number of entities of this subtask.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Census;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { census: Census { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Census {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.entity_count();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Position(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Census>(), [2, 2, 1]);
    /// ```
    #[inline]
    pub fn entity_count(&self) -> usize {
        self.part.range.len()
    }

    /// Number of entities of the system.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Census;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { census: Census { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Census {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.all_entity_count();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Position(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Census>(), [5, 5, 5]);
    /// ```
    #[inline]
    pub fn all_entity_count(&self) -> usize {
        self.part.all.len()
    }

    /// Number of entities of the other subtasks.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Census;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { census: Census { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Census {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.other_entity_count();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Position(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Census>(), [3, 3, 4]);
    /// ```
    #[inline]
    pub fn other_entity_count(&self) -> usize {
        self.part.all.len() - self.part.range.len()
    }

    /// This subtask's index, from 0.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Census;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { census: Census { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Census {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.subtask_index();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Position(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Census>(), [0, 1, 2]);
    /// ```
    #[inline]
    pub fn subtask_index(&self) -> usize {
        self.part.subtask
    }

    /// Number of subtasks the system runs as this time.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Census;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { census: Census { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Census {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.subtask_count();
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..5).map(|x| (Position(x as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// // Five entities in subtasks of two: three subtasks.
    /// assert_eq!(world.outputs::<Census>(), [3, 3, 3]);
    /// ```
    #[inline]
    pub fn subtask_count(&self) -> usize {
        self.part.subtasks
    }

    /// Calls `f` with the item of the read-only query `Q` for every entity of
    /// the system, in every subtask.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Mass(pub u32);
    /// # #[derive(Default)]
    /// # pub struct Weigh;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Mass: contiguous; }
    ///         systems { weigh: Weigh { read: [Mass], parallelism: split_every(1), output: (u32, u32) } }
    ///     }
    /// }
    ///
    /// impl System<World> for Weigh {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let (mut all, mut others) = (0, 0);
    ///         data.for_all_entities::<&Mass>(|m| all += m.0);
    ///         data.for_other_entities::<&Mass>(|m| others += m.0);
    ///         *data.output() = (all, others);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     for m in [1, 2, 4] {
    ///         p.spawn((Mass(m),)).unwrap();
    ///     }
    ///     p.run_all(&());
    ///     // One subtask per entity: each sees the total, and the total minus its own.
    ///     let outputs = p.outputs::<Weigh>();
    ///     assert!(outputs.iter().all(|&(all, _)| all == 7));
    ///     let mut others: Vec<u32> = outputs.iter().map(|&(_, o)| o).collect();
    ///     others.sort();
    ///     assert_eq!(others, [3, 5, 6]);
    /// });
    /// ```
    pub fn for_all_entities<Q: SharedQuery<Cx, S>>(&self, f: impl FnMut(Q::Item<'_>)) {
        self.shared_query::<Q>(self.part.all.iter().copied(), f)
    }

    /// Calls `f` with the item of the read-only query `Q` for every entity of
    /// the other subtasks.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Charge(pub i32);
    /// # #[derive(Default)]
    /// # pub struct Field;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Charge: contiguous; }
    ///         systems { field: Field { read: [Charge], parallelism: split_every(2), output: (usize, i32) } }
    ///     }
    /// }
    ///
    /// impl System<World> for Field {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let mut others = 0;
    ///         data.for_other_entities::<&Charge>(|c| others += c.0);
    ///         *data.output() = (data.subtask_index(), others);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     for c in [1, 10, 100] {
    ///         p.spawn((Charge(c),)).unwrap();
    ///     }
    ///     p.run_all(&());
    ///     // Subtask 0 holds the first two entities, subtask 1 the last.
    ///     assert_eq!(p.outputs::<Field>(), [(0, 100), (1, 11)]);
    /// });
    /// ```
    pub fn for_other_entities<Q: SharedQuery<Cx, S>>(&self, f: impl FnMut(Q::Item<'_>)) {
        self.shared_query::<Q>(self.other_entities(), f)
    }

    #[inline]
    fn shared_query<Q: SharedQuery<Cx, S>>(&self, ids: impl Iterator<Item = EntityId>, mut f: impl FnMut(Q::Item<'_>)) {
        let fetch = Q::init(self.part.cx.storages());
        for id in ids {
            // SAFETY: `id` is an entity of the system, holding its signature;
            // `Q` borrows only components the system does not write
            // (`SharedQuery`), which no concurrent system writes either; the
            // storages stay shared-borrowed for `'a`.
            f(unsafe { Q::fetch(fetch, id) });
        }
    }

    /// The item of the read-only query `Q` for any entity the system
    /// processes, in this subtask or another; `None` for other entities.
    ///
    /// One membership test covers every component of `Q`, where
    /// [`get`](Self::get) tests each component's presence: the lookup to use
    /// for neighbours found through a spatial structure.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Near;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position, Velocity: contiguous; }
    ///         systems { near: Near { read: [Position, Velocity], output: Vec<Option<f32>> } }
    ///     }
    /// }
    ///
    /// // The argument: ids found elsewhere (a spatial grid, say).
    /// impl System<World, [EntityId; 2]> for Near {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, ids: &[EntityId; 2]) {
    ///         for &id in ids {
    ///             let found = data.lookup::<(&Position, &Velocity)>(id).map(|(p, v)| p.0 + v.0);
    ///             data.output().push(found);
    ///         }
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let moving = p.spawn((Position(1.0), Velocity(2.0))).unwrap();
    ///     // Not processed by `near`: it lacks `Velocity`.
    ///     let still = p.spawn((Position(5.0),)).unwrap();
    ///     let ids = [p.id_of(moving).unwrap(), p.id_of(still).unwrap()];
    ///     p.run_all(&ids);
    ///     assert_eq!(p.outputs::<Near>()[0], [Some(3.0), None]);
    /// });
    /// ```
    #[inline]
    pub fn lookup<Q: SharedQuery<Cx, S>>(&self, id: EntityId) -> Option<Q::Item<'a>> {
        self.position(id)?;
        // SAFETY: `id` is an entity of the system, so it holds the system's
        // signature (`DataProxy::new`'s caller), which covers every component `Q`
        // may name (its trait bounds); `Q` only reads components the system
        // does not write (`SharedQuery`), which no concurrent system writes
        // either; the storages stay shared-borrowed for `'a`.
        Some(unsafe { Q::fetch(Q::init(self.part.cx.storages()), id) })
    }

    /// The system's entities, to test membership: their ids as one run
    /// when they are one (as [`position`](Self::position) uses it), and
    /// their set; and the context, borrowed for `'a`.
    #[inline]
    pub(crate) fn members(&self) -> (Option<Range<u32>>, &'a SparseSet, &'a Context<Cx>) {
        (self.part.run.clone(), self.part.set, self.part.cx)
    }

    /// The place of `id` among the system's entities (in
    /// [`all_entities`](Self::all_entities)), if it is one: a subtraction
    /// when they are one run, the set's lookup otherwise.
    #[inline]
    fn position(&self, id: EntityId) -> Option<usize> {
        match &self.part.run {
            Some(run) => run.contains(&id.0).then(|| (id.0 - run.start) as usize),
            None => self.part.set.position(id),
        }
    }

    /// Component `C` of any entity, if it holds one: only for components the
    /// system reads and does not write.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Velocity(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Follow;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position, Velocity: contiguous; }
    ///         systems { follow: Follow { read: [Position], write: [Velocity] } }
    ///     }
    /// }
    ///
    /// // Followers are the entities with a velocity; the leader has none, so
    /// // the system does not process it, yet reads its position by id.
    /// impl System<World, [EntityId; 2]> for Follow {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, &[leader, drifter]: &[EntityId; 2]) {
    ///         assert!(data.has::<Position>(leader));
    ///         assert!(!data.has::<Position>(drifter));
    ///         assert!(data.get::<Position>(drifter).is_none());
    ///         let target = data.get::<Position>(leader).unwrap().0;
    ///         data.for_each::<(&Position, &mut Velocity)>(|(p, v)| v.0 = target - p.0);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let leader = p.spawn((Position(10.0),)).unwrap();
    ///     let drifter = p.spawn((Velocity(1.0),)).unwrap();
    ///     let follower = p.spawn((Position(4.0), Velocity(0.0))).unwrap();
    ///     let ids = [p.id_of(leader).unwrap(), p.id_of(drifter).unwrap()];
    ///     p.run_all(&ids);
    ///     assert_eq!(p.get::<Velocity>(follower).unwrap().0, 6.0);
    ///     assert_eq!(p.get::<Velocity>(drifter).unwrap().0, 1.0);
    /// });
    /// ```
    #[inline]
    pub fn get<C: Component<Cx>>(&self, id: EntityId) -> Option<&C>
    where
        S: CanReadShared<Cx, C>,
    {
        // Sound: `S` does not write `C` and no concurrent system writes it.
        // The entity's bits decide, as everywhere: a value no entity claims
        // (left by a spawn whose storage panicked) is not the id's.
        self.holds::<C>(id)
            .then(|| C::column(self.part.cx.storages()).get(id))
            .flatten()
    }

    /// Whether the entity holds component `C` (a component the system may
    /// read of any entity).
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Shield;
    /// # #[derive(Default)]
    /// # pub struct Check;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; Shield: tag; }
    ///         systems { check: Check { read: [Position], output: Vec<bool> } }
    ///     }
    /// }
    ///
    /// // The argument: entities to test, whichever the system processes.
    /// impl System<World, Vec<EntityId>> for Check {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, ids: &Vec<EntityId>) {
    ///         let found: Vec<bool> = ids.iter().map(|&id| data.has::<Position>(id)).collect();
    ///         *data.output() = found;
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let placed = p.spawn((Position(0.0),)).unwrap();
    ///     let shield = p.spawn((Shield,)).unwrap();
    ///     let ids = vec![p.id_of(placed).unwrap(), p.id_of(shield).unwrap()];
    ///     p.run_all(&ids);
    ///     assert_eq!(p.outputs::<Check>()[0], [true, false]);
    /// });
    /// ```
    #[inline]
    pub fn has<C: Component<Cx>>(&self, id: EntityId) -> bool
    where
        S: CanReadShared<Cx, C>,
    {
        self.holds::<C>(id)
    }

    /// Whether the id's bits record component `C` (false for an id no
    /// entity holds).
    #[inline]
    fn holds<C: Component<Cx>>(&self, id: EntityId) -> bool {
        let bits = self.part.cx.entities().all_bits().get(id.index());
        bits.is_some_and(|b| b.contains(C::INDEX))
    }

    /// The handle of the live entity with this id.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, Entity, EntityId, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Track;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems { track: Track { read: [Position], output: Vec<Entity> } }
    ///     }
    /// }
    ///
    /// // The argument: a handle kept from an earlier step.
    /// impl System<World, Entity> for Track {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, watched: &Entity) {
    ///         let mut handles = Vec::new();
    ///         data.for_each::<EntityId>(|id| handles.push(id));
    ///         // Ids last until the refresh; handles, which outlive it, are what to keep.
    ///         let handles: Vec<Entity> = handles.into_iter().map(|id| data.handle(id).unwrap()).collect();
    ///         if !data.is_alive(*watched) {
    ///             data.output().extend(handles);
    ///         }
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let gone = world.step(|p| p.spawn((Position(0.0),)).unwrap());
    /// world.step(|p| p.kill(gone));
    /// world.step(|p| {
    ///     let e = p.spawn((Position(1.0),)).unwrap();
    ///     p.run_all(&gone);
    ///     assert_eq!(p.outputs::<Track>()[0], [e]);
    /// });
    /// ```
    #[inline]
    pub fn handle(&self, id: EntityId) -> Option<Entity> {
        self.part.cx.entities().handle(id)
    }

    /// Whether the handle's entity is alive.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, Entity, System};
    /// # pub struct Position(pub f32);
    /// # pub struct Target(pub Entity);
    /// # #[derive(Default)]
    /// # pub struct Aim;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position, Target: contiguous; }
    ///         systems { aim: Aim { read: [Target], output: usize } }
    ///     }
    /// }
    ///
    /// impl System<World> for Aim {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         // Handles stored in components outlive refreshes: check them.
    ///         let mut lost = 0;
    ///         data.for_entities::<&Target>(|view, t| lost += !view.is_alive(t.0) as usize);
    ///         *data.output() = lost;
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let prey = world.step(|p| {
    ///     let prey = p.spawn((Position(0.0),)).unwrap();
    ///     p.spawn((Target(prey),)).unwrap();
    ///     prey
    /// });
    /// world.step(|p| p.run_all(&()));
    /// assert_eq!(world.outputs::<Aim>(), [0]);
    /// world.step(|p| p.kill(prey));
    /// world.step(|p| p.run_all(&()));
    /// assert_eq!(world.outputs::<Aim>(), [1]);
    /// ```
    #[inline]
    pub fn is_alive(&self, e: Entity) -> bool {
        self.part.cx.entities().is_alive(e)
    }

    /// This subtask's output.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Health(pub u32);
    /// # #[derive(Default)]
    /// # pub struct Dying;
    /// ecs::declare_context! {
    ///     pub context Game {
    ///         components { Health: contiguous; }
    ///         systems { dying: Dying { read: [Health], output: Vec<EntityId> } }
    ///     }
    /// }
    ///
    /// impl System<Game> for Dying {
    ///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    ///         let mut low = Vec::new();
    ///         data.for_each::<(EntityId, &Health)>(|(id, h)| {
    ///             if h.0 < 5 {
    ///                 low.push(id);
    ///             }
    ///         });
    ///         // Each run starts from an output reset to its `Default`.
    ///         data.output().extend(low);
    ///     }
    /// }
    ///
    /// let mut game = Game::new();
    /// game.step(|p| {
    ///     let weak = p.spawn((Health(1),)).unwrap();
    ///     p.spawn((Health(9),)).unwrap();
    ///     p.run_all(&());
    ///     p.run_all(&());
    ///     assert_eq!(p.outputs::<Dying>(), [vec![p.id_of(weak).unwrap()]]);
    /// });
    /// ```
    #[inline]
    pub fn output(&mut self) -> &mut S::Output {
        self.output
    }

    /// Kills the entity at the next refresh (harmless if already dead).
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, EntityId, System};
    /// # pub struct Health(pub u32);
    /// # #[derive(Default)]
    /// # pub struct Reap;
    /// ecs::declare_context! {
    ///     pub context Game {
    ///         components { Health: contiguous; }
    ///         systems { reap: Reap { read: [Health] } }
    ///     }
    /// }
    ///
    /// impl System<Game> for Reap {
    ///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    ///         data.for_entities::<(EntityId, &Health)>(|view, (id, h)| {
    ///             if h.0 == 0 {
    ///                 view.kill(id);
    ///             }
    ///         });
    ///     }
    /// }
    ///
    /// let mut game = Game::new();
    /// let (dead, alive) = game.step(|p| {
    ///     let dead = p.spawn((Health(0),)).unwrap();
    ///     let alive = p.spawn((Health(5),)).unwrap();
    ///     p.run_all(&());
    ///     // A request: the entity lives until the step's refresh.
    ///     assert!(p.is_alive(dead));
    ///     (dead, alive)
    /// });
    /// assert!(!game.is_alive(dead));
    /// assert!(game.is_alive(alive));
    /// assert_eq!(game.len(), 1);
    /// ```
    #[inline]
    pub fn kill(&mut self, id: EntityId) {
        self.part.pending.kills.push(id);
    }

    /// Queues `f` to run at the next refresh, with a [`Defer`] proxy that can
    /// create and kill entities and add and remove components. Deferred
    /// functions run in system order, then subtask order, then call order.
    ///
    /// `f` is moved into a buffer its subtask keeps from step to step, not
    /// boxed: once the buffer has grown to a step's needs, deferring
    /// allocates nothing (`cargo bench --bench defer`: 100 000 small
    /// closures deferred and run about 5x faster than boxed ones). When a
    /// deferred function panics, the functions after it in its system's
    /// queue are dropped without running, and the panic reaches the caller
    /// of `step`; when the system's run panics, none of the functions it
    /// deferred runs.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, Defer, System};
    /// # pub struct Cell(pub u32);
    /// # #[derive(Default)]
    /// # pub struct Divide;
    /// ecs::declare_context! {
    ///     pub context Dish {
    ///         components { Cell: contiguous; }
    ///         systems { divide: Divide { read: [Cell] } }
    ///     }
    /// }
    ///
    /// impl System<Dish> for Divide {
    ///     fn process(&self, data: &mut Data<'_, Dish, Self>, _: &()) {
    ///         let mut born = 0;
    ///         data.for_each::<&Cell>(|c| born += c.0);
    ///         // Systems cannot spawn (others may be iterating): defer it.
    ///         data.defer(move |d: &mut Defer<'_, Dish>| {
    ///             for _ in 0..born {
    ///                 d.spawn((Cell(0),)).unwrap();
    ///             }
    ///         });
    ///     }
    /// }
    ///
    /// let mut dish = Dish::new();
    /// dish.step(|p| {
    ///     p.spawn((Cell(2),)).unwrap();
    ///     p.run_all(&());
    ///     assert_eq!(p.len(), 1); // not yet
    /// });
    /// assert_eq!(dish.len(), 3);
    /// ```
    pub fn defer(&mut self, f: impl for<'d> FnOnce(&mut Defer<'d, Cx>) + Send + 'static) {
        self.part.pending.deferred.push(f);
    }

    /// Resource `R`, which this system reads or writes.
    ///
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// #[derive(Default)]
    /// pub struct Time {
    ///     pub dt: f32,
    /// }
    /// #[derive(Default)]
    /// pub struct Drift;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         resources { Time }
    /// #         systems { drift: Drift { read: [Time], write: [Position] } }
    /// #     }
    /// # }
    /// impl System<World> for Drift {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let dt = data.resource::<Time>().dt;
    ///         data.for_each::<&mut Position>(|p| p.0 += dt);
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.resource_mut::<Time>().dt = 0.5;
    /// let e = world.step(|p| p.spawn((Position(1.0),))).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// assert_eq!(world.step(|p| p.component::<Position>(e).0), 1.5);
    /// ```
    #[inline]
    pub fn resource<R: Resource<Cx>>(&self) -> &R
    where
        S: CanReadResource<Cx, R>,
    {
        // SAFETY: no system that may run beside `S` writes `R`
        // (`CanReadResource`'s contract), and within `S` a `&mut R` exists
        // only through `resource_mut` of a run with one subtask, whose
        // view is this one, borrowed mutably for as long as it lives: not
        // while this `&self` borrow does. Outside systems, `R` is written
        // only with `&mut` to the context, which a running system excludes.
        unsafe { R::cell(self.part.cx.resources()).get_unchecked() }
    }

    /// Resource `R`, which this system writes, mutably.
    ///
    /// A system writing a resource runs as one subtask (the macro accepts
    /// `write` of a resource only for `parallelism: none`), so this view is
    /// the only one that could hand the resource out.
    ///
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// #[derive(Default)]
    /// pub struct Score(pub u32);
    /// #[derive(Default)]
    /// pub struct Count;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         resources { Score }
    /// #         systems { count: Count { read: [Position], write: [Score] } }
    /// #     }
    /// # }
    /// impl System<World> for Count {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let n = data.entity_count() as u32;
    ///         data.resource_mut::<Score>().0 += n;
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| p.spawn_batch((0..3).map(|i| (Position(i as f32),))).map(drop)).unwrap();
    /// world.step(|p| p.run_all(&()));
    /// assert_eq!(world.resource::<Score>().0, 3);
    /// ```
    ///
    /// # Panics
    /// When the run has several subtasks, which a declaration accepted by
    /// `declare_context!` never gives a system writing a resource.
    #[inline]
    pub fn resource_mut<R: Resource<Cx>>(&mut self) -> &mut R
    where
        S: CanWriteResource<Cx, R>,
    {
        assert!(
            self.part.subtasks == 1,
            "system `{}` writes resource `{}` but runs in {} subtasks",
            Cx::SYSTEMS[S::INDEX].name,
            R::NAME,
            self.part.subtasks
        );
        // SAFETY: no system that may run beside `S` reads or writes `R`
        // (`CanWriteResource`'s contract); this run of `S` has one subtask
        // (checked above), whose view is this one, and the returned borrow
        // holds it mutably, so no `&R` from `resource` exists meanwhile.
        // Outside systems, `R` is reached only with `&mut` to the context,
        // which a running system excludes.
        unsafe { R::cell(self.part.cx.resources()).get_mut_unchecked() }
    }

    /// The state of system `T`, an ancestor of this one.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Score(pub u32);
    /// # #[derive(Default)]
    /// # pub struct Total;
    /// #[derive(Default)]
    /// pub struct Report {
    ///     threshold: u32,
    /// }
    /// ecs::declare_context! {
    ///     pub context Game {
    ///         components { Score: contiguous; }
    ///         systems {
    ///             total: Total { read: [Score], output: u32 }
    ///             report: Report { read: [Score], after: [total], output: bool }
    ///         }
    ///     }
    /// }
    ///
    /// impl System<Game> for Total {
    ///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    ///         let mut sum = 0;
    ///         data.for_each::<&Score>(|s| sum += s.0);
    ///         *data.output() = sum;
    ///     }
    /// }
    /// impl System<Game> for Report {
    ///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    ///         // `total` ran before: its outputs and state are there to read.
    ///         let _: &Total = data.system::<Total>();
    ///         let total: u32 = data.outputs::<Total>().iter().sum();
    ///         *data.output() = total >= self.threshold;
    ///     }
    /// }
    ///
    /// let mut game = Game::with_systems(GameSystems { total: Total, report: Report { threshold: 5 } });
    /// game.step(|p| {
    ///     p.spawn((Score(3),)).unwrap();
    ///     p.spawn((Score(4),)).unwrap();
    ///     p.run_all(&());
    /// });
    /// assert_eq!(game.outputs::<Report>(), [true]);
    /// ```
    pub fn system<T: SystemOf<Cx>>(&self) -> &'a T
    where
        S: DependsOn<Cx, T>,
    {
        // SAFETY: `T` is an ancestor of `S` (`DependsOn`'s contract), so the
        // scheduler finished `T`'s run before starting this one and starts it
        // again only in a later `run_selected` or `run_all`. The reference cannot reach
        // it: `process` is generic over `'a` and every place it could store
        // a reference outliving the call (state, outputs, deferred functions)
        // is `'static` (`system_cell.rs`'s documentation).
        unsafe { T::slot(self.part.cx.systems()).read().0 }
    }

    /// The outputs of the last run of system `T`, an ancestor of this one,
    /// one per subtask.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Count;
    /// # #[derive(Default)]
    /// # pub struct Average;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems {
    ///             count: Count { read: [Position], parallelism: split_every(2), output: (usize, f32) }
    ///             average: Average { read: [Position], after: [count], output: f32 }
    ///         }
    ///     }
    /// }
    ///
    /// impl System<World> for Count {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let mut sum = 0.0;
    ///         data.for_each::<&Position>(|p| sum += p.0);
    ///         *data.output() = (data.entity_count(), sum);
    ///     }
    /// }
    /// impl System<World> for Average {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         // One output per subtask of `count`, which ran first.
    ///         let (n, sum) = data.outputs::<Count>().iter().fold((0, 0.0), |(n, s), o| (n + o.0, s + o.1));
    ///         *data.output() = sum / n as f32;
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     for x in [1.0, 2.0, 6.0] {
    ///         p.spawn((Position(x),)).unwrap();
    ///     }
    ///     p.run_all(&());
    ///     assert_eq!(p.outputs::<Count>().len(), 2);
    ///     assert_eq!(p.outputs::<Average>(), [3.0]);
    /// });
    /// ```
    pub fn outputs<T: SystemOf<Cx>>(&self) -> &'a [T::Output]
    where
        S: DependsOn<Cx, T>,
    {
        // SAFETY: as in `system`: `T`'s run finished before this one began.
        unsafe { T::slot(self.part.cx.systems()).read().1 }
    }
}

// `next_run` exists in a debug build only (an optimised build walks the
// ids in three specialised loops, which the tests reach in release:
// `.ci/run` runs the walks' tests with `--release`).
#[cfg(all(test, debug_assertions))]
mod tests {
    use super::next_run;
    use crate::handle::EntityId;
    use crate::sparse_set::SparseSet;

    /// The runs `Data::walk` walks in a debug build, for the subtask's part
    /// `start..end` of `set`.
    fn runs(set: &SparseSet, start: usize, end: usize, runs: bool) -> Vec<(u32, usize)> {
        let mut walked = Vec::new();
        let mut done = 0;
        loop {
            let (first, len) = next_run(set, set.as_slice(), start, end, runs, done);
            if len == 0 {
                return walked;
            }
            walked.push((first, len));
            done += len;
        }
    }

    #[test]
    fn one_run_is_walked_whole() {
        let mut set = SparseSet::new();
        set.insert_run(10..20);
        assert_eq!(runs(&set, 0, 10, false), [(10, 10)]);
        // A subtask's part of the run, with or without `layout: archetypes`.
        assert_eq!(runs(&set, 3, 7, true), [(13, 4)]);
        assert_eq!(runs(&set, 3, 7, false), [(13, 4)]);
        assert!(runs(&set, 5, 5, false).is_empty());
        assert!(runs(&SparseSet::new(), 0, 0, true).is_empty());
    }

    #[test]
    fn ascending_ids_are_walked_run_by_run_under_archetypes_and_one_by_one_otherwise() {
        let mut set = SparseSet::new();
        for id in [2, 3, 4, 8, 9, 20] {
            set.insert(EntityId(id));
        }
        assert!(set.is_ascending() && set.run_start().is_none());
        assert_eq!(runs(&set, 0, 6, true), [(2, 3), (8, 2), (20, 1)]);
        assert_eq!(runs(&set, 1, 5, true), [(3, 2), (8, 2)]);
        assert_eq!(runs(&set, 0, 6, false), [2, 3, 4, 8, 9, 20].map(|id| (id, 1)));
    }

    #[test]
    fn ids_out_of_order_are_walked_one_by_one() {
        let mut set = SparseSet::new();
        for id in [5, 6, 1] {
            set.insert(EntityId(id));
        }
        assert!(!set.is_ascending());
        assert_eq!(runs(&set, 0, 3, true), [(5, 1), (6, 1), (1, 1)]);
    }
}
