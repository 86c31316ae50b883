//! Refresh events: user handlers called when entities subscribe to or
//! unsubscribe from systems, and when they are reclaimed (thesis, 12.1).

use crate::decl::{ContextDecl, SystemOf};
use crate::event_sink::{Event, EventSink};
use crate::handle::Entity;
use core::marker::PhantomData;

type Handler<'e> = Box<dyn FnMut(Entity) + 'e>;

/// Handlers for the events of refreshes, given to
/// [`Context::step_with`](crate::Context::step_with).
///
/// Handlers run after the refresh's changes are all made, in the order the
/// events happened; an entity reclaimed is reported with its last handle.
/// They hear of the subscriptions the step's own changes cause: changes of
/// earlier steps (which wait for systems to run to be matched) are matched
/// without events before the step begins.
///
/// ```
/// use ecs::RefreshEvents;
///
/// pub struct Position(pub f32);
/// #[derive(Default)]
/// pub struct Draw;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems { draw: Draw { read: [Position] } }
///     }
/// }
///
/// let mut world = World::new();
/// let mut drawn = Vec::new();
/// let mut events = RefreshEvents::new().on_subscribe::<Draw>(|e| drawn.push(e));
/// let e = world.step_with(&mut events, |p| p.spawn((Position(0.0),)).unwrap());
/// drop(events);
/// assert_eq!(drawn, [e]);
/// ```
pub struct RefreshEvents<'e, Cx: ContextDecl> {
    subscribe: Vec<Option<Handler<'e>>>,
    unsubscribe: Vec<Option<Handler<'e>>>,
    reclaim: Option<Handler<'e>>,
    _cx: PhantomData<fn() -> Cx>,
}

impl<Cx: ContextDecl> Default for RefreshEvents<'_, Cx> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'e, Cx: ContextDecl> RefreshEvents<'e, Cx> {
    /// No handlers.
    ///
    /// # Examples
    /// ```
    /// use ecs::RefreshEvents;
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// // No handlers: the step behaves as `step` does.
    /// let mut events = RefreshEvents::new();
    /// let e = world.step_with(&mut events, |p| p.spawn((Position(0.0),)).unwrap());
    /// assert!(world.is_alive(e));
    /// ```
    pub fn new() -> Self {
        Self {
            subscribe: (0..Cx::SYSTEMS.len()).map(|_| None).collect(),
            unsubscribe: (0..Cx::SYSTEMS.len()).map(|_| None).collect(),
            reclaim: None,
            _cx: PhantomData,
        }
    }

    /// Calls `f` with each entity that system `S` starts processing.
    ///
    /// # Examples
    /// ```
    /// use ecs::RefreshEvents;
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
    /// let (shown, hidden) = world.step(|p| (p.spawn((Position(0.0),)).unwrap(), p.spawn((Position(1.0),)).unwrap()));
    /// let mut drawn = Vec::new();
    /// let mut events = RefreshEvents::new().on_subscribe::<Draw>(|e| drawn.push(e));
    /// // Adding the last component `draw` needs subscribes the entity.
    /// world.step_with(&mut events, |p| p.add(shown, Visible).map(drop).unwrap());
    /// drop(events);
    /// assert_eq!(drawn, [shown]);
    /// assert!(!drawn.contains(&hidden));
    /// ```
    pub fn on_subscribe<S: SystemOf<Cx>>(mut self, f: impl FnMut(Entity) + 'e) -> Self {
        self.subscribe[S::INDEX] = Some(Box::new(f));
        self
    }

    /// Calls `f` with each entity that system `S` stops processing.
    ///
    /// # Examples
    /// ```
    /// use ecs::RefreshEvents;
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
    /// let e = world.step(|p| p.spawn((Position(0.0), Visible)).unwrap());
    /// let mut hidden = Vec::new();
    /// let mut events = RefreshEvents::new().on_unsubscribe::<Draw>(|e| hidden.push(e));
    /// world.step_with(&mut events, |p| p.remove::<Visible>(e));
    /// drop(events);
    /// assert_eq!(hidden, [e]);
    /// ```
    pub fn on_unsubscribe<S: SystemOf<Cx>>(mut self, f: impl FnMut(Entity) + 'e) -> Self {
        self.unsubscribe[S::INDEX] = Some(Box::new(f));
        self
    }

    /// Calls `f` with each entity reclaimed (its components dropped, its id
    /// freed).
    ///
    /// # Examples
    /// ```
    /// use ecs::RefreshEvents;
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// let (a, b) = world.step(|p| (p.spawn((Position(0.0),)).unwrap(), p.create().unwrap()));
    /// let mut reclaimed = Vec::new();
    /// let mut events = RefreshEvents::new().on_reclaim(|e| reclaimed.push(e));
    /// world.step_with(&mut events, |p| {
    ///     p.kill(a);
    ///     p.kill(b);
    /// });
    /// drop(events);
    /// reclaimed.sort();
    /// assert_eq!(reclaimed, [a, b]);
    /// ```
    pub fn on_reclaim(mut self, f: impl FnMut(Entity) + 'e) -> Self {
        self.reclaim = Some(Box::new(f));
        self
    }
}

impl<Cx: ContextDecl> EventSink for RefreshEvents<'_, Cx> {
    fn wants(&self) -> bool {
        self.reclaim.is_some()
            || self.subscribe.iter().any(Option::is_some)
            || self.unsubscribe.iter().any(Option::is_some)
    }

    fn fire(&mut self, event: Event) {
        let handler = match event {
            Event::Subscribe(s, _) => &mut self.subscribe[s],
            Event::Unsubscribe(s, _) => &mut self.unsubscribe[s],
            Event::Reclaim(_) => &mut self.reclaim,
        };
        if let Some(h) = handler {
            match event {
                Event::Subscribe(_, e) | Event::Unsubscribe(_, e) | Event::Reclaim(e) => h(e),
            }
        }
    }
}
