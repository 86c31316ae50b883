//! Streaming a system's output to the system that consumes it, while the
//! producer still runs (ECST's "streaming system outputs", thesis 13.4).
//!
//! A producer declared with `output: ecs::Stream<T>` pushes items to its
//! subtask's [`Stream`]; a consumer declared with `stream: [producer]`
//! implements [`Consume`] and takes them one by one. Between the two sits a
//! [`Channel`]: one bounded queue, locked once per batch of items, never
//! per item.
//!
//! ```text
//!  producer subtask (helper)        Channel                     consumer (caller)
//!  Stream::push ─ batch full ─► send: append under the lock ─► take: swap the whole
//!  (its own Vec, no lock)            waits for room when full    queue for its empty Vec
//! ```
//!
//! Why a locked `Vec` rather than a lock-free ring of items: items move in
//! batches (`Consume::BATCH`), so the lock is taken once per batch on each
//! side; the consumer takes everything queued by swapping two vectors, so
//! items are copied once (by `Vec::append`) and both vectors keep their
//! memory. A per-item lock-free queue pays an atomic read-modify-write per
//! item on each side.

use crate::decl::ContextDecl;
use crate::proxy::Data;
use crate::system::System;
use core::sync::atomic::{AtomicUsize, Ordering};
use parking_lot::{Condvar, Mutex};
use std::sync::Arc;

/// The output of a system whose items another system consumes while it
/// runs: declare `output: ecs::Stream<T>` on the producer and
/// `stream: [producer]` on the consumer, which implements [`Consume`].
///
/// A subtask [`push`](Stream::push)es items to its own `Stream`. While a
/// consumer streams the producer, a subtask on a helper thread sends full
/// batches as it runs and the rest when it ends; a subtask the consumer's
/// own thread runs keeps its items until it ends, and the consumer takes
/// them then. So after the run every subtask's `Stream` is empty: the producer's `after`, and `outputs()`, see empty
/// streams. When nothing consumes the run (the producer runs through an
/// adapter, say), the items stay in the `Stream`s, readable as slices like
/// any output.
///
/// # Examples
/// See [`Consume`].
///
/// ```
/// let mut s = ecs::Stream::<u32>::default();
/// s.push(1);
/// s.extend([2, 3]);
/// assert_eq!(&s[..], [1, 2, 3]);
/// assert_eq!(s.len(), 3);
/// ```
pub struct Stream<T> {
    /// Items pushed and not yet sent, in push order.
    items: Vec<T>,
    /// Where full batches go, while a consumer streams this subtask's run
    /// on another thread; `None` otherwise (items stay in `items`).
    sink: Option<Arc<Channel<T>>>,
}

impl<T> Default for Stream<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            sink: None,
        }
    }
}

impl<T> Stream<T> {
    /// Sends `item` to the consumer, after the items pushed before it.
    ///
    /// Items are sent in batches: a batch leaves when it holds
    /// [`Consume::BATCH`] items, and waits there while the consumer's queue
    /// holds [`Consume::CAPACITY`] items (back-pressure), so a producer
    /// never runs more than a queue ahead of its consumer.
    ///
    /// # Examples
    /// ```
    /// let mut s = ecs::Stream::<u32>::default();
    /// s.push(1);
    /// s.push(2);
    /// // Without a consumer running beside the producer, the items stay.
    /// assert_eq!(&s[..], [1, 2]);
    /// ```
    #[inline]
    pub fn push(&mut self, item: T) {
        self.items.push(item);
        if let Some(sink) = &self.sink
            && self.items.len() >= sink.batch
        {
            sink.send(&mut self.items);
        }
    }

    /// The items pushed and not sent.
    ///
    /// # Examples
    /// ```
    /// let mut s = ecs::Stream::<u8>::default();
    /// s.push(7);
    /// assert_eq!(s.as_slice(), [7]);
    /// ```
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }

    /// Drops the items not sent, keeping the memory: a producer's
    /// `reset_output` may call it to allocate nothing from run to run.
    ///
    /// # Examples
    /// ```
    /// let mut s = ecs::Stream::<u8>::default();
    /// s.push(7);
    /// s.clear();
    /// assert!(s.is_empty());
    /// ```
    #[inline]
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// Detaches the stream from its channel, sending what is left.
    pub(crate) fn finish(&mut self) {
        if let Some(sink) = self.sink.take()
            && !self.items.is_empty()
        {
            sink.send(&mut self.items);
        }
    }

    pub(crate) fn attach(&mut self, sink: Arc<Channel<T>>) {
        self.sink = Some(sink);
    }

    pub(crate) fn items_mut(&mut self) -> &mut Vec<T> {
        &mut self.items
    }
}

impl<T> core::ops::Deref for Stream<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl<T> Extend<T> for Stream<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<T: core::fmt::Debug> core::fmt::Debug for Stream<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(&self.items).finish()
    }
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for super::Stream<T> {}
}

/// The outputs a consumer may stream: [`Stream<T>`] only (sealed).
///
/// `declare_context!` asks for it on the output of a system another one
/// streams.
///
/// ```
/// fn item_of<O: ecs::traits::StreamOutput<Item = u32>>() {}
/// item_of::<ecs::Stream<u32>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "a streamed system's output is `{Self}`, not an `ecs::Stream`",
    label = "declared here",
    note = "declare the producer's output as `output: ecs::Stream<Item>`, and push items with `data.output().push(item)`"
)]
pub trait StreamOutput: sealed::Sealed + Default + Send + Sync + 'static {
    /// What the stream carries.
    type Item: Send + Sync + 'static;
    /// The stream itself.
    // Hidden: called only by the runtime (sealed trait).
    #[doc(hidden)]
    fn as_stream(&mut self) -> &mut Stream<Self::Item>;
}

impl<T: Send + Sync + 'static> StreamOutput for Stream<T> {
    type Item = T;
    #[inline]
    fn as_stream(&mut self) -> &mut Stream<T> {
        self
    }
}

/// A system that consumes another system's [`Stream`] while that system
/// runs: declared with `stream: [producer]`.
///
/// A streamed run calls the consumer's [`before`](System::before), then
/// [`consume`](Consume::consume) once per item, as the producer's subtasks
/// push them, then [`process`](System::process) once, after the last item,
/// then [`after`](System::after). The consumer runs on one thread (the
/// caller's: `parallelism: none`); the producer's subtasks run on the
/// others, and on the consumer's thread when it has no item to take.
///
/// # Ordering
/// - Items of one producer subtask arrive in the order it pushed them.
/// - On two or more threads, items of different subtasks interleave in an
///   order that depends on thread timing: batches of [`BATCH`](Self::BATCH)
///   items from the helpers' subtasks, and whole subtasks the consumer's
///   thread ran itself. A consumer whose result must not depend on timing
///   combines items in an order-independent way (sums, counts, or per-item
///   writes to distinct places), or sorts what it gathered in `process`.
/// - On one thread, subtask by subtask in index order: subtask 0's items,
///   then subtask 1's, ..., each consumed right after its subtask ran (with
///   `parallelism: none` on the producer, after the producer). This order
///   does not depend on timing.
///
/// The consumer cannot read its producer's outputs or state (`outputs`,
/// `system`): they are being written while it runs, so the producer is
/// not among the systems it depends on.
///
/// Streams run under [`run_all`](crate::Step::run_all) and
/// [`run_from`](crate::Step::run_from). When the consumer runs and its
/// producer does not (`run_from::<(Consumer,)>`), the consumer runs alone,
/// with no item: `before`, `process`, `after`. Under
/// [`run_adapted`](crate::Step::run_adapted), which runs each system with
/// the code its adapter gives, nothing streams: the producer's items stay
/// in its outputs.
///
/// # Panics
/// A panic in the producer or in the consumer reaches the caller of the
/// step once both sides have stopped: items not consumed are dropped, each
/// once, and neither system's `after` runs (as for any system whose subtask
/// panicked). A consumer that panics stops the stream: producer subtasks
/// not started are skipped and items pushed later are dropped.
///
/// # Examples
/// ```
/// use ecs::{Consume, Data, Stream, System};
///
/// pub struct Position(pub f32);
///
/// /// Streams the position of every entity past 10.
/// #[derive(Default)]
/// pub struct FindFar;
/// /// Sums what it is sent, while `FindFar` still runs.
/// #[derive(Default)]
/// pub struct Total {
///     pub sum: f32,
///     pub items: usize,
/// }
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems {
///             find: FindFar { read: [Position], output: Stream<f32>, parallelism: split_every(64) }
///             total: Total { stream: [find] }
///         }
///     }
/// }
///
/// impl System<World> for FindFar {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         let mut far = Vec::new();
///         data.for_each::<&Position>(|p| if p.0 > 10.0 { far.push(p.0) });
///         data.output().extend(far);
///     }
/// }
///
/// impl System<World> for Total {
///     fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
/// }
///
/// impl Consume<World, f32> for Total {
///     fn consume(&mut self, _: &mut Data<'_, World, Self>, x: f32, _: &()) {
///         self.sum += x;
///         self.items += 1;
///     }
/// }
///
/// let mut world = World::with_threads(Default::default(), Some(2));
/// world.step(|p| {
///     for i in 0..1000 {
///         p.spawn((Position(i as f32 / 10.0),)).unwrap();
///     }
/// });
/// world.step(|p| p.run_all(&()));
/// assert_eq!(world.system::<Total>().items, 899);
/// assert!(world.outputs::<FindFar>().iter().all(|s| s.is_empty()));
/// ```
pub trait Consume<Cx: ContextDecl, T, A: ?Sized = ()>: System<Cx, A> {
    /// Items a producer subtask gathers before sending them as one batch.
    const BATCH: usize = 64;
    /// Items the queue holds before a producer subtask waits for the
    /// consumer (back-pressure); a batch larger than this still goes to
    /// an empty queue.
    const CAPACITY: usize = 1024;

    /// Takes one item of the producer's stream.
    ///
    /// # Examples
    /// See [the trait's example](Consume), which implements it.
    fn consume(&mut self, data: &mut Data<'_, Cx, Self>, item: T, args: &A);
}

/// What `declare_context!` asks of a consumer whose producer's output is
/// `O`: [`Consume`] of the items of `O`, which must be a [`Stream`].
///
/// Implemented for every [`Consume`] of a [`Stream`]'s items (and nothing
/// else); written on the output type rather than on its items, so that a
/// producer whose output is no `Stream` fails at one place, the check on
/// its `output` type, rather than in every bound that names the items.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "system `{Self}` streams a system whose output is `{O}`, but does not consume its items",
    label = "no `impl ecs::Consume<{Cx}, Item, {A}> for {Self}`",
    note = "implement `ecs::Consume<{Cx}, Item, {A}>` for `{Self}`, where the producer's output is `ecs::Stream<Item>`"
)]
pub trait Consumes<Cx: ContextDecl, O, A: ?Sized>: System<Cx, A> {
    /// The items of `O`.
    type Item: Send + Sync + 'static;
    /// [`Consume::BATCH`].
    const BATCH: usize;
    /// [`Consume::CAPACITY`].
    const CAPACITY: usize;
    /// [`Consume::consume`].
    fn consume_item(&mut self, data: &mut Data<'_, Cx, Self>, item: Self::Item, args: &A);
    /// The stream `O` is.
    fn stream(output: &mut O) -> &mut Stream<Self::Item>;
}

impl<Cx: ContextDecl, T: Send + Sync + 'static, A: ?Sized, C: Consume<Cx, T, A>> Consumes<Cx, Stream<T>, A> for C {
    type Item = T;
    const BATCH: usize = <C as Consume<Cx, T, A>>::BATCH;
    const CAPACITY: usize = <C as Consume<Cx, T, A>>::CAPACITY;
    #[inline]
    fn consume_item(&mut self, data: &mut Data<'_, Cx, Self>, item: T, args: &A) {
        self.consume(data, item, args);
    }
    #[inline]
    fn stream(output: &mut Stream<T>) -> &mut Stream<T> {
        output
    }
}

/// The queue between a producer's subtasks and its consumer, for one run.
///
/// Each item is owned by exactly one place at a time: a subtask's
/// `Stream`, this queue, or the consumer's vector, so each is dropped (or
/// consumed) once, wherever a panic stops the run.
pub(crate) struct Channel<T> {
    state: Mutex<Queue<T>>,
    /// Rung for the consumer: items were queued, a subtask finished, or the
    /// run stops.
    ready: Condvar,
    /// Rung for producers: the consumer took the queue, or left.
    room: Condvar,
    /// `Consume::BATCH`, at least 1.
    pub(crate) batch: usize,
    capacity: usize,
    /// Counts batches queued, subtasks finished and stops, so that the
    /// consumer can watch for news without the lock before it sleeps.
    news: AtomicUsize,
    /// Counts takes and the consumer's leaving, which producers waiting for
    /// room watch the same way.
    room_news: AtomicUsize,
}

/// Rounds a side watches for news before it sleeps (the consumer for items,
/// a producer for room): the first `SPIN_HINTS` with a spin hint, the rest
/// yielding the core, as the team's idle threads do. A sleep costs a
/// context switch, and waking up again waits for a core: under load,
/// milliseconds (the stream benchmark's producer slept for room three to
/// six times a run when it did not watch first).
const SPINS: u32 = 256;
const SPIN_HINTS: u32 = 64;

struct Queue<T> {
    /// Items sent and not taken, in the order their batches arrived.
    items: Vec<T>,
    /// Producer subtasks that ended (ran, panicked, or were skipped).
    finished: usize,
    /// The consumer left (it finished, or panicked): batches sent from now
    /// on are dropped instead of queued.
    closed: bool,
    /// A side panicked: subtasks not started are skipped, and the consumer
    /// stops taking items.
    stop: bool,
}

/// What [`Channel::take`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Taken {
    /// Items, now in the caller's vector.
    Items,
    /// No item now, but a subtask still runs.
    Empty,
    /// Every subtask finished and every item was taken, or the run stops.
    Done,
}

impl<T> Channel<T> {
    pub(crate) fn new(batch: usize, capacity: usize) -> Self {
        Self {
            state: Mutex::new(Queue {
                items: Vec::new(),
                finished: 0,
                closed: false,
                stop: false,
            }),
            ready: Condvar::new(),
            room: Condvar::new(),
            batch: batch.max(1),
            capacity,
            news: AtomicUsize::new(0),
            room_news: AtomicUsize::new(0),
        }
    }

    /// Moves `batch`'s items to the queue, in order, waiting while the queue
    /// holds `capacity` items and is not empty; drops them (here, with no
    /// lock held) if the consumer left. `batch` keeps its memory.
    pub(crate) fn send(&self, batch: &mut Vec<T>) {
        let mut queue = self.state.lock();
        let mut watched = false;
        loop {
            if queue.closed {
                drop(queue);
                batch.clear();
                return;
            }
            if queue.items.is_empty() || queue.items.len() + batch.len() <= self.capacity {
                queue.items.append(batch);
                self.news.fetch_add(1, Ordering::Release);
                drop(queue);
                self.ready.notify_one();
                return;
            }
            if watched {
                self.room.wait(&mut queue);
            } else {
                // Full: watch for the consumer's next take, then look again
                // (and sleep only if there is still no room).
                let seen = self.room_news.load(Ordering::Acquire);
                drop(queue);
                watch(&self.room_news, seen);
                watched = true;
                queue = self.state.lock();
            }
        }
    }

    /// Swaps the queue's items into `out` (which must be empty) when there
    /// are any. With `wait`, sleeps until there are items, or `subtasks`
    /// have finished, or the run stops.
    pub(crate) fn take(&self, out: &mut Vec<T>, subtasks: usize, wait: bool) -> Taken {
        self.take_until(out, subtasks, wait, None)
    }

    /// [`take`](Self::take), waiting at most until `deadline`.
    pub(crate) fn take_until(
        &self,
        out: &mut Vec<T>,
        subtasks: usize,
        wait: bool,
        deadline: Option<std::time::Instant>,
    ) -> Taken {
        debug_assert!(out.is_empty());
        if wait {
            watch(&self.news, self.news.load(Ordering::Acquire));
        }
        let mut queue = self.state.lock();
        loop {
            if queue.stop {
                return Taken::Done;
            }
            if !queue.items.is_empty() {
                core::mem::swap(&mut queue.items, out);
                self.room_news.fetch_add(1, Ordering::Release);
                drop(queue);
                self.room.notify_all();
                return Taken::Items;
            }
            if queue.finished >= subtasks {
                return Taken::Done;
            }
            if !wait {
                return Taken::Empty;
            }
            match deadline {
                Some(deadline) => {
                    if self.ready.wait_until(&mut queue, deadline).timed_out() {
                        return Taken::Empty;
                    }
                }
                None => self.ready.wait(&mut queue),
            }
        }
    }

    /// Counts one producer subtask finished; with `panicked`, stops the run.
    pub(crate) fn finish_subtask(&self, panicked: bool) {
        let mut queue = self.state.lock();
        queue.finished += 1;
        queue.stop |= panicked;
        self.news.fetch_add(1, Ordering::Release);
        drop(queue);
        self.ready.notify_one();
    }

    /// Whether the run stops (a side panicked).
    pub(crate) fn stopped(&self) -> bool {
        self.state.lock().stop
    }

    /// The consumer leaves: producers waiting for room wake, and batches
    /// sent from now on are dropped; with `panicked`, subtasks not started
    /// are skipped.
    pub(crate) fn close(&self, panicked: bool) {
        let mut queue = self.state.lock();
        queue.closed = true;
        queue.stop |= panicked;
        self.room_news.fetch_add(1, Ordering::Release);
        drop(queue);
        self.room.notify_all();
    }
}

/// Watches `news` a little without a lock, until it moves past `seen` (see
/// [`SPINS`]).
fn watch(news: &AtomicUsize, seen: usize) {
    for round in 0..SPINS {
        if news.load(Ordering::Acquire) != seen {
            return;
        }
        if round < SPIN_HINTS {
            core::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    //! The queue alone, on real threads: small enough for Miri
    //! (`cargo +nightly miri test -p ecs-core --lib stream`).
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts drops, so a test can check each item is dropped once.
    struct Counted<'a>(u32, &'a AtomicUsize);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// One producer thread pushes `n` items through a queue of `capacity`,
    /// the consumer takes them: all arrive, in order.
    fn one_producer(n: u32, batch: usize, capacity: usize) {
        let channel = Arc::new(Channel::new(batch, capacity));
        std::thread::scope(|s| {
            let sink = channel.clone();
            s.spawn(move || {
                let mut stream = Stream::default();
                stream.attach(sink.clone());
                for i in 0..n {
                    stream.push(i);
                }
                stream.finish();
                sink.finish_subtask(false);
            });
            let mut got = Vec::new();
            let mut local = Vec::new();
            while channel.take(&mut local, 1, true) == Taken::Items {
                assert!(local.len() <= capacity.max(batch));
                got.append(&mut local);
            }
            assert_eq!(got, (0..n).collect::<Vec<_>>());
        });
    }

    #[test]
    fn items_arrive_in_order_through_a_small_queue() {
        one_producer(200, 4, 8);
        one_producer(50, 1, 1);
        one_producer(30, 16, 4); // batches larger than the queue still pass
    }

    #[test]
    fn two_producers_keep_their_own_order() {
        let channel = Arc::new(Channel::new(3, 6));
        std::thread::scope(|s| {
            for p in 0..2u32 {
                let sink = channel.clone();
                s.spawn(move || {
                    let mut stream = Stream::default();
                    stream.attach(sink.clone());
                    for i in 0..60 {
                        stream.push((p, i));
                    }
                    stream.finish();
                    sink.finish_subtask(false);
                });
            }
            let mut got = Vec::new();
            let mut local = Vec::new();
            while channel.take(&mut local, 2, true) == Taken::Items {
                got.append(&mut local);
            }
            for p in 0..2 {
                let mine: Vec<u32> = got.iter().filter(|x| x.0 == p).map(|x| x.1).collect();
                assert_eq!(mine, (0..60).collect::<Vec<_>>());
            }
        });
    }

    #[test]
    fn a_closed_queue_drops_what_is_sent_and_wakes_waiting_producers() {
        let drops = AtomicUsize::new(0);
        let channel = Arc::new(Channel::new(2, 2));
        std::thread::scope(|s| {
            let sink = channel.clone();
            let drops = &drops;
            let producer = s.spawn(move || {
                let mut stream = Stream::default();
                stream.attach(sink.clone());
                // Fills the queue, then waits for room until the close.
                for i in 0..20 {
                    stream.push(Counted(i, drops));
                }
                stream.finish();
                sink.finish_subtask(false);
            });
            // The consumer takes one batch, then leaves.
            let mut local = Vec::new();
            assert_eq!(channel.take(&mut local, 1, true), Taken::Items);
            let taken = local.len();
            assert_eq!(local[0].0, 0, "the first item first");
            drop(local);
            channel.close(true);
            producer.join().unwrap();
            drop(channel);
            assert!(taken > 0);
        });
        assert_eq!(drops.load(Ordering::SeqCst), 20, "every item dropped once");
    }

    #[test]
    fn a_panicking_subtask_stops_the_consumer() {
        let channel: Channel<u32> = Channel::new(4, 4);
        channel.finish_subtask(true);
        assert!(channel.stopped());
        let mut local = Vec::new();
        assert_eq!(
            channel.take(&mut local, 2, true),
            Taken::Done,
            "does not wait for the other subtask"
        );
    }

    #[test]
    fn the_consumer_is_told_when_nothing_is_queued_yet() {
        let channel: Channel<u32> = Channel::new(4, 4);
        let mut local = Vec::new();
        assert_eq!(channel.take(&mut local, 1, false), Taken::Empty);
        channel.finish_subtask(false);
        assert_eq!(channel.take(&mut local, 1, false), Taken::Done);
    }
}
