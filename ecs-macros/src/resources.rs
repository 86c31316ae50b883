//! Resources in the model: the `resources` block, the resources in systems'
//! `read` and `write` lists, and the rules about them (one `check_` function
//! per rule, as in `validate.rs`). Kept apart from components so the two
//! evolve separately.

use crate::ast::{Declaration, ParallelismExpr};
use crate::ctxt::Ctxt;
use crate::kw;
use crate::model::{path_key, Component, Model, System};
use proc_macro2::Span;
use syn::{Attribute, Ident, Path};

pub struct Resource<'a> {
    pub path: &'a Path,
    /// The type as written, for messages and docs.
    pub name: String,
    /// Its field in the generated `<Name>Resources` struct: the last
    /// segment of its path, in snake case.
    pub field: Ident,
    pub attrs: &'a [Attribute],
}

/// The resources of the declaration.
///
/// Rule: each resource is declared once, is not also a component, and its
/// field name in `<Name>Resources` is its own.
pub fn build<'a>(decl: &'a Declaration, components: &[Component], cx: &mut Ctxt) -> Vec<Resource<'a>> {
    let mut out: Vec<Resource<'a>> = Vec::new();
    for entry in &decl.resources {
        let name = path_key(&entry.path);
        if out.iter().any(|r| r.name == name) {
            cx.error_spanned(
                &entry.path,
                format!("resource `{name}` is declared twice; remove this one"),
            );
            continue;
        }
        if components.iter().any(|c| c.name == name) {
            cx.error_spanned(
                &entry.path,
                format!("`{name}` is declared both as a component and as a resource; keep one (a resource is one value for the whole context, a component one per entity)"),
            );
            continue;
        }
        let last = entry
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let field = Ident::new(
            &snake_case(&last),
            entry.path.segments.last().map_or(Span::call_site(), |s| s.ident.span()),
        );
        if let Some(prev) = out.iter().find(|r| r.field == field) {
            cx.error_spanned(
                &entry.path,
                format!(
                    "resources `{}` and `{name}` would both be field `{field}` of `{}Resources`; give one a type of another name",
                    prev.name, decl.name
                ),
            );
            continue;
        }
        out.push(Resource {
            path: &entry.path,
            name,
            field,
            attrs: &entry.attrs,
        });
    }
    out
}

/// `Time` -> `time`, `SpatialGrid` -> `spatial_grid`, `RNG` -> `rng`.
fn snake_case(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower = i > 0 && chars[i - 1].is_lowercase();
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || (next_lower && chars[i - 1].is_uppercase())) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    // A keyword (`Type` -> `type`) is written raw.
    if syn::parse_str::<Ident>(&out).is_err() {
        out = format!("r#{out}");
    }
    out
}

/// The resource a path in `read` or `write` names, if any.
pub fn resolve(resources: &[Resource], path: &Path) -> Option<usize> {
    let name = path_key(path);
    resources.iter().position(|r| r.name == name)
}

/// Records that `sys` reads (`key` is `read`) or writes resource `r`, named
/// by `path`.
///
/// Rule: a resource appears once in a list.
pub fn record_access<'a>(
    sys: &mut System<'a>,
    resources: &[Resource],
    key: &Ident,
    r: usize,
    path: &'a Path,
    cx: &mut Ctxt,
) {
    let list = if key == kw::READ {
        &mut sys.resource_reads
    } else {
        &mut sys.resource_writes
    };
    if list.iter().any(|&(x, _)| x == r) {
        cx.error_spanned(
            path,
            format!(
                "`{}` appears twice in `{key}` of system `{}`; remove one",
                resources[r].name, sys.name
            ),
        );
    } else {
        list.push((r, path));
    }
}

/// Rule: a resource is in `read` or in `write` of a system, not both.
pub fn check_read_write_overlap(sys: &mut System, resources: &[Resource], cx: &mut Ctxt) {
    let writes: Vec<usize> = sys.resource_writes.iter().map(|&(r, _)| r).collect();
    let name = sys.name;
    sys.resource_reads.retain(|&(r, path)| {
        if writes.contains(&r) {
            cx.error_spanned(
                path,
                format!(
                    "system `{name}` names resource `{}` in both `read` and `write`; `write` already allows reading, remove it from `read`",
                    resources[r].name
                ),
            );
            false
        } else {
            true
        }
    });
}

/// Rule: a system that writes a resource runs as one subtask
/// (`parallelism: none`, the default): several subtasks run at once, and a
/// resource is one value, which only one of them could hold mutably.
pub fn check_write_parallelism(sys: &System, resources: &[Resource], cx: &mut Ctxt) {
    let Some(&(r, path)) = sys.resource_writes.first() else {
        return;
    };
    if matches!(sys.parallelism, None | Some(ParallelismExpr::None)) {
        return;
    }
    cx.error_spanned(
        path,
        format!(
            "system `{}` writes resource `{}` but may split into subtasks that run at once, which cannot share one `&mut`; write it from a system with `parallelism: none`, or move it to `read` and make it thread-safe inside (a `Mutex` or atomics)",
            sys.name, resources[r].name
        ),
    );
}

/// Rule: two systems not ordered by the graph may run at the same time, so
/// neither may write a resource the other reads or writes (as for
/// components, in `validate::check_no_conflicts`).
pub fn check_no_conflicts(model: &Model, cx: &mut Ctxt) {
    let systems = &model.systems;
    let has = |s: &System, r: usize| s.resource_reads.iter().chain(&s.resource_writes).any(|&(x, _)| x == r);
    for b in 0..systems.len() {
        for a in 0..b {
            if model.ordered(a, b) || systems[a].unresolved_after || systems[b].unresolved_after {
                continue;
            }
            for (w, o) in [(a, b), (b, a)] {
                for &(r, _) in &systems[w].resource_writes {
                    let other = &systems[o];
                    if !has(other, r) {
                        continue;
                    }
                    let also_writes = other.resource_writes.iter().any(|&(x, _)| x == r);
                    if also_writes && w == b {
                        continue; // reported once, from the first system
                    }
                    let verb = if also_writes { "also writes" } else { "reads" };
                    cx.error_spanned(
                        systems[b].name,
                        format!(
                            "systems `{}` and `{}` may run at the same time, but `{}` writes resource `{}`, which `{}` {verb}; add `after: [{}]` to `{}` (or `after: [{}]` to `{}`)",
                            systems[a].name,
                            systems[b].name,
                            systems[w].name,
                            model.resources[r].name,
                            other.name,
                            systems[a].name,
                            systems[b].name,
                            systems[b].name,
                            systems[a].name,
                        ),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn snake_case_of_type_names() {
        assert_eq!(snake_case("Time"), "time");
        assert_eq!(snake_case("SpatialGrid"), "spatial_grid");
        assert_eq!(snake_case("RNG"), "rng");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("Grid2D"), "grid2d");
        assert_eq!(snake_case("Type"), "r#type");
    }
}
