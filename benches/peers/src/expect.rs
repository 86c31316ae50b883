//! What each workload must have done: every implementation reads its data
//! back after one iteration from a fresh set-up and hands it here, so a
//! benchmark that does nothing (or the wrong thing) fails before timing.

use crate::components::{heavy_position, matrix4, Position};
use crate::math;
use crate::workload::{FRAG_PER_TYPE, FRAG_TYPES, HEAVY, N};
use std::cell::RefCell;

/// The outcome of a check: what went wrong, if anything.
pub type Check = Result<(), String>;

thread_local! {
    /// The bits of every value the last check read back, for [`take_digest`].
    static DIGEST: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Adds values read back by a check to the digest.
fn record(values: impl IntoIterator<Item = u32>) {
    DIGEST.with(|d| d.borrow_mut().extend(values));
}

/// What the checks since the last call read back, as sorted bits: two
/// implementations that computed the same values (in any entity order) give
/// the same digest. `main` compares every implementation's with ecs's.
pub fn take_digest() -> Vec<u32> {
    let mut d = DIGEST.with(|d| std::mem::take(&mut *d.borrow_mut()));
    d.sort_unstable();
    d
}

/// Fails unless `got == want`.
pub fn count(what: &str, got: usize, want: usize) -> Check {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: {got} entities, expected {want}"))
    }
}

/// Fails unless every value is `want` and there are `n` of them.
fn all_equal<T: PartialEq + core::fmt::Debug + Bits>(
    what: &str,
    values: impl IntoIterator<Item = T>,
    want: T,
    n: usize,
) -> Check {
    let mut seen = 0;
    for v in values {
        record(v.bits());
        if v != want {
            return Err(format!("{what}: found {v:?}, expected {want:?}"));
        }
        seen += 1;
    }
    count(what, seen, n)
}

/// `simple_insert`: one world held `N` entities with all four components.
pub fn simple_insert(entities: usize) -> Check {
    record([entities as u32]);
    count("entities with Transform, Position, Rotation and Velocity", entities, N)
}

/// `simple_iter`: every position moved once by its velocity.
pub fn simple_iter(positions: impl IntoIterator<Item = Position>) -> Check {
    all_equal("positions after one step", positions, Position([2.0, 0.0, 0.0]), N)
}

/// `frag_iter`: every `Data` doubled once.
pub fn frag_iter(data: impl IntoIterator<Item = f32>) -> Check {
    all_equal("Data after one step", data, 2.0, FRAG_TYPES * FRAG_PER_TYPE)
}

/// `heavy_compute`: every position transformed once by the matrix, which
/// 100 inversions of a rotation leave (nearly) as it was.
pub fn heavy_compute(positions: impl IntoIterator<Item = Position>) -> Check {
    let want = math::transform_vector(&matrix4().0, heavy_position().0);
    let mut seen = 0;
    for p in positions {
        record(p.bits());
        if p.0.iter().zip(want).any(|(a, b)| (a - b).abs() > 1e-4) {
            return Err(format!("position after one step: {:?}, expected {want:?}", p.0));
        }
        seen += 1;
    }
    count("positions after one step", seen, HEAVY)
}

/// `add_remove`: the system reading `A` and `B` saw every entity after the
/// adds and none after the removes, and all still hold `A`.
pub fn add_remove(with_a: usize, with_b_after_add: usize, with_b_after_remove: usize) -> Check {
    record([with_a, with_b_after_add, with_b_after_remove].map(|n| n as u32));
    count("entities the system reading B saw after the adds", with_b_after_add, N)?;
    count(
        "entities the system reading B saw after the removes",
        with_b_after_remove,
        0,
    )?;
    count("entities with A at the end", with_a, N)
}

/// What `schedule` left, read back by query: `(A, B)` of every entity with
/// both, `(C, D)` and `(C, E)` likewise, and every `C`.
#[derive(Default)]
pub struct Schedule {
    pub ab: Vec<(f32, f32)>,
    pub cd: Vec<(f32, f32)>,
    pub ce: Vec<(f32, f32)>,
    pub c: Vec<f32>,
}

/// `schedule`: `ab`, `cd` and `ce` each swapped their pair once.
pub fn schedule(s: Schedule) -> Check {
    all_equal("(A, B) after one run", s.ab, (1.0, 0.0), 4 * N)?;
    all_equal("(C, D) after one run", s.cd, (3.0, 2.0), N)?;
    all_equal("(C, E) after one run", s.ce, (4.0, 2.0), N)?;
    let sum: f32 = s.c.iter().sum();
    record([s.c.len() as u32]);
    count("entities with C", s.c.len(), 3 * N)?;
    if sum == (2.0 + 3.0 + 4.0) * N as f32 {
        Ok(())
    } else {
        Err(format!("sum of C after one run: {sum}"))
    }
}

/// A value's bits, for the digest.
trait Bits {
    fn bits(&self) -> Vec<u32>;
}

impl Bits for f32 {
    fn bits(&self) -> Vec<u32> {
        vec![self.to_bits()]
    }
}

impl Bits for (f32, f32) {
    fn bits(&self) -> Vec<u32> {
        vec![self.0.to_bits(), self.1.to_bits()]
    }
}

impl Bits for Position {
    fn bits(&self) -> Vec<u32> {
        self.0.iter().map(|x| x.to_bits()).collect()
    }
}

/// `move_collide_render`: after one frame from the initial values, the
/// number of rectangles meeting the wall and the checksum of the positions,
/// as a plain loop over `initial` computes them.
pub fn move_collide_render(count: u32, checksum: u64) -> Check {
    use crate::libs::move_collide_render::{advance, hits, initial, ink, ENTITIES};
    record([count, checksum as u32, (checksum >> 32) as u32]);
    let (mut want_count, mut want_checksum) = (0, 0u64);
    for i in 0..ENTITIES {
        let (mut p, v, e) = initial(i);
        advance(&mut p, &v);
        want_count += hits(&p, &e);
        want_checksum = want_checksum.wrapping_add(ink(&p));
    }
    if want_count == 0 || want_count as usize == ENTITIES {
        return Err(format!(
            "the workload is degenerate: {want_count} of {ENTITIES} rectangles meet the wall"
        ));
    }
    if (count, checksum) == (want_count, want_checksum) {
        Ok(())
    } else {
        Err(format!(
            "after one frame: {count} collisions and checksum {checksum:#x}, expected {want_count} and {want_checksum:#x}"
        ))
    }
}

/// `fragmented` and `fragmented_churn`: after one iteration from a fresh
/// set-up, every entity's position (movers moved once) and how many
/// entities hold `F0` (the churn toggled it on every hundredth).
pub fn fragmented(
    churn: bool,
    positions: impl IntoIterator<Item = crate::libs::fragmented::Pos>,
    with_f0: usize,
) -> Check {
    use crate::libs::fragmented::{advance, is_churned, spec, ENTITIES};
    let mut want: Vec<u64> = Vec::with_capacity(ENTITIES);
    let mut want_f0 = 0;
    for i in 0..ENTITIES {
        let s = spec(i);
        let mut p = s.pos;
        if let Some(v) = &s.vel {
            advance(&mut p, v);
        }
        want.push((u64::from(p.0[0].to_bits()) << 32) | u64::from(p.0[1].to_bits()));
        let f0 = s.fillers & 1 != 0;
        want_f0 += usize::from(f0 != (churn && is_churned(i)));
    }
    let mut got: Vec<u64> = positions
        .into_iter()
        .map(|p| (u64::from(p.0[0].to_bits()) << 32) | u64::from(p.0[1].to_bits()))
        .collect();
    record(got.iter().flat_map(|&b| [b as u32, (b >> 32) as u32]));
    record([with_f0 as u32]);
    got.sort_unstable();
    want.sort_unstable();
    if got != want {
        return Err(format!(
            "positions after one iteration differ ({} read back, {} expected)",
            got.len(),
            want.len()
        ));
    }
    count("entities holding F0", with_f0, want_f0)
}

/// `save` and `load`: the world loaded from what was saved holds exactly
/// the entities saved, and the entity of each handle (or index) kept from
/// the set-up has the values it was given.
pub fn save_load(
    entities: usize,
    values: Vec<Option<(crate::libs::save_load::Position, crate::libs::save_load::Velocity)>>,
) -> Check {
    use crate::libs::save_load::{initial, ENTITIES};
    record([entities as u32]);
    count("entities after loading", entities, ENTITIES)?;
    count("entities read back by handle", values.len(), ENTITIES)?;
    for (i, got) in values.into_iter().enumerate() {
        let Some((p, v)) = got else {
            return Err(format!(
                "entity {i}: no entity, or one missing a component, after loading"
            ));
        };
        record(p.0.iter().chain(&v.0).map(|x| x.to_bits()));
        if (p, v) != initial(i) {
            return Err(format!(
                "entity {i} after loading: {:?}, expected {:?}",
                (p, v),
                initial(i)
            ));
        }
    }
    Ok(())
}
