//! Checks that need more than one item of the declaration. One `check_` (or
//! `resolve_`/`report_`) function per rule, each stating the rule; every
//! error is spanned on the offending token and says how to fix it.

use crate::ast::{ComponentEntry, SystemEntry};
use crate::ctxt::Ctxt;
use crate::kw;
use crate::model::{path_key, Component, ManyInner, Model, Storage, System};
use crate::suggest;
use syn::{Ident, Path};

/// Rule: `grouped` takes a parenthesised list of 2 to 8 components, and only
/// `grouped` takes one. Returns whether the entry may be stored as a group;
/// when not (reported), its components are stored as `contiguous`, so the
/// mistake gives this one error and nothing downstream.
pub fn check_group_shape(entry: &ComponentEntry, cx: &mut Ctxt) -> bool {
    let grouped = entry.strategy == kw::GROUPED;
    let n = entry.types.len();
    match (grouped, entry.parenthesised) {
        (true, None) => {
            cx.error_spanned(
                &entry.strategy,
                "`grouped` stores several components in one buffer: write them in parentheses, as in `(Color, Circle): grouped;`",
            );
            false
        }
        (true, Some(span)) if n < 2 => {
            cx.error_at(
                span,
                format!(
                    "a group holds 2 to 8 components, not {n}; for a single component write `{}: contiguous;`",
                    entry.types.iter().map(path_key).collect::<Vec<_>>().join(", ")
                ),
            );
            false
        }
        (true, Some(span)) if n > 8 => {
            cx.error_at(
                span,
                format!(
                    "a group holds 2 to 8 components, not {n}; split it into groups of at most 8 (or store some of them as `contiguous`)"
                ),
            );
            false
        }
        (false, Some(span)) if entry.strategy == kw::MANY => {
            cx.error_at(span, many_in_group_message(entry));
            true
        }
        (false, Some(span)) => {
            cx.error_at(
                span,
                format!(
                    "parentheses group components for the `grouped` strategy; write `{}: {}` without them, or use `grouped`",
                    entry.types.iter().map(path_key).collect::<Vec<_>>().join(", "),
                    entry.strategy
                ),
            );
            true
        }
        _ => true,
    }
}

/// Rule: `many` takes single components (a group stores one value of each
/// member per entity), and its sets live in `contiguous` (the default),
/// `sparse_set` or `hash_map`: not `tag` (zero-sized instances carry
/// nothing to tell apart), `grouped`, `many` or `custom`. A wrong inner
/// strategy (reported) is read as `contiguous`.
pub fn check_many(entry: &ComponentEntry, cx: &mut Ctxt) -> ManyInner {
    let Some(inner) = &entry.many_inner else {
        return ManyInner::Contiguous;
    };
    let name = || entry.types.iter().map(path_key).collect::<Vec<_>>().join(", ");
    match inner.to_string().as_str() {
        kw::CONTIGUOUS => return ManyInner::Contiguous,
        kw::SPARSE_SET => return ManyInner::SparseSet,
        kw::HASH_MAP => return ManyInner::HashMap,
        kw::TAG => cx.error_spanned(
            inner,
            format!(
                "a `tag` stores no data, so several instances of it would be indistinguishable; declare `{}: tag;` for a marker, or `many` without `tag` for instances that hold data",
                name()
            ),
        ),
        kw::GROUPED => cx.error_spanned(
            inner,
            format!(
                "the instances of a `many` component cannot be grouped; write `{}: many;` (or `many(sparse_set)`, `many(hash_map)`)",
                name()
            ),
        ),
        other => cx.error_spanned(
            inner,
            format!(
                "`many({other})` is not a storage for sets of instances; expected `many(contiguous)` (the same as `many`), `many(sparse_set)` or `many(hash_map)`"
            ),
        ),
    }
    ManyInner::Contiguous
}

/// The error for `(A, B): many;`.
fn many_in_group_message(entry: &ComponentEntry) -> String {
    format!(
        "a group stores one value of each member per entity, so it cannot hold several instances; declare each `many` component on its own, as in `{}: many;`",
        entry.types.iter().map(path_key).collect::<Vec<_>>().join(", ")
    )
}

/// Rule: each component is declared once, bound to one storage strategy.
pub fn report_duplicate_component(prev: &Component, path: &Path, strategy: &Ident, cx: &mut Ctxt) {
    if *strategy == prev.storage.keyword() {
        cx.error_spanned(
            path,
            format!("component `{}` is declared twice; remove this one", prev.name),
        );
    } else {
        cx.error_spanned(
            path,
            format!(
                "component `{}` is bound to two storages, `{}` and `{strategy}`; keep one",
                prev.name,
                prev.storage.keyword()
            ),
        );
    }
}

/// Rule: system names are unique, and so are system types (the type is how
/// code names a system).
pub fn check_system_unique(prev: &[&SystemEntry], entry: &SystemEntry, cx: &mut Ctxt) -> bool {
    if let Some(p) = prev.iter().find(|s| s.name == entry.name) {
        // One error for one mistake, even when the type repeats too.
        cx.error_spanned(
            &entry.name,
            format!("system `{}` is declared twice; rename or remove one", p.name),
        );
        return false;
    }
    let ty = path_key(&entry.ty);
    if let Some(p) = prev.iter().find(|s| path_key(&s.ty) == ty) {
        cx.error_spanned(
            &entry.ty,
            format!(
                "systems `{}` and `{}` both have type `{ty}`; each system needs its own state type",
                p.name, entry.name
            ),
        );
        return false;
    }
    true
}

/// Rule: `read` and `write` name declared components. A component declared
/// `A: many` is named `A`, or `Many<A>` as code names it (and as access
/// errors spell it).
pub fn resolve_component(
    components: &[Component],
    entry: &SystemEntry,
    key: &Ident,
    path: &Path,
    cx: &mut Ctxt,
) -> Option<usize> {
    let name = path_key(path);
    let found = components.iter().position(|c| c.name == name).or_else(|| {
        let inner = path_key(many_argument(path)?);
        components
            .iter()
            .position(|c| c.name == inner && matches!(c.storage, Storage::Many(_)))
    });
    if found.is_none() {
        // Suggest only components the user declared, not ones an earlier
        // mistake declared implicitly.
        let declared = components.iter().filter(|c| !c.implicit).map(|c| c.name.as_str());
        let fix = match suggest::closest(&name, declared) {
            Some(c) => {
                format!("did you mean `{c}`? (or declare `{name}` in `components`, as in `{name}: contiguous;`)")
            }
            None => format!("declare it in `components`, as in `{name}: contiguous;`"),
        };
        cx.error_spanned(
            path,
            format!(
                "unknown component `{name}` in `{key}` of system `{}`; {fix}",
                entry.name
            ),
        );
    }
    found
}

/// `A` when `path` is `Many<A>`.
fn many_argument(path: &Path) -> Option<&Path> {
    let last = path.segments.last()?;
    if last.ident != kw::MANY_TYPE {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first() {
        Some(syn::GenericArgument::Type(syn::Type::Path(ty))) if args.args.len() == 1 => Some(&ty.path),
        _ => None,
    }
}

/// Rule: `after` and `stream` name declared systems.
pub fn resolve_system(
    systems: &[&SystemEntry],
    entry: &SystemEntry,
    key: &Ident,
    path: &Path,
    cx: &mut Ctxt,
) -> Option<usize> {
    let name = path_key(path);
    let found = systems.iter().position(|s| s.name == name);
    if found.is_none() {
        let names: Vec<String> = systems.iter().map(|s| s.name.to_string()).collect();
        let hint = match systems.iter().find(|s| path_key(&s.ty) == name) {
            Some(s) => format!("; `{key}` takes system names: did you mean `{}`?", s.name),
            None => match suggest::closest(&name, names.iter().map(String::as_str)) {
                Some(s) => format!("; did you mean `{s}`?"),
                None => format!("; `{key}` takes the names of systems declared in `systems`"),
            },
        };
        cx.error_spanned(
            path,
            format!("unknown system `{name}` in `{key}` of system `{}`{hint}", entry.name),
        );
    }
    found
}

/// Rule: a component is in `read` or in `write` of a system, not both
/// (`write` already allows reading).
pub fn check_read_write_overlap(sys: &mut System, components: &[Component], cx: &mut Ctxt) {
    let writes = sys.writes.clone();
    let mut keep = Vec::new();
    for c in sys.reads.drain(..) {
        if writes.contains(&c) {
            cx.error_spanned(
                sys.name,
                format!(
                    "system `{}` names `{}` in both `read` and `write`; `write` already allows reading, remove it from `read`",
                    sys.name, components[c].name
                ),
            );
        } else {
            keep.push(c);
        }
    }
    sys.reads = keep;
}

/// Rule: the `after` lists form no cycle. The message lists the cycle.
pub fn check_no_cycles(model: &Model, cx: &mut Ctxt) {
    let n = model.systems.len();
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; n];
    let mut stack: Vec<usize> = Vec::new();
    for start in 0..n {
        if state[start] == 0 {
            visit(model, start, &mut state, &mut stack, cx);
        }
    }

    fn visit(model: &Model, i: usize, state: &mut [u8], stack: &mut Vec<usize>, cx: &mut Ctxt) {
        state[i] = 1;
        stack.push(i);
        for &(d, path) in &model.systems[i].after {
            match state[d] {
                0 => visit(model, d, state, stack, cx),
                1 => {
                    let from = stack.iter().position(|&s| s == d).expect("on the stack");
                    let name = |s: usize| model.systems[s].name.to_string();
                    let mut steps: Vec<String> = stack[from..]
                        .windows(2)
                        .map(|w| format!("`{}` runs after `{}`", name(w[0]), name(w[1])))
                        .collect();
                    steps.push(format!("`{}` runs after `{}`", name(i), name(d)));
                    // A `stream` entry is an edge of the graph like `after`.
                    let key = match model.systems[i].stream {
                        Some((s, _)) if s == d => kw::STREAM,
                        _ => kw::AFTER,
                    };
                    cx.error_spanned(
                        path,
                        format!(
                            "dependency cycle: {}; remove `{}` from `{key}` of `{}` or break the cycle elsewhere",
                            steps.join(", "),
                            name(d),
                            name(i)
                        ),
                    );
                }
                _ => {}
            }
        }
        stack.pop();
        state[i] = 2;
    }
}

/// Rule: two systems not ordered by the graph may run at the same time, so
/// neither may write a component the other reads or writes.
pub fn check_no_conflicts(model: &Model, cx: &mut Ctxt) {
    let systems = &model.systems;
    for b in 0..systems.len() {
        for a in 0..b {
            // An unresolved `after` leaves the order unknown: one error is enough.
            if model.ordered(a, b) || systems[a].unresolved_after || systems[b].unresolved_after {
                continue;
            }
            for (w, r) in [(a, b), (b, a)] {
                for &c in &systems[w].writes {
                    let other = &systems[r];
                    let verb = if other.writes.contains(&c) {
                        "also writes"
                    } else if other.reads.contains(&c) {
                        "reads"
                    } else {
                        continue;
                    };
                    if verb == "also writes" && w == b {
                        continue; // reported once, from the first system
                    }
                    cx.error_spanned(
                        systems[b].name,
                        format!(
                            "systems `{}` and `{}` may run at the same time, but `{}` writes `{}`, which `{}` {verb}; add `after: [{}]` to `{}` (or `after: [{}]` to `{}`)",
                            systems[a].name,
                            systems[b].name,
                            systems[w].name,
                            model.components[c].name,
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

/// Rule: a column step (`kind: columns`) takes its components as slices of
/// buffers indexed by id, so each component it lists is stored
/// `contiguous` (or in a `custom` storage, whose `Column::LINEAR` a
/// constant emitted beside the context checks). `grouped` interleaves the
/// members of a group, `sparse_set` packs values in matching order,
/// `hash_map` has no buffer and `tag` no values.
pub fn check_column_step_storages(model: &Model, cx: &mut Ctxt) {
    for sys in &model.systems {
        let Some(columns) = sys.columns else { continue };
        for field in &sys.entry.fields {
            let crate::ast::SystemField::List(key, items) = field else {
                continue;
            };
            if key != kw::READ && key != kw::WRITE {
                continue;
            }
            for path in items {
                let name = path_key(path);
                let Some(comp) = model.components.iter().find(|c| c.name == name) else {
                    continue;
                };
                let why = match comp.storage {
                    Storage::Contiguous | Storage::Custom(_) => continue,
                    Storage::Grouped { .. } => "one buffer of tuples, so its values are not side by side",
                    Storage::SparseSet => "packed in the order entities got it, not by id",
                    Storage::HashMap => "in a hash map, not in a buffer",
                    Storage::Tag => "as presence bits only, with no values",
                    Storage::Many(_) => "as sets of instances (`Many`), not one value per id",
                };
                cx.error_spanned(
                    path,
                    format!(
                        "system `{}` is a column step (`kind: {columns}`), which takes each component as a slice indexed by id, but `{name}` is stored `{}`: {why}; store `{name}` as `contiguous`, or make `{}` an entity system (remove `kind: {columns}`)",
                        sys.name,
                        comp.storage.keyword(),
                        sys.name,
                    ),
                );
            }
        }
    }
}

/// Rule: a system streams one other system (`stream: [producer]` holds one
/// name, not its own). Returns whether `producer` may be recorded as the
/// system's stream.
pub fn check_stream_target(sys: &System, own: usize, producer: usize, path: &Path, cx: &mut Ctxt) -> bool {
    if producer == own {
        cx.error_spanned(
            path,
            format!(
                "system `{}` cannot stream its own output: `stream` names the system whose `ecs::Stream` output `{}` consumes while it runs",
                sys.name, sys.name
            ),
        );
        return false;
    }
    if sys.stream.is_some() {
        cx.error_spanned(
            path,
            format!(
                "system `{}` already streams a system: a consumer streams one producer; run `{}` `after` this one instead",
                sys.name,
                path_key(path)
            ),
        );
        return false;
    }
    true
}

/// Rules for `stream: [p]` on a consumer `c` (they run at the same time, in
/// one node of the graph):
/// - `p` declares an `output` (an `ecs::Stream<T>`; the type is checked by
///   a bound emitted beside the context), is an entity system, and no other
///   system streams it;
/// - `c` is an entity system with `parallelism: none` (it consumes on one
///   thread);
/// - every system `c` runs after, but `p`, is one `p` runs after: `c` starts
///   when `p` does;
/// - neither writes a component or resource the other reads or writes.
///
/// A stream that breaks one of the first two rules is cleared (reported), so
/// the code emitted beside the error runs the two as `after` would.
pub fn check_streams(model: &mut Model, cx: &mut Ctxt) {
    for c in 0..model.systems.len() {
        let Some((p, path)) = model.systems[c].stream else {
            continue;
        };
        let (cs, ps) = (&model.systems[c], &model.systems[p]);
        let mut ok = true;
        if ps.output.is_none() {
            cx.error_spanned(
                path,
                format!(
                    "system `{}` streams `{}`, which has no output; declare `output: ecs::Stream<Item>` on `{}` and push items with `data.output().push(item)`",
                    cs.name, ps.name, ps.name
                ),
            );
            ok = false;
        }
        if let Some(first) = (0..c).find(|&o| model.systems[o].stream.is_some_and(|(d, _)| d == p)) {
            cx.error_spanned(
                path,
                format!(
                    "`{}` is streamed by `{}` already: a stream has one consumer; run `{}` `after: [{}]` instead",
                    ps.name, model.systems[first].name, cs.name, ps.name
                ),
            );
            ok = false;
        }
        if let Some(columns) = cs.columns.or(ps.columns) {
            cx.error_spanned(
                path,
                format!(
                    "a column step (`kind: {columns}`) takes no part in a stream; make `{}` and `{}` entity systems, or run `{}` `after: [{}]`",
                    ps.name, cs.name, cs.name, ps.name
                ),
            );
            ok = false;
        }
        if cs
            .parallelism
            .is_some_and(|p| !matches!(p, crate::ast::ParallelismExpr::None))
        {
            cx.error_spanned(
                cs.name,
                format!(
                    "system `{}` streams `{}` and consumes its items on one thread; remove its `parallelism` (or write `parallelism: none`)",
                    cs.name, ps.name
                ),
            );
        }
        for &a in &model.ancestors[c] {
            if a != p && !model.ancestors[p].contains(&a) {
                cx.error_spanned(
                    path,
                    format!(
                        "system `{}` streams `{}`, so it starts when `{}` does, but it also runs after `{}`, which `{}` does not wait for; add `after: [{}]` to `{}`",
                        cs.name, ps.name, ps.name, model.systems[a].name, ps.name, model.systems[a].name, ps.name
                    ),
                );
            }
        }
        let component = |i: usize| model.components[i].name.clone();
        let resource = |i: usize| model.resources[i].name.clone();
        let c_res_w: Vec<usize> = cs.resource_writes.iter().map(|&(r, _)| r).collect();
        let c_res_r: Vec<usize> = cs.resource_reads.iter().map(|&(r, _)| r).collect();
        let p_res_w: Vec<usize> = ps.resource_writes.iter().map(|&(r, _)| r).collect();
        let p_res_r: Vec<usize> = ps.resource_reads.iter().map(|&(r, _)| r).collect();
        let mut clashes: Vec<(&Ident, String, &str, &Ident)> = Vec::new();
        for (w, other, writes, reads, res_w, res_r) in [
            (
                cs,
                ps,
                &cs.writes,
                (&ps.reads, &ps.writes),
                &c_res_w,
                (&p_res_r, &p_res_w),
            ),
            (
                ps,
                cs,
                &ps.writes,
                (&cs.reads, &cs.writes),
                &p_res_w,
                (&c_res_r, &c_res_w),
            ),
        ] {
            for &x in writes {
                if reads.1.contains(&x) {
                    if w.name == cs.name {
                        clashes.push((w.name, component(x), "also writes", other.name));
                    }
                } else if reads.0.contains(&x) {
                    clashes.push((w.name, component(x), "reads", other.name));
                }
            }
            for &x in res_w {
                if res_r.1.contains(&x) {
                    if w.name == cs.name {
                        clashes.push((w.name, resource(x), "also writes", other.name));
                    }
                } else if res_r.0.contains(&x) {
                    clashes.push((w.name, resource(x), "reads", other.name));
                }
            }
        }
        for (writer, what, verb, other) in clashes {
            cx.error_spanned(
                path,
                format!(
                    "system `{}` streams `{}`, so the two run at the same time, but `{writer}` writes `{what}`, which `{other}` {verb}; run `{}` `after: [{}]` instead of streaming, or split the access",
                    cs.name, ps.name, cs.name, ps.name
                ),
            );
        }
        if !ok {
            model.systems[c].stream = None;
        }
    }
}
