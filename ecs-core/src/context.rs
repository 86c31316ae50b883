//! The runtime of a declared context: entities, storages, systems, workers.

use crate::bitset::ComponentSet;
use crate::decl::{Component, ContextDecl, SystemOf};
use crate::drop_apart::DropApart;
use crate::entity::Entities;
use crate::error::ContextFull;
use crate::event_sink::{Event, EventSink, NoEvents};
use crate::events::RefreshEvents;
use crate::handle::{Entity, EntityId};
use crate::liveness::Liveness;
use crate::names::Names;
use crate::proxy::Step;
use crate::refresh_core::{Parts, RefreshCore};
use crate::resource::Resource;
use crate::schedule::Team;
use crate::storage::Column;
use crate::subscriptions::Subscriptions;
use crate::system::System;
use core::mem::ManuallyDrop;
use core::sync::atomic::AtomicBool;

/// The runtime of a context declared with `declare_context!`.
///
/// The generated context type dereferences to it; everything happens inside
/// [`step`](Self::step), whose closure gets a [`Step`](crate::Step) proxy, followed by a
/// refresh: deferred functions run in order, and killed entities are
/// reclaimed (the entities with the highest ids moving into the ids they
/// leave, so that ids stay packed).
///
/// # Matching
/// Entities created or changed are matched to systems (each system's set of
/// entities updated) once, before systems next run, or when
/// [`subscribers`](Self::subscribers) asks: not at every refresh. An
/// entity changed in several steps between two runs is matched once, and
/// one whose changes cancel (a component added, then removed) changes no
/// system's set. A component added to or removed from many entities at
/// once ([`Defer::add_to_all`](crate::Defer::add_to_all), [`Defer::remove_from_all`](crate::Defer::remove_from_all)) queues no entity:
/// the systems that name it are compared with every entity's components
/// instead, when they next run. Nothing else can tell the difference: a step given event
/// handlers ([`step_with`](Self::step_with)) first matches what earlier
/// steps changed, without events, and its refresh then matches at once, so
/// that its handlers see exactly the subscriptions its own changes cause.
///
/// # Panics and the state after one
/// A panic in the step closure, in a system (`before`, a subtask, `after`,
/// `reset_output`, its output's `Default` or `drop`), in a deferred function
/// (the `drop` of what it captured included, when the call consumes it), in
/// an event handler or in a component's `drop` reaches the caller of `step`
/// as a panic, with its payload. Systems running beside a panicking one
/// finish first, systems that depend on it do not run, and nothing
/// deadlocks, whatever the thread count. When several panic in one step
/// (systems, subtasks, or `drop`s while killed entities are reclaimed), one
/// payload reaches the caller and the context drops the others itself,
/// where a panic of their own `drop` cannot escape: it is caught, and its
/// payload dropped the same way. A payload whose `drop` panics therefore
/// harms nothing, and the one that reaches the caller is the caller's to
/// drop.
///
/// The context stays usable and consistent: every change made before the
/// panic stands, every entity is matched to exactly the systems it should be
/// before systems run again, and no entity is lost (a fixed context still
/// fills to its limit). Kills and deferred functions recorded but not yet
/// applied are applied by the next refresh, except that a system whose run
/// panicked loses those of that run, and a system whose deferred function
/// panicked loses its deferred functions after that one (its kills still
/// apply). A `drop` that panics while killed entities are reclaimed stops
/// nothing: every killed entity is reclaimed and every other value dropped,
/// then the first such panic reaches the caller, without the events of that
/// refresh.
///
/// Every value is dropped exactly once. The process aborts only where Rust
/// itself aborts: when a value's own `drop` panics while another panic
/// unwinds. The values a panic drops on its way are the ones to watch: the
/// kills and deferred functions (with what they captured) of a system whose
/// run panicked, and the deferred functions after a panicking one.
///
/// ```
/// pub struct Position(pub f32);
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems {}
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Position(1.0),)).unwrap());
/// // `World` dereferences to `ecs::Context<World>`.
/// let context: &ecs::Context<World> = &world;
/// assert_eq!(context.len(), 1);
/// assert!(context.is_alive(e));
/// ```
pub struct Context<Cx: ContextDecl> {
    // Dropped by `Context`'s `drop`, through `Table::drop_table`: compiled
    // once in this crate for the sets a declaration picks (`Bits8` to
    // `Bits128`). Left to the drop glue, the table's drop (its vectors'
    // glue, the order's, the shared generations') was compiled into every
    // crate declaring a context.
    pub(crate) entities: ManuallyDrop<Entities<Cx::Bits>>,
    pub(crate) storages: DropApart<Cx::Storages>,
    pub(crate) systems: DropApart<Cx::Systems>,
    pub(crate) resources: Cx::Resources,
    // The subscriptions, names and team are dropped by `Context`'s `drop`,
    // through `drop_runtime`, compiled once here: left to the drop glue,
    // their drop was compiled into every crate declaring a context.
    pub(crate) subscriptions: ManuallyDrop<Subscriptions>,
    /// The entities' names, from the first entity named on (`names.rs`).
    pub(crate) names: ManuallyDrop<Option<Box<Names>>>,
    pub(crate) team: ManuallyDrop<Option<Team>>,
    pub(crate) threads: usize,
    /// Set when a run hands its subtasks' kills or deferred functions to a
    /// system's slot (`gather`); cleared by the refresh that has applied
    /// every slot's. A refresh whose runs queued nothing reads this flag
    /// instead of every slot.
    pub(crate) gathered: AtomicBool,
}

impl<Cx: ContextDecl> Context<Cx> {
    /// A context with no entities, whose systems hold `states` and whose
    /// resources hold their default values.
    ///
    /// Starts no thread: see [`from_parts`](Self::from_parts).
    ///
    /// # Examples
    /// The generated `World::new()` and `World::with_systems(..)` call this;
    /// the context itself can also be built directly:
    ///
    /// ```
    /// # pub struct Position(pub f32);
    /// #[derive(Default)]
    /// pub struct Count(pub u32);
    /// # impl ecs::System<World> for Count {
    /// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
    /// # }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { count: Count { read: [Position] } }
    /// #     }
    /// # }
    /// // The states struct is named after the context: `WorldSystems`.
    /// let cx = ecs::Context::<World>::new(WorldSystems { count: Count(7) });
    /// assert!(cx.is_empty());
    /// assert_eq!(cx.system::<Count>().0, 7);
    /// ```
    pub fn new(states: Cx::States) -> Self
    where
        Cx::ResourceValues: Default,
    {
        Self::with_threads(states, Cx::SETTINGS.threads)
    }

    /// As [`from_parts`](Self::from_parts), with resources holding their
    /// default values.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let one = ecs::Context::<World>::with_threads(WorldSystems {}, Some(1));
    /// assert_eq!(one.threads(), 1);
    /// let capped = ecs::Context::<World>::with_threads(WorldSystems {}, Some(5000));
    /// assert_eq!(capped.threads(), 1024);
    /// let per_core = ecs::Context::<World>::with_threads(WorldSystems {}, None);
    /// assert!(per_core.threads() >= 1);
    /// ```
    pub fn with_threads(states: Cx::States, threads: Option<usize>) -> Self
    where
        Cx::ResourceValues: Default,
    {
        Self::from_parts(states, Default::default(), threads)
    }

    /// A context with no entities, whose systems hold `states` and whose
    /// resources hold `resources`, running on `threads` threads instead of
    /// the declared count (`None`: one per available core): the caller of `step`, which runs systems itself, and
    /// `threads - 1` workers that help when there is work for them. With one
    /// thread, no worker is started. A count above 1024 is capped at 1024
    /// (the declaration's `threads` setting rejects one).
    ///
    /// The workers start the first time a step has work to hand them (two
    /// systems ready at once, or a system split in subtasks), not here: a
    /// context that never runs systems in parallel starts no thread.
    ///
    /// # Panics
    /// Never for the workers' sake: when they cannot be started, the step
    /// that first needs them runs its systems on the calling thread alone,
    /// then panics (from `run_all`, `run_from` or `run_adapted`); a later
    /// step tries again.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Default)] pub struct Score(pub u32);
    /// # ecs::declare_context! {
    /// #     pub context World { components {} resources { Score } systems {} }
    /// # }
    /// // The values structs are named after the context: `WorldSystems`, `WorldResources`.
    /// let cx = ecs::Context::<World>::from_parts(WorldSystems {}, WorldResources { score: Score(7) }, Some(1));
    /// assert_eq!((cx.resource::<Score>().0, cx.threads()), (7, 1));
    /// ```
    pub fn from_parts(states: Cx::States, resources: Cx::ResourceValues, threads: Option<usize>) -> Self {
        let settings = Cx::SETTINGS;
        let storages = DropApart::new(Cx::new_storages(settings.entities));
        let systems = DropApart::new(Cx::new_systems(states));
        let resources = Cx::new_resources(resources);
        // After the parts above, so that none of their unwinding paths has
        // the table to drop (the drop glue `ManuallyDrop` avoids); should
        // `runtime` unwind, the table (no handle to it out yet) is leaked.
        // Without systems, nothing needs matching.
        let entities = ManuallyDrop::new(Entities::with_matching(settings.entities, !Cx::SYSTEMS.is_empty()));
        // Last, so that no unwinding path above has them to drop.
        let (threads, team, subscriptions) = runtime(threads, Cx::NAME, Cx::SYSTEMS.len());
        Self {
            entities,
            storages,
            systems,
            resources,
            subscriptions: ManuallyDrop::new(subscriptions),
            names: ManuallyDrop::new(None),
            team: ManuallyDrop::new(team),
            threads,
            gathered: AtomicBool::new(false),
        }
    }

    /// Runs `f` with a step proxy, then refreshes; returns what `f` returns.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// // The closure's result is the step's.
    /// let e = world.step(|p| p.spawn((Position(1.0),)).unwrap());
    /// world.step(|p| {
    ///     p.kill(e);
    ///     // Killed entities read dead at once...
    ///     assert!(!p.is_alive(e));
    /// });
    /// // ...and are reclaimed by the refresh that ends the step.
    /// assert!(world.is_empty());
    /// ```
    pub fn step<R>(&mut self, f: impl FnOnce(&mut Step<'_, Cx>) -> R) -> R {
        self.step_inner(&mut NoEvents, false, f)
    }

    /// As [`step`](Self::step), calling the handlers of `events` for the
    /// subscriptions and reclamations it causes.
    ///
    /// # Examples
    /// ```
    /// use ecs::RefreshEvents;
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Draw;
    /// # impl ecs::System<World> for Draw {
    /// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
    /// # }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { draw: Draw { read: [Position] } }
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(0.0),)).unwrap());
    /// let (mut left, mut reclaimed) = (Vec::new(), Vec::new());
    /// let mut events = RefreshEvents::new()
    ///     .on_unsubscribe::<Draw>(|e| left.push(e))
    ///     .on_reclaim(|e| reclaimed.push(e));
    /// world.step_with(&mut events, |p| p.kill(e));
    /// drop(events);
    /// assert_eq!(left, [e]);
    /// assert_eq!(reclaimed, [e]);
    /// ```
    pub fn step_with<R>(&mut self, events: &mut RefreshEvents<'_, Cx>, f: impl FnOnce(&mut Step<'_, Cx>) -> R) -> R {
        let collect = events.wants();
        self.step_inner(events, collect, f)
    }

    /// Runs system `S` with `args`: `before`, every subtask, `after`.
    ///
    /// # Safety
    /// Only the dispatch that `run_selected` (or `run_all`'s loop on one
    /// thread) calls may call it (generated [`Dispatch`](crate::run::Dispatch)
    /// code does): the scheduler runs each system once, never beside a
    /// conflicting one, after matching.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn run_system<S: System<Cx, A>, A: ?Sized + Sync>(&self, args: &A) {
        // SAFETY: the caller's obligations are `run_system_with_data`'s.
        unsafe { self.run_system_with_data::<S, A>(args) }
    }

    /// Number of live entities.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// assert!(world.is_empty());
    /// let (a, b) = world.step(|p| (p.spawn((Position(0.0),)).unwrap(), p.create().unwrap()));
    /// assert_eq!(world.len(), 2);
    /// assert!(world.is_alive(a) && world.is_alive(b));
    /// // Live entities have ids; ids stay packed below `len`.
    /// assert!(world.id_of(a).unwrap().index() < 2);
    /// world.step(|p| p.kill(a));
    /// assert_eq!(world.len(), 1);
    /// assert!(!world.is_alive(a));
    /// assert_eq!(world.id_of(a), None);
    /// assert_eq!(world.id_of(b).map(|id| id.index()), Some(0));
    /// ```
    pub fn len(&self) -> usize {
        self.entities.alive_count()
    }

    /// Whether no entity is alive.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// assert!(world.is_empty());
    /// let e = world.step(|p| p.spawn((Position(0.0),)).unwrap());
    /// assert!(!world.is_empty());
    /// world.step(|p| p.kill(e));
    /// assert!(world.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the entity is alive.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(0.0),)).unwrap());
    /// assert!(world.is_alive(e));
    /// world.step(|p| p.kill(e));
    /// assert!(!world.is_alive(e));
    /// // A new entity in the same slot does not revive the old handle.
    /// let f = world.step(|p| p.spawn((Position(1.0),)).unwrap());
    /// assert!(world.is_alive(f) && !world.is_alive(e));
    /// ```
    pub fn is_alive(&self, e: Entity) -> bool {
        self.entities.is_alive(e)
    }

    /// A handle that checks from any thread, without locks, whether an
    /// entity is alive while this context runs steps: see [`Liveness`].
    /// The first call creates the table it reads (and from then on every
    /// creation, kill and reclamation updates it); later calls share it.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(0.0),)).unwrap());
    /// let alive = world.liveness();
    /// // Checked from another thread, while the context goes on.
    /// assert!(std::thread::spawn(move || alive.is_alive(e)).join().unwrap());
    /// world.step(|p| p.kill(e));
    /// assert!(!world.liveness().is_alive(e));
    /// ```
    pub fn liveness(&mut self) -> Liveness {
        Liveness::new(self.entities.shared_generations())
    }

    /// The live entity named `name` (see [`Defer::set_name`](crate::Defer::set_name)).
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// let e = world.step(|p| {
    ///     let e = p.spawn((Position(0.0),)).unwrap();
    ///     p.set_name(e, "player").unwrap();
    ///     e
    /// });
    /// assert_eq!(world.named("player"), Some(e));
    /// assert_eq!(world.named("camera"), None);
    /// ```
    pub fn named(&self, name: &str) -> Option<Entity> {
        let e = self.names.as_ref()?.get(name)?;
        self.entities.is_alive(e).then_some(e)
    }

    /// The id of a live entity until the next refresh: the id that
    /// [`subscribers`](Self::subscribers) and systems see.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// let (a, b) = world.step(|p| (p.spawn((Position(0.0),)).unwrap(), p.spawn((Position(1.0),)).unwrap()));
    /// assert_eq!(world.id_of(b).map(|id| id.index()), Some(1));
    /// world.step(|p| p.kill(a));
    /// assert_eq!(world.id_of(a), None);
    /// // `b` moved into the id `a` left, so that ids stay packed.
    /// assert_eq!(world.id_of(b).map(|id| id.index()), Some(0));
    /// ```
    pub fn id_of(&self, e: Entity) -> Option<EntityId> {
        self.entities.id_of(e)
    }

    /// A plain-text summary of the declaration: settings, components with
    /// their storages, systems with their access and dependencies, and the
    /// dependency graph as levels and independent chains.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Draw;
    /// # impl ecs::System<World> for Draw {
    /// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
    /// # }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { draw: Draw { read: [Position] } }
    /// #     }
    /// # }
    /// let world = World::new();
    /// let summary = world.summary();
    /// assert!(summary.contains("Position") && summary.contains("draw"));
    /// assert!(world.dot(false).starts_with("digraph"));
    /// // With components, `Position` is a node of the graph too.
    /// assert!(!world.dot(false).contains("Position"));
    /// assert!(world.dot(true).contains("Position"));
    /// ```
    pub fn summary(&self) -> &'static str {
        Cx::SUMMARY
    }

    /// The dependency graph of systems in Graphviz DOT (render it with
    /// `dot -Tpng`); with `components`, components too, with a dashed edge
    /// to each system reading one and a bold edge from each system writing
    /// one.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Move;
    /// # #[derive(Default)]
    /// # pub struct Draw;
    /// # impl ecs::System<World> for Move {
    /// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
    /// # }
    /// # impl ecs::System<World> for Draw {
    /// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
    /// # }
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems {
    ///             movement: Move { write: [Position] }
    ///             draw: Draw { read: [Position], after: [movement] }
    ///         }
    ///     }
    /// }
    ///
    /// let world = World::new();
    /// let graph = world.dot(false);
    /// assert!(graph.starts_with("digraph") && graph.contains("movement") && graph.contains("draw"));
    /// assert!(!graph.contains("Position"));
    /// assert!(world.dot(true).contains("Position"));
    /// ```
    pub fn dot(&self, components: bool) -> &'static str {
        if components {
            Cx::DOT_WITH_COMPONENTS
        } else {
            Cx::DOT
        }
    }

    /// Number of threads systems run on: the caller of `step` and the
    /// workers that help it.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// assert_eq!(World::with_threads(WorldSystems {}, Some(2)).threads(), 2);
    /// assert_eq!(World::with_threads(WorldSystems {}, Some(0)).threads(), 1);
    /// ```
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The entities system `S` processes (after matching the entities
    /// created or changed since the last matching), in the order it visits
    /// them when it runs in one subtask.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # pub struct Visible;
    /// # #[derive(Default)]
    /// # pub struct Draw;
    /// # impl ecs::System<World> for Draw {
    /// #     fn process(&self, _: &mut ecs::Data<'_, World, Self>, _: &()) {}
    /// # }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; Visible: tag; }
    /// #         systems { draw: Draw { read: [Position, Visible] } }
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// let (shown, _hidden) = world.step(|p| {
    ///     (p.spawn((Position(0.0), Visible)).unwrap(), p.spawn((Position(1.0),)).unwrap())
    /// });
    /// let id = world.id_of(shown).unwrap();
    /// assert_eq!(world.subscribers::<Draw>(), [id]);
    /// ```
    pub fn subscribers<S: SystemOf<Cx>>(&mut self) -> &[EntityId] {
        self.match_dirty(&mut Vec::new(), false);
        self.subscriptions.of(S::INDEX).as_slice()
    }

    /// The state of system `S`.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Score(pub u32);
    /// #[derive(Default)]
    /// pub struct Total {
    ///     runs: u32,
    /// }
    /// # ecs::declare_context! {
    /// #     pub context Game {
    /// #         components { Score: contiguous; }
    /// #         systems { total: Total { read: [Score], output: u32 } }
    /// #     }
    /// # }
    /// impl System<Game> for Total {
    ///     fn process(&self, data: &mut Data<'_, Game, Self>, _: &()) {
    ///         let mut sum = 0;
    ///         data.for_each::<&Score>(|s| sum += s.0);
    ///         *data.output() = sum;
    ///     }
    ///     fn after(&mut self, _: &mut [u32], _: &()) {
    ///         self.runs += 1;
    ///     }
    /// }
    ///
    /// let mut game = Game::new();
    /// game.step(|p| {
    ///     p.spawn((Score(2),)).unwrap();
    ///     p.run_all(&());
    /// });
    /// assert_eq!(game.system::<Total>().runs, 1);
    /// game.system_mut::<Total>().runs = 10;
    /// assert_eq!(game.system::<Total>().runs, 10);
    /// // One output per subtask; `total` runs in one.
    /// assert_eq!(game.outputs::<Total>(), [2]);
    /// ```
    pub fn system<S: SystemOf<Cx>>(&self) -> &S {
        // SAFETY: systems run only inside `run_selected` or `run_all`, which borrow the
        // context mutably, so while `&self` lives no system runs.
        unsafe { S::slot(&self.systems).read().0 }
    }

    /// The state of system `S`, mutably.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// #[derive(Default)]
    /// pub struct Move {
    ///     speed: f32,
    /// }
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { movement: Move { write: [Position] } }
    /// #     }
    /// # }
    /// impl System<World> for Move {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         data.for_each::<&mut Position>(|p| p.0 += self.speed);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(0.0),)).unwrap());
    /// // Between steps, tune a system's state.
    /// world.system_mut::<Move>().speed = 3.0;
    /// world.step(|p| p.run_all(&()));
    /// world.step(|p| assert_eq!(p.get::<Position>(e).unwrap().0, 3.0));
    /// ```
    pub fn system_mut<S: SystemOf<Cx>>(&mut self) -> &mut S {
        S::slot_mut(&mut self.systems).get_mut().0
    }

    /// The outputs of the last run of system `S`, one per subtask.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Count;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { count: Count { read: [Position], parallelism: split_every(2), output: usize } }
    /// #     }
    /// # }
    /// impl System<World> for Count {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         *data.output() = data.entity_count();
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     for x in 0..3 {
    ///         p.spawn((Position(x as f32),)).unwrap();
    ///     }
    ///     p.run_all(&());
    /// });
    /// // Three entities, two per subtask: two subtasks, in order.
    /// assert_eq!(world.outputs::<Count>(), [2, 1]);
    /// ```
    pub fn outputs<S: SystemOf<Cx>>(&self) -> &[S::Output] {
        // SAFETY: as in `system`: no system runs while `&self` lives.
        unsafe { S::slot(&self.systems).read().1 }
    }

    /// Resource `R`.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Default)] pub struct Score(pub u32);
    /// # ecs::declare_context! {
    /// #     pub context World { components {} resources { Score } systems {} }
    /// # }
    /// let mut world = World::new();
    /// assert_eq!(world.resource::<Score>().0, 0); // `Default`
    /// world.step(|p| p.resource_mut::<Score>().0 = 5);
    /// assert_eq!(world.resource::<Score>().0, 5);
    /// ```
    pub fn resource<R: Resource<Cx>>(&self) -> &R {
        // SAFETY: systems, the only code that writes through a shared cell,
        // run only inside `run_selected` or `run_all`, which borrow the context mutably:
        // while `&self` lives no system runs.
        unsafe { R::cell(&self.resources).get_unchecked() }
    }

    /// Resource `R`, mutably.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Default)] pub struct Score(pub u32);
    /// # ecs::declare_context! {
    /// #     pub context World { components {} resources { Score } systems {} }
    /// # }
    /// let mut world = World::new();
    /// world.resource_mut::<Score>().0 += 2;
    /// world.step(|p| assert_eq!(p.resource::<Score>().0, 2));
    /// ```
    pub fn resource_mut<R: Resource<Cx>>(&mut self) -> &mut R {
        R::cell_mut(&mut self.resources).get_mut()
    }

    #[inline]
    pub(crate) fn resources(&self) -> &Cx::Resources {
        &self.resources
    }

    #[inline]
    pub(crate) fn storages(&self) -> &Cx::Storages {
        &self.storages
    }

    #[inline]
    pub(crate) fn systems(&self) -> &Cx::Systems {
        &self.systems
    }

    #[inline]
    pub(crate) fn entities(&self) -> &Entities<Cx::Bits> {
        &self.entities
    }

    #[inline]
    pub(crate) fn create_entity(&mut self) -> Result<Entity, ContextFull> {
        self.entities.create().ok_or_else(|| self.full())
    }

    /// The error for a full context.
    #[cold]
    pub(crate) fn full(&self) -> ContextFull {
        ContextFull {
            limit: self.entities.limit().initial_capacity(),
        }
    }

    /// Stores `value` for the live entity of `slot`, whose id is `id`, and
    /// records it in its bitset; returns the value it replaces.
    #[inline(always)]
    pub(crate) fn insert_component<C: Component<Cx>>(&mut self, at: (u32, EntityId), value: C) -> Option<C> {
        // The set borrowed once across the insert (the column is another
        // field): one bounds check for the test and the change.
        let bits = self.entities.bits_mut(at.1);
        let held = bits.contains(C::INDEX);
        // Insert first, then set the bit: if `insert` panics, the bitset still
        // claims nothing the storage lacks.
        let old = C::column_mut(&mut self.storages).insert(at.1, value);
        if held {
            old
        } else {
            bits.insert(C::INDEX);
            self.noted(at, C::INDEX);
            // A value the entity did not hold is one a panicking storage or
            // drop left unclaimed (see `Column::insert_new`): not the
            // entity's to return. Dropped on return (`drop(old)` would be
            // one more function per component type in a debug build).
            None
        }
    }

    /// [`Defer::add`](crate::Defer::add) of the value at `value`, of
    /// component `index`, to entity `e`, stored through `insert` (which
    /// moves it out and writes the value the column held, claimed or not,
    /// as an `Option` of the component's type, into `old`): the steps of
    /// `insert_component` after `resolve`, not generic over the component,
    /// so that a debug build compiles them once per context (`add` and
    /// `insert_component` were 146 lines of IR per component type added,
    /// 3 069 at 64 components / 32 systems, `cargo llvm-lines`). Returns
    /// whether the entity held the component (the caller hands `old`
    /// back, else drops it: a value no entity claimed), or `None` when `e`
    /// is dead (the value dropped by `drop`, `old` untouched).
    ///
    /// # Safety
    /// `value` points to an initialised value of component `index`, which
    /// the caller gives up; `insert` moves such a value out and stores it
    /// in that component's column for the id it is given, and writes an
    /// `Option` of that type to its last argument, which `old` may hold
    /// (it is overwritten, not dropped); `drop` is that type's `DropRun`
    /// (`None` when it needs none).
    #[cfg(debug_assertions)]
    pub(crate) unsafe fn add_raw(
        &mut self,
        e: Entity,
        index: usize,
        value: *mut u8,
        old: *mut u8,
        insert: unsafe fn(&mut Cx::Storages, EntityId, *mut u8, *mut u8),
        drop: Option<crate::storage::drops::DropRun>,
    ) -> Option<bool> {
        let Some(at) = self.entities.resolve(e) else {
            if let Some(drop) = drop {
                // SAFETY: one initialised value of `drop`'s type, given up
                // by the caller and not moved out (the caller's contract).
                unsafe { drop(value, 1) };
            }
            return None;
        };
        // As in `insert_component`: insert first, then set the bit.
        let bits = self.entities.bits_mut(at.1);
        let held = bits.contains(index);
        // SAFETY: the caller's contract: `value` is a value of component
        // `index`, given up, moved out once here; `insert` is its type's.
        unsafe { insert(&mut self.storages, at.1, value, old) };
        if !held {
            bits.insert(index);
            self.noted(at, index);
        }
        Some(held)
    }

    /// Stores `value` as component `C` of the live entity of `slot`, whose
    /// id is `id`, for a caller that knows whether the entity `held` `C`
    /// (its set's bit, [`EntityMut`](crate::EntityMut)), and returns the
    /// value the column held before, claimed or not: the caller decides
    /// which to hand back (as [`insert_component`](Self::insert_component)
    /// does). The bit is set after the value is stored, so that a
    /// panicking storage leaves it claiming nothing the column lacks.
    #[inline(always)]
    pub(crate) fn insert_known<C: Component<Cx>>(&mut self, at: (u32, EntityId), value: C, held: bool) -> Option<C> {
        let old = C::column_mut(&mut self.storages).insert(at.1, value);
        if Self::in_signatures(C::INDEX) {
            if !held {
                self.entities.bits_mut(at.1).insert(C::INDEX);
                self.noted(at, C::INDEX);
            }
        } else {
            // No branch on `held` here. After a user's data-dependent
            // branch ("remove, and if there was none, add"), the CPU must
            // learn its pattern, and whether it does depends on where the
            // code lies; with one branch fewer between two of the user's,
            // `fragmented_churn`'s step failed to at 0 of 256 placements
            // against 10, and at 1 of 64 against 4 when written otherwise
            // (BENCHMARKS.md, "fragmented_churn and code placement").
            self.entities.insert_unqueued_bit(at.1, C::INDEX, held);
        }
        old
    }

    /// Removes `C` of the live entity of `slot`, whose id is `id`, which
    /// holds it (its set's bit is set: the caller tested it, [`EntityMut`]
    /// (crate::EntityMut)), clearing the bit first.
    #[inline(always)]
    pub(crate) fn remove_held<C: Component<Cx>>(&mut self, at: (u32, EntityId)) -> Option<C> {
        self.entities.bits_mut(at.1).remove(C::INDEX);
        self.noted(at, C::INDEX);
        C::column_mut(&mut self.storages).remove(at.1)
    }

    /// Removes `C` of the live entity of `slot`, whose id is `id`, clearing
    /// its bit first.
    #[inline(always)]
    pub(crate) fn remove_component<C: Component<Cx>>(&mut self, at: (u32, EntityId)) -> Option<C> {
        // Queued for matching only if a signature names `C`.
        if !self.entities.take_bit(at, C::INDEX, Self::in_signatures(C::INDEX)) {
            return None;
        }
        C::column_mut(&mut self.storages).remove(at.1)
    }

    /// Records that the live entity at `at` gained or lost component
    /// `index` (its bit already changed), queued for matching only if a
    /// signature names the component (`Entities::noted_bit`). Always
    /// inlined in an optimised build, where `index` is a constant and the
    /// signatures' test folds away; a function generic over the context
    /// alone in a debug build, where the always-inliner put the test, the
    /// bookkeeping and `noted_bit`'s debug check into every `add` and
    /// `remove` of every component type (about 110 of the 200 debug IR
    /// instructions of each `add` in `scripts/compile-cost`'s `main`).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn noted(&mut self, at: (u32, EntityId), index: usize) {
        self.entities.noted_bit(at, index, Self::in_signatures(index));
    }

    /// Whether some system's signature names component `index`, that is,
    /// whether a change of the component on an entity queues the entity
    /// for matching: which systems process an entity depends on those
    /// components alone (`match_entities`), so a change of another one
    /// leaves every system's set as it is. (A filler no system reads,
    /// toggled on 1 000 entities a step, was matched entity by entity:
    /// `fragmented_churn`.) Generic
    /// over the context alone, so that its loop is compiled once per
    /// context rather than once per component; inlined, with a constant
    /// `index`, it folds as before.
    #[inline]
    fn in_signatures(index: usize) -> bool {
        Cx::SIGNATURES.iter().any(|s| s.contains(index))
    }

    /// Matches the entities created or changed since the last matching to
    /// systems ([`RefreshCore::match_dirty`], compiled once per component
    /// set type).
    #[inline]
    pub(crate) fn match_dirty(&mut self, events: &mut Vec<Event>, collect: bool) {
        <Cx::Bits as RefreshCore>::match_dirty(self.parts(), events, collect);
    }

    /// The parts of the context that matching and reclamation change.
    #[inline]
    pub(crate) fn parts(&mut self) -> Parts<'_, Cx::Bits> {
        Parts {
            entities: &mut self.entities,
            subscriptions: &mut self.subscriptions,
            signatures: Cx::SIGNATURES,
        }
    }
}
impl<Cx: ContextDecl> Drop for Context<Cx> {
    /// Drops the parts that do not depend on the declaration (the other
    /// fields follow, through the drop glue).
    fn drop(&mut self) {
        // SAFETY: `drop` runs once, and nothing uses these fields after it.
        // The table first: its drop does not unwind (it frees memory and
        // marks the slots dead for `Liveness` handles), and the team's
        // workers, idle between steps, do not read it.
        unsafe {
            <Cx::Bits as crate::entity::Table>::drop_table(&mut self.entities);
            drop_runtime(&mut self.subscriptions, &mut self.names, &mut self.team);
        }
    }
}

/// Drops a context's subscriptions, names and team: not generic, so
/// compiled once, here.
///
/// # Safety
/// Called once per context, from its `drop`: the fields are not used after.
#[inline(never)]
unsafe fn drop_runtime(
    subscriptions: &mut ManuallyDrop<Subscriptions>,
    names: &mut ManuallyDrop<Option<Box<Names>>>,
    team: &mut ManuallyDrop<Option<Team>>,
) {
    // SAFETY: the caller drops each once and uses none after.
    unsafe {
        ManuallyDrop::drop(subscriptions);
        ManuallyDrop::drop(names);
        ManuallyDrop::drop(team);
    }
}

/// The parts of a new context that do not depend on its declaration: the
/// count of threads (`threads`, or one per core; 1 to 1024), the team when
/// there are several, and the subscriptions of `systems` systems. Not
/// generic, so compiled once, here, rather than in each context's
/// `from_parts` with `clamp`, `unwrap_or_else` and `then` (with `Team`
/// dropping its `Arc` itself: 113 debug IR instructions and 127 lines of
/// unoptimised release IR fewer for a declaration of one system).
#[inline(never)]
fn runtime(threads: Option<usize>, name: &'static str, systems: usize) -> (usize, Option<Team>, Subscriptions) {
    let threads = threads.unwrap_or_else(available_parallelism).clamp(1, 1024);
    let team = (threads > 1).then(|| Team::new(threads, name));
    (threads, team, Subscriptions::new(systems))
}

/// The cores this process may use, asked once: `available_parallelism`
/// reads the cgroup quota files on Linux, which took longer (~35 µs) than
/// creating a context and filling it with 10 000 entities.
fn available_parallelism() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Moves the `C` at `value` out, stores it for `id` in `C`'s column and
/// writes the value the column held (claimed or not) to `old`, as an
/// `Option<C>`: the one part of a debug build's `Defer::add` compiled per
/// component type (see [`Context::add_raw`]).
///
/// # Safety
/// `value` points to an initialised `C` that the caller gives up; `old`
/// is valid for writing an `Option<C>` and holds no value that needs
/// dropping (it is overwritten).
#[cfg(debug_assertions)]
pub(crate) unsafe fn insert_at<Cx: ContextDecl, C: Component<Cx>>(
    storages: &mut Cx::Storages,
    id: EntityId,
    value: *mut u8,
    old: *mut u8,
) {
    // One expression, `as` casts rather than `cast`: no local with a drop
    // flag, no call per cast (a first version with both was 61 lines of
    // IR per component type, `cargo llvm-lines`).
    // SAFETY: `value` is an initialised `C`, moved out once; `old` is
    // valid for an `Option<C>` and holds nothing to drop (the caller's
    // contract).
    unsafe { (old as *mut Option<C>).write(C::column_mut(storages).insert(id, (value as *mut C).read())) };
}
