//! Issue #25's five features together, from a crate outside the workspace:
//! seed 002's Move, Collision and Render systems over entities sorted by
//! component set (`layout: archetypes`), a named player, explosions with
//! several emitters each (`many`), and a `Liveness` handle read from another
//! thread while steps run. The systems' counts and checksum are checked
//! against plain loops over the same values.

use ecs::{Data, Entity, Layout, Liveness, NameError, System};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos2(pub [f32; 2]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vel2(pub [f32; 2]);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extent(pub [f32; 2]);
#[derive(Clone, Debug, PartialEq)]
pub struct Emitter {
    pub kind: &'static str,
    pub particles: u32,
}

const WALL: [f32; 4] = [20.0, 10.0, 50.0, 40.0];

fn hits(p: &Pos2, e: &Extent) -> u32 {
    let [x, y] = p.0;
    u32::from((x < WALL[2]) & (x + e.0[0] > WALL[0]) & (y < WALL[3]) & (y + e.0[1] > WALL[1]))
}

fn ink(p: &Pos2) -> u64 {
    (u64::from(p.0[0].to_bits()) << 32) | u64::from(p.0[1].to_bits())
}

#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Collide;
#[derive(Default)]
pub struct Render;
#[derive(Default)]
pub struct Emit;

ecs::declare_context! {
    pub context Scene {
        settings { entities: dynamic(16), threads: 2, inner_parallelism: allow, layout: archetypes }
        components {
            Pos2, Vel2, Extent: contiguous;
            /// Particle emitters: several per explosion.
            Emitter: many;
        }
        systems {
            movement: Move { read: [Vel2], write: [Pos2], parallelism: split_every(16) }
            collision: Collide { read: [Pos2, Extent], after: [movement], output: u32, parallelism: split_every(16) }
            render: Render { read: [Pos2], after: [collision], output: u64, parallelism: split_every(16) }
            emit: Emit { write: [Emitter] }
        }
    }
}

impl System<Scene> for Move {
    fn process(&self, data: &mut Data<'_, Scene, Self>, _: &()) {
        data.for_each::<(&mut Pos2, &Vel2)>(|(p, v)| {
            p.0[0] += v.0[0];
            p.0[1] += v.0[1];
        });
    }
}

impl System<Scene> for Collide {
    fn process(&self, data: &mut Data<'_, Scene, Self>, _: &()) {
        let mut count = 0;
        data.for_each::<(&Pos2, &Extent)>(|(p, e)| count += hits(p, e));
        *data.output() = count;
    }
}

impl System<Scene> for Render {
    fn process(&self, data: &mut Data<'_, Scene, Self>, _: &()) {
        let mut checksum = 0u64;
        data.for_each::<&Pos2>(|p| checksum = checksum.wrapping_add(ink(p)));
        // Systems look names up, read-only.
        if let Some(player) = data.named("player") {
            assert_eq!(data.name_of(player), Some("player"));
        }
        *data.output() = checksum;
    }
}

impl System<Scene> for Emit {
    fn process(&self, data: &mut Data<'_, Scene, Self>, _: &()) {
        data.for_each_instance::<&mut Emitter, ()>(|e, ()| e.particles += 1);
    }
}

/// Entity `i`: a mover, a wall piece that does not move, or decor that is
/// only drawn; interleaved, so each set is scattered through creation order.
fn spawn(p: &mut ecs::Step<'_, Scene>, i: usize) -> (Entity, Pos2, Option<Vel2>, Option<Extent>) {
    let pos = Pos2([(i % 16) as f32 * 4.0, (i / 16) as f32 * 4.0]);
    let vel = Vel2([(i % 5) as f32 - 2.0, (i % 3) as f32 - 1.0]);
    let ext = Extent([2.0 + (i % 3) as f32, 3.0]);
    match i % 3 {
        0 => (p.spawn((pos, vel, ext)).unwrap(), pos, Some(vel), Some(ext)),
        1 => (p.spawn((pos, ext)).unwrap(), pos, None, Some(ext)),
        _ => (p.spawn((pos,)).unwrap(), pos, None, None),
    }
}

fn main() {
    assert_eq!(<Scene as ecs::traits::ContextDecl>::SETTINGS.layout, Layout::Archetypes);
    let mut scene = Scene::new();
    let liveness: Liveness = scene.liveness();
    let (mut shadow, player, explosion, smoke) = scene.step(|p| {
        let shadow: Vec<_> = (0..300).map(|i| spawn(p, i)).collect();
        let player = shadow[0].0;
        p.set_name(player, "player").unwrap();
        assert_eq!(p.set_name(shadow[1].0, "player"), Err(NameError::Taken(player)));
        let explosion = p.spawn((Pos2([0.0, 0.0]),)).unwrap();
        let smoke = p.add_instance(explosion, Emitter { kind: "smoke", particles: 0 }).unwrap();
        p.add_instance(explosion, Emitter { kind: "sparks", particles: 0 }).unwrap();
        (shadow, player, explosion, smoke)
    });
    // Another thread watches the player while frames run.
    let watcher = std::thread::spawn({
        let liveness = liveness.clone();
        move || (0..1000).all(|_| liveness.is_alive(player))
    });
    for frame in 0..5 {
        let (count, checksum) = scene.step(|p| {
            p.run_all(&());
            let count: u32 = p.outputs::<Collide>().iter().sum();
            let checksum = p.outputs::<Render>().iter().fold(0u64, |s, &c| s.wrapping_add(c));
            (count, checksum)
        });
        // The same frame by hand.
        for (_, pos, vel, _) in &mut shadow {
            if let Some(v) = vel {
                pos.0[0] += v.0[0];
                pos.0[1] += v.0[1];
            }
        }
        let want_count: u32 = shadow.iter().filter_map(|(_, p, _, e)| e.map(|e| hits(p, &e))).sum();
        let want_checksum = shadow
            .iter()
            .map(|(_, p, _, _)| ink(p))
            .chain([ink(&Pos2([0.0, 0.0]))])
            .fold(0u64, |s, c| s.wrapping_add(c));
        assert_eq!((count, checksum), (want_count, want_checksum), "frame {frame}");
    }
    assert!(watcher.join().unwrap(), "the player stayed alive");
    scene.step(|p| {
        assert_eq!(p.named("player"), Some(player));
        assert_eq!(p.instance::<Emitter>(explosion, smoke).map(|e| e.particles), Some(5));
        // Every handle still reaches its own values after the sorting.
        for (e, pos, _, _) in &shadow {
            assert_eq!(p.get::<Pos2>(*e), Some(pos));
        }
        p.kill(player);
    });
    assert!(!liveness.is_alive(player));
    assert_eq!(scene.named("player"), None);
}
