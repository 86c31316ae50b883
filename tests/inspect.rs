//! A context describes itself: the DOT graph and the summary list exactly the
//! declaration's systems, components and edges.

use std::collections::BTreeSet;

pub struct Position(pub f32);
pub struct Velocity(pub f32);
pub struct Color(pub u8);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Draw;
#[derive(Default)]
pub struct Count;
#[derive(Default)]
pub struct Fade;

ecs::declare_context! {
    pub context Inspected {
        settings { entities: dynamic(16), threads: 1 }
        components { Position, Velocity: contiguous; Color: sparse_set; }
        systems {
            movement: Move { read: [Velocity], write: [Position] }
            fade: Fade { write: [Color] }
            draw: Draw { read: [Position, Color], after: [movement, fade], output: Vec<u32> }
            count: Count { read: [Velocity] }
        }
    }
}

/// `(from, to, style)` of every edge line of a DOT text.
fn edges(dot: &str) -> BTreeSet<(String, String, String)> {
    dot.lines()
        .filter(|l| l.contains("->"))
        .map(|l| {
            let l = l.trim().trim_end_matches(';');
            let (edge, attrs) = l.split_once(" [").unwrap_or((l, ""));
            let (from, to) = edge.split_once(" -> ").unwrap();
            let unquote = |s: &str| s.trim().trim_matches('"').to_string();
            (unquote(from), unquote(to), attrs.trim_end_matches(']').to_string())
        })
        .collect()
}

fn nodes(dot: &str) -> BTreeSet<String> {
    dot.lines()
        .filter(|l| l.contains("[label=") && !l.contains("->"))
        .map(|l| l.trim().split(" [").next().unwrap().trim_matches('"').to_string())
        .collect()
}

fn set<const N: usize>(items: [(&str, &str, &str); N]) -> BTreeSet<(String, String, String)> {
    items
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

#[test]
fn dot_has_every_system_and_edge_and_nothing_else() {
    let ctx = Inspected::new();
    let dot = ctx.dot(false);
    assert!(dot.starts_with("digraph \"Inspected\" {"));
    assert_eq!(
        nodes(dot),
        ["movement", "fade", "draw", "count"].map(String::from).into()
    );
    assert_eq!(edges(dot), set([("movement", "draw", ""), ("fade", "draw", "")]));
}

#[test]
fn dot_with_components_adds_reads_and_writes() {
    let ctx = Inspected::new();
    let dot = ctx.dot(true);
    assert_eq!(
        nodes(dot),
        [
            "movement",
            "fade",
            "draw",
            "count",
            "component Position",
            "component Velocity",
            "component Color"
        ]
        .map(String::from)
        .into()
    );
    assert_eq!(
        edges(dot),
        set([
            ("movement", "draw", ""),
            ("fade", "draw", ""),
            ("component Velocity", "movement", "style=dashed"),
            ("movement", "component Position", "style=bold"),
            ("fade", "component Color", "style=bold"),
            ("component Position", "draw", "style=dashed"),
            ("component Color", "draw", "style=dashed"),
            ("component Velocity", "count", "style=dashed"),
        ])
    );
}

#[test]
fn summary_lists_the_declaration() {
    let ctx = Inspected::new();
    let expected = "\
context Inspected
settings: entities dynamic(16), inner parallelism allowed, threads 1
components (3):
  Position: contiguous
  Velocity: contiguous
  Color: sparse_set
systems (4):
  movement: Move read [Velocity] write [Position] after []
  fade: Fade read [] write [Color] after []
  draw: Draw read [Position, Color] write [] after [movement, fade] output Vec<u32>
  count: Count read [Velocity] write [] after []
Levels (systems on one level may run together):
  0: movement, fade, count
  1: draw
Independent chains:
  movement -> fade -> draw (after movement, fade)
  count
";
    assert_eq!(ctx.summary(), expected);
}
