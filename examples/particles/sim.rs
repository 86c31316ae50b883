//! The simulation of `shared/particles.md`, ECST's benchmark: components, the
//! physics both implementations share, the system states, and
//! [`particle_context!`], which declares a context of those systems with the
//! settings it is given.
//!
//! Every computation on a particle is a function here, called by the systems
//! of the declared contexts and by the hand-written version alike, so the two
//! do the same floating-point operations in the same order and can be checked
//! against each other bit for bit.

use std::sync::LazyLock;

use rand::{RngExt, SeedableRng};

/// Width of the box particles live in.
pub const WIDTH: f32 = 1440.0;
/// Height of the box; +y points down.
pub const HEIGHT: f32 = 900.0;
/// Time step of every simulation step.
pub const DT: f32 = 0.04;
/// Side of a broad-phase grid cell.
pub const CELL_SIZE: f32 = 8.0;
/// Padding cells on each side of the grid.
pub const PADDING: usize = 2;
/// Grid columns: 1440 / 8 plus the padding, 184.
pub const GRID_WIDTH: usize = WIDTH as usize / CELL_SIZE as usize + 2 * PADDING;
/// Grid rows: 900 / 8 plus the padding, 116.
pub const GRID_HEIGHT: usize = HEIGHT as usize / CELL_SIZE as usize + 2 * PADDING;
/// Steps after which every particle is dead: life < 25 at 0.04 per step.
pub const MAX_STEPS: usize = 625;
/// Cells a particle is entered in at most: 3 on each axis, since its
/// diameter is below a cell's side.
pub const MAX_CELLS_PER_PARTICLE: usize = 9;
/// Particles per subtask of `collision`, with inner parallelism.
///
/// An entity tests only the neighbours with smaller ids, so the work per
/// entity grows with its id: split in one half per core, the high half does
/// about three times the narrow phase of the low one and its thread leaves
/// the other idle. Blocks of this size, taken by whichever thread is free,
/// even that out. The declaration's `split_every(8_192)` must say the same
/// (a test checks it).
pub const COLLISION_BLOCK: usize = 8_192;
/// Triangles of the fan that draws one particle.
pub const FAN_TRIANGLES: usize = 5;
/// Vertices the render system builds per particle.
pub const VERTICES_PER_PARTICLE: usize = 3 * FAN_TRIANGLES;
/// How far contact resolution pushes two particles apart, as a fraction of
/// their overlap.
const SOFTNESS: f32 = 0.6;

/// Where a particle is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Position {
    /// Horizontal coordinate, 0 at the left wall.
    pub x: f32,
    /// Vertical coordinate, 0 at the top wall.
    pub y: f32,
}

/// How fast a particle moves, per unit of time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Velocity {
    /// Horizontal speed.
    pub x: f32,
    /// Vertical speed.
    pub y: f32,
}

/// How fast a particle's velocity changes: gravity.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Acceleration {
    /// Horizontal acceleration.
    pub x: f32,
    /// Vertical acceleration.
    pub y: f32,
}

/// A particle's colour; alpha fades with its life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Color {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// Opacity.
    pub a: u8,
}

/// A particle's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Circle {
    /// Radius, in [0.5, 2.5).
    pub radius: f32,
}

/// Time a particle has left to live.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Life(pub f32);

/// Every component of one particle: a wave's initial values, and what
/// [`Simulation::particles`] reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    /// Where it is.
    pub position: Position,
    /// How fast it moves.
    pub velocity: Velocity,
    /// Gravity.
    pub acceleration: Acceleration,
    /// Its colour.
    pub color: Color,
    /// Its shape.
    pub circle: Circle,
    /// Time it has left.
    pub life: Life,
}

/// One vertex of the triangles the render system builds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vertex {
    /// Where the vertex is.
    pub position: Position,
    /// Its colour.
    pub color: Color,
}

/// The spatial partition's output: entity `id` overlaps grid cell `cell`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellEntry<Id> {
    /// The particle.
    pub id: Id,
    /// Its cell, as an index into [`Grid`]'s cells.
    pub cell: u32,
}

/// The collision system's output: two particles touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact<Id> {
    /// The particle whose centre cell found the contact.
    pub e0: Id,
    /// The other one, whose id is smaller.
    pub e1: Id,
    /// Distance between their centres when the contact was found.
    pub dist: f32,
}

/// The broad-phase grid: for each cell, the particles that overlap it, in
/// the order the spatial partition entered them.
///
/// The cells are packed into one array (`ids`), cell `c` holding
/// `ids[starts[c]..starts[c + 1]]`: a lookup reads one offset pair and one
/// short run, instead of a cell `Vec` wherever the allocator put it.
pub struct Grid<Id> {
    starts: Vec<u32>,
    ids: Vec<Id>,
    /// Scratch for [`fill`](Self::fill): where each cell's next entry goes.
    next: Vec<u32>,
}

impl<Id: Copy> Default for Grid<Id> {
    fn default() -> Self {
        Self {
            starts: vec![0; GRID_WIDTH * GRID_HEIGHT + 1],
            ids: Vec::new(),
            next: Vec::new(),
        }
    }
}

impl<Id: Copy> Grid<Id> {
    /// Empties every cell, keeping their memory.
    pub fn clear(&mut self) {
        self.starts.fill(0);
        self.ids.clear();
    }

    /// Enters every entry of `batches` in its cell, batch after batch and in
    /// order within a batch, so that each cell lists its particles in the
    /// order they were entered; the grid must be empty.
    pub fn fill(&mut self, batches: &[Vec<CellEntry<Id>>]) {
        debug_assert!(self.ids.is_empty(), "fill an empty grid");
        let Some(&filler) = batches.iter().flatten().next() else {
            return;
        };
        for entry in batches.iter().flatten() {
            self.starts[entry.cell as usize + 1] += 1;
        }
        for c in 1..self.starts.len() {
            self.starts[c] += self.starts[c - 1];
        }
        let total = self.starts[self.starts.len() - 1] as usize;
        self.ids.resize(total, filler.id);
        self.next.clear();
        self.next.extend_from_slice(&self.starts[..self.starts.len() - 1]);
        for entry in batches.iter().flatten() {
            let slot = &mut self.next[entry.cell as usize];
            self.ids[*slot as usize] = entry.id;
            *slot += 1;
        }
    }

    /// The particles in the cell that contains `p`.
    #[inline]
    pub fn cell_at(&self, p: &Position) -> &[Id] {
        self.cells().cell_at(p)
    }

    /// The cells, as a copy of the arrays' places: copied into a local in
    /// a closure, it stays in registers, where `cell_at` through `&Grid`
    /// reloads them after every call the compiler cannot see into.
    #[inline]
    pub fn cells(&self) -> Cells<'_, Id> {
        Cells {
            starts: &self.starts,
            ids: &self.ids,
        }
    }
}

/// The cells of a [`Grid`], read-only.
#[derive(Clone, Copy)]
pub struct Cells<'a, Id> {
    starts: &'a [u32],
    ids: &'a [Id],
}

impl<'a, Id> Cells<'a, Id> {
    /// The particles in the cell that contains `p`.
    #[inline]
    pub fn cell_at(self, p: &Position) -> &'a [Id] {
        let c = cell_index(cell_coord(p.x, GRID_WIDTH), cell_coord(p.y, GRID_HEIGHT));
        &self.ids[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

/// Grid coordinate of a world coordinate: truncated, offset by the padding,
/// and kept inside the grid (a no-op for particles inside the box).
#[inline]
fn cell_coord(world: f32, cells: usize) -> usize {
    ((world / CELL_SIZE) as i32 + PADDING as i32).clamp(0, cells as i32 - 1) as usize
}

#[inline]
fn cell_index(cx: usize, cy: usize) -> usize {
    cy * GRID_WIDTH + cx
}

/// Calls `f` with every cell a particle is entered in: from trunc((x − r)/8)
/// to trunc((x + r)/8) + 1 on each axis, offset by the padding.
#[inline]
pub fn cells_of(p: &Position, c: &Circle, mut f: impl FnMut(u32)) {
    let (x0, x1) = (
        cell_coord(p.x - c.radius, GRID_WIDTH),
        cell_coord(p.x + c.radius, GRID_WIDTH),
    );
    let (y0, y1) = (
        cell_coord(p.y - c.radius, GRID_HEIGHT),
        cell_coord(p.y + c.radius, GRID_HEIGHT),
    );
    for cx in x0..=(x1 + 1).min(GRID_WIDTH - 1) {
        for cy in y0..=(y1 + 1).min(GRID_HEIGHT - 1) {
            f(cell_index(cx, cy) as u32);
        }
    }
}

/// `acceleration`: v += a·dt.
#[inline]
pub fn accelerate(v: &mut Velocity, a: &Acceleration, dt: f32) {
    v.x += a.x * dt;
    v.y += a.y * dt;
}

/// `velocity`: p += v·dt.
#[inline]
pub fn advance(p: &mut Position, v: &Velocity, dt: f32) {
    p.x += v.x * dt;
    p.y += v.y * dt;
}

/// `keep_in_bounds`: a particle past a wall is put back against it and its
/// velocity across that wall is reversed.
#[inline]
pub fn keep_in_bounds(p: &mut Position, v: &mut Velocity, c: &Circle) {
    let r = c.radius;
    if p.x - r < 0.0 {
        p.x = r;
        v.x = -v.x;
    } else if p.x + r > WIDTH {
        p.x = WIDTH - r;
        v.x = -v.x;
    }
    if p.y - r < 0.0 {
        p.y = r;
        v.y = -v.y;
    } else if p.y + r > HEIGHT {
        p.y = HEIGHT - r;
        v.y = -v.y;
    }
}

/// `collision`'s narrow phase: the distance between the centres when the two
/// circles touch.
#[inline]
pub fn touching(p0: &Position, c0: &Circle, p1: &Position, c1: &Circle) -> Option<f32> {
    let (dx, dy) = (p1.x - p0.x, p1.y - p0.y);
    let dist = (dx * dx + dy * dy).sqrt();
    (dist <= c0.radius + c1.radius).then_some(dist)
}

/// `solve_contacts`, for one contact: swap the velocities, then push the
/// particles apart along the line between their centres by 0.6 of their
/// overlap at the time of detection. Coincident centres (which the original
/// does not guard) only swap velocities.
#[inline]
pub fn solve(
    dist: f32,
    (p0, v0, c0): (&mut Position, &mut Velocity, &Circle),
    (p1, v1, c1): (&mut Position, &mut Velocity, &Circle),
) {
    core::mem::swap(v0, v1);
    let (dx, dy) = (p1.x - p0.x, p1.y - p0.y);
    let len = (dx * dx + dy * dy).sqrt();
    if len == 0.0 {
        return;
    }
    let depth = (c0.radius + c1.radius) - dist;
    let (sx, sy) = (dx / len * depth * SOFTNESS, dy / len * depth * SOFTNESS);
    p0.x -= sx;
    p0.y -= sy;
    p1.x += sx;
    p1.y += sy;
}

/// Corners of the fan that draws a circle: (cos, sin) of 2π·i/5, with π
/// rounded to 3.14 as in the original.
static FAN: LazyLock<[(f32, f32); FAN_TRIANGLES + 1]> = LazyLock::new(|| {
    #[expect(clippy::approx_constant, reason = "the original's τ is 6.28")]
    let step = 6.28_f32 / FAN_TRIANGLES as f32;
    core::array::from_fn(|i| ((step * i as f32).cos(), (step * i as f32).sin()))
});

/// The corner table of [`fan`], fetched once per subtask.
pub fn fan_table() -> &'static [(f32, f32); FAN_TRIANGLES + 1] {
    &FAN
}

/// `render`, for one particle: the 15 vertices of 5 triangles around it.
///
/// The vertices are built in an array and appended with one
/// `extend_from_slice`: one capacity check per particle rather than one per
/// triangle. That keeps it under LLVM's inlining threshold (cost 415 against
/// 487; 600 with one `extend` per triangle), so it is inlined into every
/// caller. Before, it was inlined into one only, whichever LLVM saw last in
/// the crate, where "last call to a local function" takes 15 000 off the
/// cost: the hand-written twin's `render` (`-Cremark=inline`).
#[inline]
pub fn fan(table: &[(f32, f32); FAN_TRIANGLES + 1], p: &Position, c: &Circle, color: &Color, out: &mut Vec<Vertex>) {
    let corner = |(cos, sin): (f32, f32)| Vertex {
        position: Position {
            x: c.radius * cos + p.x,
            y: c.radius * sin + p.y,
        },
        color: *color,
    };
    let centre = Vertex {
        position: *p,
        color: *color,
    };
    // A pattern of `FAN_TRIANGLES + 1` corners: it stops compiling if the
    // constant changes, and the triangles below with it. (Not `table.map`,
    // which stays a call.)
    let [t0, t1, t2, t3, t4, t5] = *table;
    let [c0, c1, c2, c3, c4, c5] = [corner(t0), corner(t1), corner(t2), corner(t3), corner(t4), corner(t5)];
    out.extend_from_slice(&[
        centre, c0, c1, centre, c1, c2, centre, c2, c3, centre, c3, c4, centre, c4, c5,
    ]);
}

/// `life`: one step older; whether the particle is now dead.
#[inline]
pub fn age(life: &mut Life, dt: f32) -> bool {
    life.0 -= dt;
    life.0 <= 0.0
}

/// `fade`: opacity is ten times the life left.
#[inline]
pub fn fade(color: &mut Color, life: &Life) {
    color.a = (life.0 * 10.0).clamp(0.0, 255.0) as u8;
}

/// The particles of one wave, from a generator seeded with `seed` (the
/// original re-seeds before each wave): position uniform over the box,
/// radius in [0.5, 2.5), velocity in [-3, 3) on each axis, acceleration
/// (0, 1), colour channels in [0, 255) with full opacity, life in [5, 25).
pub fn wave(count: usize, seed: u64) -> Vec<Particle> {
    let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let position = Position {
                x: rng.random_range(0.0..WIDTH),
                y: rng.random_range(0.0..HEIGHT),
            };
            let circle = Circle {
                radius: rng.random_range(0.5..2.5),
            };
            let velocity = Velocity {
                x: rng.random_range(-3.0..3.0),
                y: rng.random_range(-3.0..3.0),
            };
            let mut channel = || rng.random_range(0.0_f32..255.0) as u8;
            let color = Color {
                r: channel(),
                g: channel(),
                b: channel(),
                a: 255,
            };
            Particle {
                position,
                velocity,
                acceleration: Acceleration { x: 0.0, y: 1.0 },
                color,
                circle,
                life: Life(rng.random_range(5.0..25.0)),
            }
        })
        .collect()
}

/// A simulation the runner can drive: the library's contexts and the
/// hand-written version.
pub trait Simulation {
    /// Creates the particles of a wave.
    ///
    /// # Errors
    /// When a fixed-size context has no room left; the particles created
    /// before stay.
    fn spawn(&mut self, wave: &[Particle]) -> Result<(), ecs::ContextFull>;

    /// Runs every system once with [`DT`], then removes the particles that
    /// died.
    fn step(&mut self);

    /// Number of particles alive.
    fn alive(&self) -> usize;

    /// The living particles of the last wave, in the order they were created.
    fn particles(&mut self) -> Vec<Particle>;

    /// Contacts found by the last step.
    fn contacts(&mut self) -> usize;

    /// Worker threads.
    fn threads(&self) -> usize;
}

/// A context declared with [`particle_context!`], with the handles of the
/// last wave's particles.
pub struct Ecs<Cx> {
    /// The context.
    pub ctx: Cx,
    /// The particles of the last wave, in creation order.
    pub handles: Vec<ecs::Entity>,
}

impl<Cx: Default> Default for Ecs<Cx> {
    fn default() -> Self {
        Self::new(Cx::default())
    }
}

impl<Cx> Ecs<Cx> {
    /// A simulation in `ctx`, with no particles yet.
    pub fn new(ctx: Cx) -> Self {
        Self {
            ctx,
            handles: Vec::new(),
        }
    }
}

/// `acceleration`'s state.
#[derive(Default)]
pub struct Accelerate;
/// `velocity`'s state.
#[derive(Default)]
pub struct Move;
/// `keep_in_bounds`'s state.
#[derive(Default)]
pub struct KeepInBounds;
/// `spatial_partition`'s state: the grid, read by `collision`.
#[derive(Default)]
pub struct SpatialPartition {
    /// Particles by cell, filled after every run.
    pub grid: Grid<ecs::EntityId>,
}
/// `collision`'s state.
#[derive(Default)]
pub struct Collision;
/// `solve_contacts`'s state.
#[derive(Default)]
pub struct SolveContacts;
/// `render`'s state.
#[derive(Default)]
pub struct Render;
/// `life`'s state.
#[derive(Default)]
pub struct Age;
/// `fade`'s state.
#[derive(Default)]
pub struct Fade;

/// Declares a context of the particle simulation with the given settings,
/// implements its systems, and [`Simulation`] for [`Ecs`] of it.
///
/// The components, the system states and the functions of this module must
/// be in scope where it is invoked (`use crate::sim::*;`).
///
/// ```ignore
/// particle_context! {
///     /// Fixed storage, inner parallelism, one thread per core.
///     pub context FixedInner { entities: fixed(400_000), inner_parallelism: allow, threads: auto }
/// }
/// ```
macro_rules! particle_context {
    (
        $(#[$attr:meta])*
        $vis:vis context $name:ident {
            entities: $kind:ident($capacity:tt), inner_parallelism: $inner:ident, threads: $threads:tt $(,)?
        }
    ) => {
        ::ecs::declare_context! {
            $(#[$attr])*
            $vis context $name {
                settings { entities: $kind($capacity), inner_parallelism: $inner, threads: $threads }
                components {
                    Position, Velocity, Acceleration, Color, Circle, Life: contiguous;
                }
                systems {
                    acceleration: Accelerate {
                        read: [Acceleration], write: [Velocity], parallelism: split_evenly_per_core
                    }
                    velocity: Move {
                        read: [Velocity], write: [Position], after: [acceleration],
                        parallelism: split_evenly_per_core
                    }
                    keep_in_bounds: KeepInBounds {
                        read: [Circle], write: [Position, Velocity], after: [velocity],
                        parallelism: split_evenly_per_core
                    }
                    spatial_partition: SpatialPartition {
                        read: [Position, Circle], after: [keep_in_bounds],
                        parallelism: split_evenly_per_core, output: Vec<CellEntry<::ecs::EntityId>>
                    }
                    collision: Collision {
                        read: [Position, Circle], after: [spatial_partition],
                        // COLLISION_BLOCK: see there why not per core.
                        parallelism: split_every(8_192), output: Vec<Contact<::ecs::EntityId>>
                    }
                    solve_contacts: SolveContacts {
                        read: [Circle], write: [Position, Velocity], after: [collision], parallelism: none
                    }
                    // After `fade` too: `fade` writes the colour `render` reads.
                    render: Render {
                        read: [Position, Circle, Color], after: [solve_contacts, fade],
                        parallelism: split_evenly_per_core, output: Vec<Vertex>
                    }
                    life: Age { write: [Life], parallelism: split_evenly_per_core }
                    fade: Fade { read: [Life], write: [Color], after: [life], parallelism: split_evenly_per_core }
                }
            }
        }

        impl ::ecs::System<$name, f32> for Accelerate {
            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, dt: &f32) {
                data.for_each::<(&mut Velocity, &Acceleration)>(|(v, a)| accelerate(v, a, *dt));
            }
        }

        impl ::ecs::System<$name, f32> for Move {
            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, dt: &f32) {
                data.for_each::<(&mut Position, &Velocity)>(|(p, v)| advance(p, v, *dt));
            }
        }

        impl ::ecs::System<$name, f32> for KeepInBounds {
            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, _: &f32) {
                data.for_each::<(&mut Position, &mut Velocity, &Circle)>(|(p, v, c)| keep_in_bounds(p, v, c));
            }
        }

        impl ::ecs::System<$name, f32> for SpatialPartition {
            fn before(&mut self, _: &f32) {
                self.grid.clear();
            }

            fn reset_output(entries: &mut Vec<CellEntry<::ecs::EntityId>>) {
                entries.clear(); // keeps last step's memory
            }

            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, _: &f32) {
                let expected = MAX_CELLS_PER_PARTICLE * data.entity_count();
                data.output().reserve(expected);
                data.for_entities::<(::ecs::EntityId, &Position, &Circle)>(|view, (id, p, c)| {
                    let out = view.output();
                    cells_of(p, c, |cell| out.push(CellEntry { id, cell }));
                });
            }

            fn after(&mut self, outputs: &mut [Vec<CellEntry<::ecs::EntityId>>], _: &f32) {
                self.grid.fill(outputs);
            }
        }

        impl ::ecs::System<$name, f32> for Collision {
            fn reset_output(contacts: &mut Vec<Contact<::ecs::EntityId>>) {
                contacts.clear();
            }

            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, _: &f32) {
                let cells = data.system::<SpatialPartition>().grid.cells();
                // The walk is compiled once per way the lookup may test
                // membership, each with this closure inside
                // (`inline(always)`), where the way is a constant.
                type Item<'q> = (::ecs::EntityId, &'q Position, &'q Circle);
                data.for_entities_with_lookup::<Item, (&Position, &Circle)>(
                    #[inline(always)]
                    |view, (id, p0, c0), neighbours| {
                        // Copies, which stay in registers: the compiler cannot
                        // tell that pushing a contact leaves the columns (or the
                        // lookup's column places, or the grid's) alone. Only
                        // neighbours with smaller ids, so each pair once:
                        // `below` folds that test into the membership test.
                        let (p0, c0, below, cells) = (*p0, *c0, neighbours.below(id), cells);
                        for &other in cells.cell_at(&p0) {
                            let Some((p1, c1)) = below.get(other) else {
                                continue;
                            };
                            if let Some(dist) = touching(&p0, &c0, p1, c1) {
                                view.output().push(Contact { e0: id, e1: other, dist });
                            }
                        }
                    },
                );
            }
        }

        impl ::ecs::System<$name, f32> for SolveContacts {
            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, _: &f32) {
                let contacts = data.outputs::<Collision>();
                for contact in contacts.iter().flatten() {
                    let pair = [contact.e0, contact.e1];
                    if let Some([(p0, v0, c0), (p1, v1, c1)]) =
                        data.query_many::<(&mut Position, &mut Velocity, &Circle), 2>(pair)
                    {
                        solve(contact.dist, (p0, v0, c0), (p1, v1, c1));
                    }
                }
            }
        }

        impl ::ecs::System<$name, f32> for Render {
            fn reset_output(vertices: &mut Vec<Vertex>) {
                vertices.clear();
            }

            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, _: &f32) {
                let expected = VERTICES_PER_PARTICLE * data.entity_count();
                data.output().reserve(expected);
                let table = fan_table();
                data.for_entities::<(&Position, &Circle, &Color)>(|view, (p, c, color)| {
                    fan(table, p, c, color, view.output());
                });
            }
        }

        impl ::ecs::System<$name, f32> for Age {
            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, dt: &f32) {
                data.for_entities::<(::ecs::EntityId, &mut Life)>(|view, (id, life)| {
                    if age(life, *dt) {
                        view.kill(id);
                    }
                });
            }
        }

        impl ::ecs::System<$name, f32> for Fade {
            fn process(&self, data: &mut ::ecs::Data<'_, $name, Self>, _: &f32) {
                data.for_each::<(&mut Color, &Life)>(|(color, life)| fade(color, life));
            }
        }


        impl Simulation for Ecs<$name> {
            fn spawn(&mut self, wave: &[Particle]) -> Result<(), ::ecs::ContextFull> {
                let handles = &mut self.handles;
                handles.clear();
                handles.reserve(wave.len());
                self.ctx.step(|p| {
                    let bundles = wave.iter().map(|q| (q.position, q.velocity, q.acceleration, q.color, q.circle, q.life));
                    handles.extend(p.spawn_batch(bundles)?);
                    Ok(())
                })
            }

            fn step(&mut self) {
                self.ctx.step(|p| p.run_all(&DT));
            }

            fn alive(&self) -> usize {
                self.ctx.len()
            }

            fn particles(&mut self) -> Vec<Particle> {
                let handles = &self.handles;
                self.ctx.step(|p| {
                    handles
                        .iter()
                        .filter_map(|&e| {
                            Some(Particle {
                                position: *p.get(e)?,
                                velocity: *p.get(e)?,
                                acceleration: *p.get(e)?,
                                color: *p.get(e)?,
                                circle: *p.get(e)?,
                                life: *p.get(e)?,
                            })
                        })
                        .collect()
                })
            }

            fn contacts(&mut self) -> usize {
                self.ctx.outputs::<Collision>().iter().map(Vec::len).sum()
            }

            fn threads(&self) -> usize {
                self.ctx.threads()
            }
        }
    };
}
pub(crate) use particle_context;
