//! What a context says about itself: the dependency graph as text (levels
//! and independent chains), as Graphviz DOT, and a plain-text summary. All are
//! computed here, at expansion time, and emitted as string constants.

use crate::model::{Limit, Model};

/// The graph as text: levels of systems that may run together, then the
/// independent chains.
pub fn graph_text(model: &Model) -> String {
    let name = |i: usize| model.systems[i].name.to_string();
    let mut out = String::from("Levels (systems on one level may run together):\n");
    for (l, level) in model.levels().iter().enumerate() {
        let names: Vec<String> = level.iter().map(|&i| name(i)).collect();
        out.push_str(&format!("  {l}: {}\n", names.join(", ")));
    }
    out.push_str("Independent chains:\n");
    for chain in model.chains() {
        let steps: Vec<String> = chain
            .iter()
            .map(|&i| {
                let streamed = model.systems[i].stream.map(|(p, _)| p);
                let deps: Vec<String> = model.systems[i]
                    .after
                    .iter()
                    .filter(|&&(d, _)| Some(d) != streamed)
                    .map(|&(d, _)| name(d))
                    .collect();
                // A consumer runs in its producer's node, while it runs.
                let mut what = Vec::new();
                if let Some(p) = streamed {
                    what.push(format!("streams {}", name(p)));
                }
                if !deps.is_empty() {
                    what.push(format!("after {}", deps.join(", ")));
                }
                if what.is_empty() {
                    name(i)
                } else {
                    format!("{} ({})", name(i), what.join("; "))
                }
            })
            .collect();
        out.push_str(&format!("  {}\n", steps.join(" -> ")));
    }
    out
}

/// A DOT string. Names are Rust identifiers and type paths: only `"` needs
/// escaping, and `\n` in labels is DOT's line break, kept as is.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

/// Graphviz DOT: one node per system, an edge from each dependency to its
/// dependent (bold, blue and labelled `stream` from a producer to the system
/// that streams it); with `components`, a node per component and edges for reads
/// (dashed, component to system) and writes (bold, system to component).
pub fn dot(model: &Model, components: bool) -> String {
    let mut out = format!("digraph {} {{\n  rankdir=LR;\n", quoted(&model.decl.name.to_string()));
    out.push_str("  node [shape=box, style=rounded];\n");
    for s in &model.systems {
        out.push_str(&format!(
            "  {} [label={}];\n",
            quoted(&s.name.to_string()),
            quoted(&format!("{}\\n{}", s.name, s.ty_name))
        ));
    }
    for s in &model.systems {
        for &(d, _) in &s.after {
            // A streaming edge: the consumer takes items while `d` runs.
            let style = if s.stream.is_some_and(|(p, _)| p == d) {
                " [style=bold, color=blue, label=\"stream\"]"
            } else {
                ""
            };
            out.push_str(&format!(
                "  {} -> {}{style};\n",
                quoted(&model.systems[d].name.to_string()),
                quoted(&s.name.to_string())
            ));
        }
    }
    if components {
        out.push_str("  node [shape=ellipse, style=filled, fillcolor=lightgrey];\n");
        for c in &model.components {
            out.push_str(&format!(
                "  {} [label={}];\n",
                quoted(&format!("component {}", c.name)),
                quoted(&format!("{}\\n{}", c.name, c.storage.keyword()))
            ));
        }
        for s in &model.systems {
            for &c in &s.reads {
                out.push_str(&format!(
                    "  {} -> {} [style=dashed];\n",
                    quoted(&format!("component {}", model.components[c].name)),
                    quoted(&s.name.to_string())
                ));
            }
            for &c in &s.writes {
                out.push_str(&format!(
                    "  {} -> {} [style=bold];\n",
                    quoted(&s.name.to_string()),
                    quoted(&format!("component {}", model.components[c].name))
                ));
            }
        }
    }
    if components {
        super::resources::dot(model, &mut out, quoted);
    }
    out.push_str("}\n");
    out
}

/// A plain-text summary: settings, components, systems, graph.
pub fn summary(model: &Model) -> String {
    let st = &model.settings;
    let mut out = format!("context {}\n", model.decl.name);
    let entities = match st.entities {
        Limit::Fixed(n) => format!("fixed({n})"),
        Limit::Dynamic(n) => format!("dynamic({n})"),
    };
    out.push_str(&format!(
        "settings: entities {entities}, inner parallelism {}, threads {}\n",
        if st.inner_parallelism { "allowed" } else { "denied" },
        st.threads.map_or("auto".to_string(), |n| n.to_string())
    ));
    out.push_str(&format!("components ({}):\n", model.components.len()));
    for c in &model.components {
        out.push_str(&format!("  {}: {}\n", c.name, c.storage.keyword()));
    }
    super::resources::summary(model, &mut out);
    out.push_str(&format!("systems ({}):\n", model.systems.len()));
    let names = |ids: &[usize], resources: &[(usize, &syn::Path)]| -> String {
        let v: Vec<&str> = ids
            .iter()
            .map(|&c| model.components[c].name.as_str())
            .chain(resources.iter().map(|&(r, _)| model.resources[r].name.as_str()))
            .collect();
        format!("[{}]", v.join(", "))
    };
    for s in &model.systems {
        let streamed = s.stream.map(|(p, _)| p);
        let after: Vec<String> = s
            .after
            .iter()
            .filter(|&&(d, _)| Some(d) != streamed)
            .map(|&(d, _)| model.systems[d].name.to_string())
            .collect();
        out.push_str(&format!(
            "  {}: {}{} read {} write {} after [{}]{}{}\n",
            s.name,
            s.ty_name,
            if s.columns.is_some() { " (column step)" } else { "" },
            names(&s.reads, &s.resource_reads),
            names(&s.writes, &s.resource_writes),
            after.join(", "),
            streamed.map_or(String::new(), |p| format!(" stream [{}]", model.systems[p].name)),
            s.output.map_or(String::new(), |t| format!(
                " output {}",
                quote::quote!(#t).to_string().replace(' ', "")
            ))
        ));
    }
    out.push_str(&graph_text(model));
    out
}
