//! Streaming outputs (`stream: [producer]`): the consumer takes the
//! producer's items while its subtasks still run, on one and two threads,
//! with panics on either side and every item dropped once.

use ecs::{Consume, Data, Stream, System};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub struct Value(pub u32);
pub struct Sum(pub u64);

/// An item that counts its drops, and whether it was consumed.
pub struct Item {
    pub value: u32,
    pub drops: Arc<AtomicUsize>,
}

impl Drop for Item {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

/// Streams each entity's value, `per` items per entity.
#[derive(Default)]
pub struct Produce {
    pub drops: Arc<AtomicUsize>,
    /// Items made, to compare with drops.
    pub made: Arc<AtomicUsize>,
    pub per: u32,
    /// Panics in the subtask that meets this value.
    pub panic_at: Option<u32>,
    /// What `after` saw: the items left in the outputs.
    pub left_after: Option<usize>,
}

/// Sums the items; writes each entity's sum component at the end.
#[derive(Default)]
pub struct Consumer {
    pub sum: u64,
    pub items: usize,
    /// Items of each producer subtask, in arrival order (by value).
    pub seen: Vec<u32>,
    pub panic_at: Option<usize>,
    pub processed: usize,
    pub befores: usize,
    pub afters: usize,
}

ecs::declare_context! {
    pub context Pipe {
        components { Value, Sum: contiguous; }
        systems {
            produce: Produce { read: [Value], output: Stream<Item>, parallelism: split_every(8) }
            consume: Consumer { write: [Sum], stream: [produce] }
        }
    }
}

impl System<Pipe> for Produce {
    fn process(&self, data: &mut Data<'_, Pipe, Self>, _: &()) {
        let mut values = Vec::new();
        data.for_each::<&Value>(|v| values.push(v.0));
        for v in values {
            if self.panic_at == Some(v) {
                panic!("producer at {v}");
            }
            for _ in 0..self.per {
                let item = Item {
                    value: v,
                    drops: self.drops.clone(),
                };
                self.made.fetch_add(1, Ordering::SeqCst);
                data.output().push(item);
            }
        }
    }

    fn after(&mut self, outputs: &mut [Stream<Item>], _: &()) {
        self.left_after = Some(outputs.iter().map(|s| s.len()).sum());
    }
}

impl System<Pipe> for Consumer {
    fn before(&mut self, _: &()) {
        self.befores += 1;
    }

    fn process(&self, data: &mut Data<'_, Pipe, Self>, _: &()) {
        let sum = self.sum;
        data.for_each::<&mut Sum>(|s| s.0 = sum);
    }

    fn after(&mut self, _: &mut [()], _: &()) {
        self.afters += 1;
        self.processed += 1;
    }
}

impl Consume<Pipe, Item> for Consumer {
    const BATCH: usize = 3;
    const CAPACITY: usize = 6;

    fn consume(&mut self, _: &mut Data<'_, Pipe, Self>, item: Item, _: &()) {
        if self.panic_at == Some(self.items) {
            panic!("consumer at {}", self.items);
        }
        self.sum += u64::from(item.value);
        self.items += 1;
        self.seen.push(item.value);
    }
}

fn pipe(threads: usize, entities: u32, per: u32) -> (Pipe, Arc<AtomicUsize>, Vec<ecs::Entity>) {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut cx = Pipe::with_threads(Default::default(), Some(threads));
    cx.system_mut::<Produce>().drops = drops.clone();
    cx.system_mut::<Produce>().made = Arc::new(AtomicUsize::new(0));
    cx.system_mut::<Produce>().per = per;
    let es = cx.step(|p| (0..entities).map(|i| p.spawn((Value(i), Sum(0))).unwrap()).collect());
    (cx, drops, es)
}

#[test]
fn every_item_is_consumed_once_on_one_and_two_threads() {
    for threads in [1, 2] {
        let (mut cx, drops, es) = pipe(threads, 100, 5);
        for round in 1..=3u64 {
            cx.step(|p| p.run_all(&()));
            let c = cx.system::<Consumer>();
            assert_eq!(c.items, 500 * round as usize, "threads {threads}");
            assert_eq!(c.sum, 5 * (0..100u64).sum::<u64>() * round);
            assert_eq!(
                (c.befores, c.afters),
                (round as usize, round as usize),
                "the consumer ran once per run"
            );
            assert_eq!(
                drops.load(Ordering::SeqCst),
                500 * round as usize,
                "consumed items dropped once"
            );
            assert_eq!(cx.system::<Produce>().left_after, Some(0), "the outputs were drained");
            let want = c.sum;
            cx.step(|p| assert_eq!(p.get::<Sum>(es[7]).unwrap().0, want, "process ran after the last item"));
        }
    }
}

#[test]
fn items_of_one_subtask_arrive_in_order_and_one_thread_is_in_subtask_order() {
    for threads in [1, 2] {
        let (mut cx, _, _) = pipe(threads, 64, 4);
        cx.step(|p| p.run_all(&()));
        let seen = &cx.system::<Consumer>().seen;
        assert_eq!(seen.len(), 256);
        // Subtasks hold 8 entities each: within each, values ascend.
        for sub in 0..8u32 {
            let mine: Vec<u32> = seen.iter().copied().filter(|v| v / 8 == sub).collect();
            let want: Vec<u32> = (sub * 8..sub * 8 + 8).flat_map(|v| [v; 4]).collect();
            assert_eq!(mine, want, "threads {threads}, subtask {sub}");
        }
        if threads == 1 {
            let want: Vec<u32> = (0..64).flat_map(|v| [v; 4]).collect();
            assert_eq!(*seen, want, "one thread: subtask by subtask");
        }
    }
}

#[test]
fn a_producer_panic_reaches_the_caller_and_drops_every_item_once() {
    for threads in [1, 2] {
        for panic_at in [0, 13, 63] {
            let (mut cx, drops, _) = pipe(threads, 64, 3);
            let made = cx.system::<Produce>().made.clone();
            cx.system_mut::<Produce>().panic_at = Some(panic_at);
            let err = panic::catch_unwind(AssertUnwindSafe(|| cx.step(|p| p.run_all(&()))))
                .expect_err("the panic reaches the caller");
            assert_eq!(
                err.downcast_ref::<&str>()
                    .copied()
                    .map(str::to_owned)
                    .or_else(|| err.downcast_ref::<String>().cloned())
                    .unwrap(),
                format!("producer at {panic_at}")
            );
            assert_eq!(cx.system::<Consumer>().afters, 0, "no after on a panicking run");
            assert_eq!(cx.system::<Produce>().left_after, None);
            // The context keeps running: the next run streams everything.
            cx.system_mut::<Produce>().panic_at = None;
            let before = cx.system::<Consumer>().items;
            cx.step(|p| p.run_all(&()));
            assert_eq!(cx.system::<Consumer>().items - before, 192, "threads {threads}");
            drop(cx);
            let made = made.load(Ordering::SeqCst);
            assert!(made >= 192);
            assert_eq!(
                drops.load(Ordering::SeqCst),
                made,
                "threads {threads}, panic at {panic_at}: each item dropped once"
            );
        }
    }
}

#[test]
fn a_consumer_panic_reaches_the_caller_and_drops_every_item_once() {
    for threads in [1, 2] {
        for panic_at in [0, 7, 150] {
            let (mut cx, drops, _) = pipe(threads, 64, 3);
            let made = cx.system::<Produce>().made.clone();
            cx.system_mut::<Consumer>().panic_at = Some(panic_at);
            let err = panic::catch_unwind(AssertUnwindSafe(|| cx.step(|p| p.run_all(&()))))
                .expect_err("the panic reaches the caller");
            assert_eq!(
                err.downcast_ref::<String>().unwrap(),
                &format!("consumer at {panic_at}")
            );
            assert_eq!(cx.system::<Consumer>().items, panic_at);
            assert_eq!(cx.system::<Consumer>().afters, 0);
            cx.system_mut::<Consumer>().panic_at = None;
            let before = cx.system::<Consumer>().items;
            cx.step(|p| p.run_all(&()));
            assert_eq!(cx.system::<Consumer>().items - before, 192, "threads {threads}");
            drop(cx);
            let made = made.load(Ordering::SeqCst);
            assert_eq!(
                drops.load(Ordering::SeqCst),
                made,
                "threads {threads}, panic at {panic_at}: each item dropped once"
            );
        }
    }
}

#[test]
fn a_consumer_run_without_its_producer_runs_alone_with_no_item() {
    for threads in [1, 2] {
        let (mut cx, drops, es) = pipe(threads, 10, 1);
        cx.step(|p| p.run_from::<(Consumer,), ()>(&()));
        let c = cx.system::<Consumer>();
        assert_eq!((c.befores, c.afters, c.items), (1, 1, 0));
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        // A streamed run next, then the consumer alone again: its node ran
        // nothing the first time, and runs it alone the second.
        cx.step(|p| p.run_all(&()));
        assert_eq!(
            (cx.system::<Consumer>().befores, cx.system::<Consumer>().items),
            (2, 10)
        );
        cx.step(|p| p.run_from::<(Consumer,), ()>(&()));
        assert_eq!(
            (cx.system::<Consumer>().befores, cx.system::<Consumer>().afters),
            (3, 3)
        );
        cx.step(|p| assert_eq!(p.get::<Sum>(es[0]).unwrap().0, 45));
    }
}

/// Pushes one item per entity, one entity per subtask; on a helper thread,
/// waits after each push until the consumer took an item (60 s at most),
/// which only a consumer running at the same time can do.
#[derive(Default)]
pub struct Slow {
    pub consumer_thread: Arc<std::sync::Mutex<Option<std::thread::ThreadId>>>,
    pub consumed: Arc<AtomicUsize>,
    pub overlapped: Arc<AtomicUsize>,
}

#[derive(Default)]
pub struct Take {
    pub consumer_thread: Arc<std::sync::Mutex<Option<std::thread::ThreadId>>>,
    pub consumed: Arc<AtomicUsize>,
}

ecs::declare_context! {
    pub context Overlap {
        components { Value: contiguous; }
        systems {
            slow: Slow { read: [Value], output: Stream<u32>, parallelism: split_every(1) }
            take: Take { stream: [slow] }
        }
    }
}

impl System<Overlap> for Slow {
    fn process(&self, data: &mut Data<'_, Overlap, Self>, _: &()) {
        let on_helper = *self.consumer_thread.lock().unwrap() != Some(std::thread::current().id());
        let mut values = Vec::new();
        data.for_each::<&Value>(|v| values.push(v.0));
        for v in values {
            let before = self.consumed.load(Ordering::SeqCst);
            data.output().push(v);
            if on_helper {
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
                while self.consumed.load(Ordering::SeqCst) == before {
                    assert!(std::time::Instant::now() < deadline, "the consumer never took the item");
                    std::thread::yield_now();
                }
                self.overlapped.fetch_add(1, Ordering::SeqCst);
            } else {
                // Gives a helper time to wake and claim a subtask.
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }
}

impl System<Overlap> for Take {
    fn before(&mut self, _: &()) {
        *self.consumer_thread.lock().unwrap() = Some(std::thread::current().id());
    }
    fn process(&self, _: &mut Data<'_, Overlap, Self>, _: &()) {}
}

impl Consume<Overlap, u32> for Take {
    const BATCH: usize = 1;
    fn consume(&mut self, _: &mut Data<'_, Overlap, Self>, _: u32, _: &()) {
        self.consumed.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn on_two_threads_the_consumer_takes_items_while_the_producer_runs() {
    let thread = Arc::new(std::sync::Mutex::new(None));
    let consumed = Arc::new(AtomicUsize::new(0));
    let overlapped = Arc::new(AtomicUsize::new(0));
    let mut cx = Overlap::with_threads(
        OverlapSystems {
            slow: Slow {
                consumer_thread: thread.clone(),
                consumed: consumed.clone(),
                overlapped: overlapped.clone(),
            },
            take: Take {
                consumer_thread: thread,
                consumed: consumed.clone(),
            },
        },
        Some(2),
    );
    cx.step(|p| {
        for i in 0..32 {
            p.spawn((Value(i),)).unwrap();
        }
    });
    // Each run gives a helper 32 ms of subtasks to join; a helper's
    // subtask returns only once the consumer took its item.
    for _ in 0..20 {
        cx.step(|p| p.run_all(&()));
        if overlapped.load(Ordering::SeqCst) > 0 {
            break;
        }
    }
    assert!(overlapped.load(Ordering::SeqCst) > 0, "no helper ever ran a subtask");
    assert_eq!(consumed.load(Ordering::SeqCst) % 32, 0, "every run consumed every item");
}

#[test]
fn the_graph_shows_the_streaming_edge() {
    let cx = Pipe::new();
    assert!(
        cx.dot(false)
            .contains("\"produce\" -> \"consume\" [style=bold, color=blue, label=\"stream\"];"),
        "{}",
        cx.dot(false)
    );
    let summary = cx.summary();
    assert!(
        summary.contains("consume: Consumer read [] write [Sum] after [] stream [produce]"),
        "{summary}"
    );
    assert!(summary.contains("produce -> consume (streams produce)"), "{summary}");
}

/// Small cases for Miri (`cargo +nightly miri test --test stream miri_`;
/// two threads under Tree Borrows only, as the other two-thread cases:
/// rayon's crossbeam-epoch trips Stacked Borrows): a streamed run through a
/// queue of 6 items in batches of 3, then a panic on each side, every item
/// dropped once.
fn miri_case(threads: usize) {
    let (mut cx, drops, es) = pipe(threads, 24, 2);
    let made = cx.system::<Produce>().made.clone();
    cx.step(|p| p.run_all(&()));
    assert_eq!(cx.system::<Consumer>().items, 48);
    cx.step(|p| assert_eq!(p.get::<Sum>(es[3]).unwrap().0, 2 * (0..24).sum::<u64>()));
    cx.system_mut::<Consumer>().panic_at = Some(50);
    assert!(panic::catch_unwind(AssertUnwindSafe(|| cx.step(|p| p.run_all(&())))).is_err());
    cx.system_mut::<Consumer>().panic_at = None;
    cx.system_mut::<Produce>().panic_at = Some(17);
    assert!(panic::catch_unwind(AssertUnwindSafe(|| cx.step(|p| p.run_all(&())))).is_err());
    drop(cx);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        made.load(Ordering::SeqCst),
        "threads {threads}"
    );
}

#[test]
fn miri_one_thread() {
    miri_case(1);
}

#[test]
fn miri_two_threads() {
    miri_case(2);
}

/// Two producer/consumer pairs with nothing between them: on two threads
/// both consumers may run at once, each waiting for a helper to take its
/// producer's one subtask while the other thread is the other consumer.
/// The wait is bounded, so each runs its producer itself: no deadlock.
#[derive(Default)]
pub struct ProduceA;
#[derive(Default)]
pub struct ProduceB;
#[derive(Default)]
pub struct ConsumeA(pub u64);
#[derive(Default)]
pub struct ConsumeB(pub u64);

pub struct Other(pub u32);

ecs::declare_context! {
    pub context Pairs {
        components { Value, Other: contiguous; }
        systems {
            produce_a: ProduceA { read: [Value], output: Stream<u32> }
            consume_a: ConsumeA { stream: [produce_a] }
            produce_b: ProduceB { read: [Other], output: Stream<u32> }
            consume_b: ConsumeB { stream: [produce_b] }
        }
    }
}

macro_rules! pair {
    ($p:ident, $c:ident, $component:ident) => {
        impl System<Pairs> for $p {
            fn process(&self, data: &mut Data<'_, Pairs, Self>, _: &()) {
                let mut values = Vec::new();
                data.for_each::<&$component>(|v| values.push(v.0));
                data.output().extend(values);
            }
        }
        impl System<Pairs> for $c {
            fn process(&self, _: &mut Data<'_, Pairs, Self>, _: &()) {}
        }
        impl Consume<Pairs, u32> for $c {
            const BATCH: usize = 4;
            const CAPACITY: usize = 8;
            fn consume(&mut self, _: &mut Data<'_, Pairs, Self>, x: u32, _: &()) {
                self.0 += u64::from(x);
            }
        }
    };
}
pair!(ProduceA, ConsumeA, Value);
pair!(ProduceB, ConsumeB, Other);

#[test]
fn two_pairs_at_once_finish_on_two_threads() {
    let mut cx = Pairs::with_threads(Default::default(), Some(2));
    cx.step(|p| {
        for i in 0..500 {
            p.spawn((Value(i), Other(2 * i))).unwrap();
        }
    });
    for round in 1..=20u64 {
        cx.step(|p| p.run_all(&()));
        assert_eq!(cx.system::<ConsumeA>().0, round * (0..500u64).sum::<u64>());
        assert_eq!(cx.system::<ConsumeB>().0, round * 2 * (0..500u64).sum::<u64>());
    }
}
