//! Prints what `declare_context!` made of the particle simulation's
//! declaration: a plain-text summary and the dependency graph in Graphviz
//! DOT (components included). With a path argument, also writes the DOT
//! there; render it with `dot -Tpng graph.dot -o graph.png`.
//!
//! `cargo run --example inspect -- graph.dot`

#[allow(dead_code)]
#[path = "particles/sim.rs"]
mod sim;

use sim::*;

particle_context! {
    /// The particle simulation, as the main example declares it.
    pub context Particles {
        entities: fixed(400_000), inner_parallelism: allow, threads: 1
    }
}

fn main() -> std::io::Result<()> {
    let ctx = Particles::new();
    println!("{}", ctx.summary());
    let dot = ctx.dot(true);
    println!("{dot}");
    if let Some(path) = std::env::args().nth(1) {
        std::fs::write(&path, dot)?;
        eprintln!("wrote {path}");
    }
    Ok(())
}
