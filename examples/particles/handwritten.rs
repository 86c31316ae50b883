//! The same simulation written by hand, as the reference for what the
//! library costs: one `Vec` per component, indexed by particle, and the same
//! parallelism as the library's contexts through rayon directly.
//!
//! - Outer parallelism: `life` and `fade` run beside the chain from
//!   `acceleration` to `solve_contacts`; `render` waits for both.
//! - Inner parallelism (when on): every system except `solve_contacts` is
//!   split into one contiguous chunk per thread (`collision` into chunks of
//!   [`COLLISION_BLOCK`] particles, which rayon hands to whichever thread is
//!   free), each chunk with its own output buffer; outputs are read back in
//!   chunk order, so the result does not depend on the number of threads.
//! - Dead particles are swap-removed at the end of the step, from the back.
//!   A particle's index is its id for the grid and the contacts, and it is
//!   the id the library gives it, since the library packs ids the same way
//!   when it reclaims entities: both versions compute the same particles
//!   bit for bit, to the end of a wave.

use rayon::prelude::*;

use crate::sim::{
    accelerate, advance, age, cells_of, fade, fan, fan_table, keep_in_bounds, solve, touching, Acceleration, CellEntry,
    Circle, Color, Contact, Grid, Life, Particle, Position, Simulation, Velocity, Vertex, COLLISION_BLOCK, DT,
};

/// The hand-written simulation.
pub struct Handwritten {
    pool: rayon::ThreadPool,
    threads: usize,
    inner_parallelism: bool,
    position: Vec<Position>,
    velocity: Vec<Velocity>,
    acceleration: Vec<Acceleration>,
    color: Vec<Color>,
    circle: Vec<Circle>,
    life: Vec<Life>,
    /// Creation index in the wave, to report particles in creation order.
    created: Vec<u32>,
    grid: Grid<u32>,
    /// Per chunk: the spatial partition's cell entries, the contacts, the
    /// vertices, the indices of the particles that died.
    entries: Vec<Vec<CellEntry<u32>>>,
    contacts: Vec<Vec<Contact<u32>>>,
    vertices: Vec<Vec<Vertex>>,
    deaths: Vec<Vec<u32>>,
}

impl Handwritten {
    /// A simulation on `threads` worker threads, splitting every system into
    /// one chunk per thread when `inner_parallelism` holds.
    ///
    /// # Panics
    /// When the worker threads cannot be started.
    pub fn new(threads: usize, inner_parallelism: bool) -> Self {
        let threads = threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("handwritten-worker-{i}"))
            .build()
            .expect("cannot start the worker threads");
        Self {
            pool,
            threads,
            inner_parallelism,
            position: Vec::new(),
            velocity: Vec::new(),
            acceleration: Vec::new(),
            color: Vec::new(),
            circle: Vec::new(),
            life: Vec::new(),
            created: Vec::new(),
            grid: Grid::default(),
            entries: Vec::new(),
            contacts: Vec::new(),
            vertices: Vec::new(),
            deaths: Vec::new(),
        }
    }
}

impl Simulation for Handwritten {
    fn spawn(&mut self, wave: &[Particle]) -> Result<(), ecs::ContextFull> {
        let first = self.created.len();
        for (i, q) in wave.iter().enumerate() {
            self.position.push(q.position);
            self.velocity.push(q.velocity);
            self.acceleration.push(q.acceleration);
            self.color.push(q.color);
            self.circle.push(q.circle);
            self.life.push(q.life);
            self.created.push((first + i) as u32);
        }
        Ok(())
    }

    fn step(&mut self) {
        let n = self.position.len();
        let chunks = if self.inner_parallelism {
            self.threads.min(n).max(1)
        } else {
            1
        };
        let len = n.div_ceil(chunks).max(1);
        let count = n.div_ceil(len);
        let collision_len = if self.inner_parallelism {
            COLLISION_BLOCK
        } else {
            n.max(1)
        };
        let Self {
            pool,
            position,
            velocity,
            acceleration,
            color,
            circle,
            life,
            grid,
            entries,
            contacts,
            vertices,
            deaths,
            ..
        } = self;
        entries.resize_with(count, Vec::new);
        contacts.resize_with(n.div_ceil(collision_len), Vec::new);
        vertices.resize_with(count, Vec::new);
        deaths.resize_with(count, Vec::new);
        pool.install(|| {
            rayon::join(
                || {
                    velocity
                        .par_chunks_mut(len)
                        .zip(acceleration.par_chunks(len))
                        .for_each(|(v, a)| {
                            v.iter_mut().zip(a).for_each(|(v, a)| accelerate(v, a, DT));
                        });
                    position
                        .par_chunks_mut(len)
                        .zip(velocity.par_chunks(len))
                        .for_each(|(p, v)| {
                            p.iter_mut().zip(v).for_each(|(p, v)| advance(p, v, DT));
                        });
                    position
                        .par_chunks_mut(len)
                        .zip(velocity.par_chunks_mut(len))
                        .zip(circle.par_chunks(len))
                        .for_each(|((p, v), c)| {
                            p.iter_mut()
                                .zip(v)
                                .zip(c)
                                .for_each(|((p, v), c)| keep_in_bounds(p, v, c));
                        });

                    grid.clear();
                    entries.par_iter_mut().enumerate().for_each(|(chunk, out)| {
                        out.clear();
                        let start = chunk * len;
                        let end = (start + len).min(n);
                        for (i, (p, c)) in position[start..end].iter().zip(&circle[start..end]).enumerate() {
                            let id = (start + i) as u32;
                            cells_of(p, c, |cell| out.push(CellEntry { id, cell }));
                        }
                    });
                    grid.fill(entries);

                    let (position_ref, circle_ref, grid_ref) = (&*position, &*circle, &*grid);
                    contacts.par_iter_mut().enumerate().for_each(|(chunk, out)| {
                        out.clear();
                        let start = chunk * collision_len;
                        let end = (start + collision_len).min(n);
                        for i in start..end {
                            let (p0, c0) = (&position_ref[i], &circle_ref[i]);
                            for &other in grid_ref.cell_at(p0) {
                                let j = other as usize;
                                if j >= i {
                                    continue;
                                }
                                if let Some(dist) = touching(p0, c0, &position_ref[j], &circle_ref[j]) {
                                    out.push(Contact {
                                        e0: i as u32,
                                        e1: other,
                                        dist,
                                    });
                                }
                            }
                        }
                    });

                    for contact in contacts.iter().flatten() {
                        let (i, j) = (contact.e0 as usize, contact.e1 as usize);
                        let (mut p0, mut v0, mut p1, mut v1) = (position[i], velocity[i], position[j], velocity[j]);
                        solve(
                            contact.dist,
                            (&mut p0, &mut v0, &circle[i]),
                            (&mut p1, &mut v1, &circle[j]),
                        );
                        (position[i], velocity[i], position[j], velocity[j]) = (p0, v0, p1, v1);
                    }
                },
                || {
                    life.par_chunks_mut(len)
                        .zip(deaths.par_iter_mut())
                        .enumerate()
                        .for_each(|(chunk, (l, dead))| {
                            dead.clear();
                            for (i, l) in l.iter_mut().enumerate() {
                                if age(l, DT) {
                                    dead.push((chunk * len + i) as u32);
                                }
                            }
                        });
                    color.par_chunks_mut(len).zip(life.par_chunks(len)).for_each(|(c, l)| {
                        c.iter_mut().zip(l).for_each(|(c, l)| fade(c, l));
                    });
                },
            );

            let table = fan_table();
            vertices
                .par_iter_mut()
                .zip(
                    position
                        .par_chunks(len)
                        .zip(circle.par_chunks(len))
                        .zip(color.par_chunks(len)),
                )
                .for_each(|(out, ((p, c), color))| {
                    out.clear();
                    out.reserve(crate::sim::VERTICES_PER_PARTICLE * p.len());
                    for ((p, c), color) in p.iter().zip(c).zip(color) {
                        fan(table, p, c, color, out);
                    }
                });
        });

        // Deaths are in ascending index order; removing from the back keeps
        // the indices still to remove valid.
        for &i in deaths.iter().flatten().rev() {
            let i = i as usize;
            self.position.swap_remove(i);
            self.velocity.swap_remove(i);
            self.acceleration.swap_remove(i);
            self.color.swap_remove(i);
            self.circle.swap_remove(i);
            self.life.swap_remove(i);
            self.created.swap_remove(i);
        }
        if self.position.is_empty() {
            self.created.clear();
        }
    }

    fn alive(&self) -> usize {
        self.position.len()
    }

    fn particles(&mut self) -> Vec<Particle> {
        let mut order: Vec<usize> = (0..self.position.len()).collect();
        order.sort_by_key(|&i| self.created[i]);
        order
            .into_iter()
            .map(|i| Particle {
                position: self.position[i],
                velocity: self.velocity[i],
                acceleration: self.acceleration[i],
                color: self.color[i],
                circle: self.circle[i],
                life: self.life[i],
            })
            .collect()
    }

    fn contacts(&mut self) -> usize {
        self.contacts.iter().map(Vec::len).sum()
    }

    fn threads(&self) -> usize {
        self.threads
    }
}
