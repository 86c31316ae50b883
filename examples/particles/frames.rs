//! Pictures of the simulation: one PNG per frame, particles drawn as
//! circles in their colour and fade, on black.

use std::error::Error;
use std::path::Path;

use plotters::prelude::{BitMapBackend, DrawingBackend, RGBAColor, BLACK};

use crate::sim::{Particle, HEIGHT, WIDTH};

/// Writes the particles as a `WIDTH` x `HEIGHT` PNG image at `path`.
///
/// # Errors
/// When the image cannot be encoded or written.
pub fn write(path: &Path, particles: &[Particle]) -> Result<(), Box<dyn Error>> {
    let mut backend = BitMapBackend::new(path, (WIDTH as u32, HEIGHT as u32));
    backend.draw_rect((0, 0), (WIDTH as i32, HEIGHT as i32), &BLACK, true)?;
    for q in particles {
        let c = q.color;
        let color = RGBAColor(c.r, c.g, c.b, f64::from(c.a) / 255.0);
        let centre = (q.position.x.round() as i32, q.position.y.round() as i32);
        backend.draw_circle(centre, q.circle.radius.round().max(1.0) as u32, &color, true)?;
    }
    backend.present()?;
    Ok(())
}
