//! The declaration's meaning: components with their storages, systems with
//! their access and dependencies, the dependency graph. Names are resolved
//! here (unknown ones are reported through `validate`); codegen reads only
//! this.

use crate::ast::{self, Declaration, ParallelismExpr, SettingValue, SystemField};
use crate::ctxt::Ctxt;
use crate::kw;
use crate::parse;
use crate::resources::{self, Resource};
use crate::validate;
use quote::ToTokens;
use syn::{Attribute, Ident, Path, Type};

pub struct Model<'a> {
    pub decl: &'a Declaration,
    pub settings: Settings,
    pub components: Vec<Component<'a>>,
    /// Component indices of each `grouped` entry.
    pub groups: Vec<Vec<usize>>,
    /// The `resources` block.
    pub resources: Vec<Resource<'a>>,
    pub systems: Vec<System<'a>>,
    /// Every system, each after its dependencies.
    pub topological: Vec<usize>,
    /// Transitive dependencies of each system, sorted.
    pub ancestors: Vec<Vec<usize>>,
    /// Systems naming each system in `after`.
    pub dependents: Vec<Vec<usize>>,
}

pub struct Settings {
    pub entities: Limit,
    pub inner_parallelism: bool,
    pub threads: Option<usize>,
    /// `serde: all`: the context saves and restores with serde; the token
    /// `all`, for error spans.
    pub serde: Option<Ident>,
    /// `layout: archetypes`: each refresh sorts entity ids by component set.
    pub archetypes: bool,
}

pub enum Limit {
    Fixed(usize),
    Dynamic(usize),
}

/// The type of the context's component bitsets: the runtime's `Bits8`,
/// `Bits16`, `Bits32`, `Bits64`, `Bits128`, or `Bitset<n>` of `n` 64-bit
/// words. The runtime compiles its entity table's and matching's
/// bookkeeping once for each of the first five (`ecs-core`'s
/// `entity::Table` and `sparse_set::Match`), so a context of up to 128
/// components does not compile its own copy.
pub enum BitsetWidth {
    Bits8,
    Bits16,
    Bits32,
    Bits64,
    Bits128,
    Words(usize),
}

pub struct Component<'a> {
    pub path: &'a Path,
    /// The type as written, for messages and docs.
    pub name: String,
    pub storage: Storage<'a>,
    pub attrs: &'a [Attribute],
    /// Declared implicitly after an unknown name was reported, so the code
    /// emitted beside the error still type-checks.
    pub implicit: bool,
}

pub enum Storage<'a> {
    Contiguous,
    Grouped {
        group: usize,
        member: usize,
    },
    SparseSet,
    HashMap,
    Tag,
    Custom(&'a Type),
    /// `many` / `many(inner)`: a set of instances per entity, stored as
    /// `inner` stores one value.
    Many(ManyInner),
}

/// Where the first instances of a `many` component live.
#[derive(Clone, Copy)]
pub enum ManyInner {
    Contiguous,
    SparseSet,
    HashMap,
}

impl Storage<'_> {
    pub fn keyword(&self) -> &'static str {
        match self {
            Storage::Contiguous => kw::CONTIGUOUS,
            Storage::Grouped { .. } => kw::GROUPED,
            Storage::SparseSet => kw::SPARSE_SET,
            Storage::HashMap => kw::HASH_MAP,
            Storage::Tag => kw::TAG,
            Storage::Custom(_) => kw::CUSTOM,
            Storage::Many(_) => kw::MANY,
        }
    }
}

pub struct System<'a> {
    pub entry: &'a ast::SystemEntry,
    pub name: &'a Ident,
    pub ty: &'a Path,
    pub ty_name: String,
    /// Components in `read` (not in `write`).
    pub reads: Vec<usize>,
    /// Components in `write`.
    pub writes: Vec<usize>,
    /// Resources in `read` (not in `write`), with the token naming each.
    pub resource_reads: Vec<(usize, &'a Path)>,
    /// Resources in `write`, with the token naming each.
    pub resource_writes: Vec<(usize, &'a Path)>,
    /// Systems in `after`, with the token naming each.
    pub after: Vec<(usize, &'a Path)>,
    /// Whether a name in `after` is unknown (already reported).
    pub unresolved_after: bool,
    pub parallelism: Option<&'a ParallelismExpr>,
    pub output: Option<&'a Type>,
    /// `kind: columns`: a column step, with the `columns` token.
    pub columns: Option<&'a Ident>,
    /// `stream: [producer]`: the producer (also in `after`, so the graph
    /// orders the two) and the token naming it. Cleared by
    /// `validate::check_streams` when the producer cannot be streamed, so
    /// codegen runs the two as `after` does.
    pub stream: Option<(usize, &'a Path)>,
}

impl System<'_> {
    /// Every component the system accesses: reads then writes.
    pub fn signature(&self) -> impl Iterator<Item = usize> + '_ {
        self.reads.iter().chain(&self.writes).copied()
    }
}

/// A type path as written, without spaces: the key names are compared by.
pub fn path_key(path: &Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

impl<'a> Model<'a> {
    pub fn build(decl: &'a Declaration, cx: &mut Ctxt) -> Self {
        let settings = settings(decl, cx);
        let (mut components, groups) = components(decl, cx);
        let resources = resources::build(decl, &components, cx);
        let systems = systems(decl, &mut components, &resources, cx);
        let dependents = (0..systems.len())
            .map(|i| {
                (0..systems.len())
                    .filter(|&j| systems[j].after.iter().any(|&(d, _)| d == i))
                    .collect()
            })
            .collect();
        let mut model = Model {
            decl,
            settings,
            components,
            groups,
            resources,
            systems,
            topological: Vec::new(),
            ancestors: Vec::new(),
            dependents,
        };
        validate::check_no_cycles(&model, cx);
        model.topological = model.topological_order();
        model.ancestors = model.compute_ancestors();
        validate::check_streams(&mut model, cx);
        model
    }

    /// Kahn's algorithm, lowest index first; systems on a cycle come last.
    fn topological_order(&self) -> Vec<usize> {
        let n = self.systems.len();
        let mut missing: Vec<usize> = self.systems.iter().map(|s| s.after.len()).collect();
        let mut done = vec![false; n];
        let mut order = Vec::with_capacity(n);
        while order.len() < n {
            let Some(next) = (0..n).find(|&i| !done[i] && missing[i] == 0) else {
                order.extend((0..n).filter(|&i| !done[i]));
                break;
            };
            done[next] = true;
            order.push(next);
            for &d in &self.dependents[next] {
                missing[d] -= self.systems[d].after.iter().filter(|&&(a, _)| a == next).count();
            }
        }
        order
    }

    fn compute_ancestors(&self) -> Vec<Vec<usize>> {
        let n = self.systems.len();
        let mut anc: Vec<Vec<bool>> = vec![vec![false; n]; n];
        // Fixed point: cheap for declaration sizes, correct even on cycles.
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..n {
                for &(d, _) in &self.systems[i].after {
                    let mut add = anc[d].clone();
                    add[d] = true;
                    for k in 0..n {
                        if add[k] && !anc[i][k] {
                            anc[i][k] = true;
                            changed = true;
                        }
                    }
                }
            }
        }
        anc.into_iter()
            .map(|row| (0..n).filter(|&k| row[k]).collect())
            .collect()
    }

    /// The system that streams system `p`'s output, if any.
    pub fn consumer_of(&self, p: usize) -> Option<usize> {
        self.systems.iter().position(|s| s.stream.is_some_and(|(d, _)| d == p))
    }

    /// Whether `a` and `b` are ordered by the graph (one is an ancestor of
    /// the other).
    pub fn ordered(&self, a: usize, b: usize) -> bool {
        self.ancestors[a].contains(&b) || self.ancestors[b].contains(&a)
    }

    /// Systems grouped by level: level 0 has no dependencies, level `n`
    /// depends on something at level `n - 1`. Systems of one level never
    /// depend on each other, so they may run together.
    pub fn levels(&self) -> Vec<Vec<usize>> {
        let mut level = vec![0usize; self.systems.len()];
        for &i in &self.topological {
            level[i] = self.systems[i]
                .after
                .iter()
                .map(|&(d, _)| level[d] + 1)
                .max()
                .unwrap_or(0);
        }
        let depth = level.iter().max().map_or(0, |m| m + 1);
        (0..depth)
            .map(|l| (0..self.systems.len()).filter(|&i| level[i] == l).collect())
            .collect()
    }

    /// The independent chains: sets of systems connected by dependencies
    /// (either way), in order of their first system.
    pub fn chains(&self) -> Vec<Vec<usize>> {
        let n = self.systems.len();
        let mut chain = vec![usize::MAX; n];
        let mut out: Vec<Vec<usize>> = Vec::new();
        for start in 0..n {
            if chain[start] != usize::MAX {
                continue;
            }
            let id = out.len();
            let mut stack = vec![start];
            chain[start] = id;
            let mut members = Vec::new();
            while let Some(i) = stack.pop() {
                members.push(i);
                let deps = self.systems[i].after.iter().map(|&(d, _)| d);
                for j in deps.chain(self.dependents[i].iter().copied()) {
                    if chain[j] == usize::MAX {
                        chain[j] = id;
                        stack.push(j);
                    }
                }
            }
            members.sort_unstable_by_key(|&m| self.topological.iter().position(|&t| t == m));
            out.push(members);
        }
        out
    }

    /// The narrowest component bitset that holds every component.
    pub fn bitset(&self) -> BitsetWidth {
        match self.components.len() {
            0..=8 => BitsetWidth::Bits8,
            9..=16 => BitsetWidth::Bits16,
            17..=32 => BitsetWidth::Bits32,
            33..=64 => BitsetWidth::Bits64,
            65..=128 => BitsetWidth::Bits128,
            n => BitsetWidth::Words(n.div_ceil(64)),
        }
    }
}

fn settings(decl: &Declaration, cx: &mut Ctxt) -> Settings {
    let mut s = Settings {
        entities: Limit::Dynamic(kw::DEFAULT_DYNAMIC_CAPACITY),
        inner_parallelism: true,
        threads: None,
        serde: None,
        archetypes: false,
    };
    for setting in &decl.settings {
        let key = setting.key.to_string();
        match (key.as_str(), &setting.value) {
            (kw::ENTITIES, SettingValue::Fixed(n)) => {
                match parse::count(n, "`entities: fixed(N)`", "the number of entities", 1, usize::MAX) {
                    Ok(n) => s.entities = Limit::Fixed(n),
                    Err(e) => cx.push(e),
                }
            }
            (kw::ENTITIES, SettingValue::Dynamic(n)) => {
                let initial = match n {
                    Some(n) => parse::count(n, "`entities: dynamic(N)`", "the initial capacity", 0, usize::MAX)
                        .unwrap_or_else(|e| {
                            cx.push(e);
                            0
                        }),
                    None => kw::DEFAULT_DYNAMIC_CAPACITY,
                };
                s.entities = Limit::Dynamic(initial);
            }
            (kw::INNER_PARALLELISM, SettingValue::Word(w)) if w == kw::ALLOW || w == kw::DENY => {
                s.inner_parallelism = w == kw::ALLOW;
            }
            (kw::THREADS, SettingValue::Word(w)) if w == kw::AUTO => s.threads = None,
            (kw::SERDE, SettingValue::Word(w)) if w == kw::ALL => s.serde = Some(w.clone()),
            (kw::LAYOUT, SettingValue::Word(w)) if w == kw::IDS || w == kw::ARCHETYPES => {
                s.archetypes = w == kw::ARCHETYPES;
            }
            (kw::LAYOUT, SettingValue::Word(w)) => cx.error_spanned(
                w,
                format!(
                    "unknown layout `{w}`; expected `archetypes` (entity ids sorted by component set at each refresh) or `ids` (creation order, the default){}",
                    crate::suggest::did_you_mean(&w.to_string(), [kw::ARCHETYPES, kw::IDS])
                ),
            ),
            (kw::THREADS, SettingValue::Number(n)) => {
                match parse::count(n, "`threads: N`", "the number of threads", 1, kw::MAX_THREADS) {
                    Ok(n) => s.threads = Some(n),
                    Err(e) => cx.error_at(e.span(), format!("{e} (or write `threads: auto` for one per core)")),
                }
            }
            (k, _) => {
                let expected = match k {
                    kw::ENTITIES => "`fixed(N)`, `dynamic` or `dynamic(N)`",
                    kw::INNER_PARALLELISM => "`allow` or `deny`",
                    kw::SERDE => "`all` (every component and resource is saved)",
                    kw::LAYOUT => "`ids` (entities in creation order) or `archetypes` (sorted by component set)",
                    _ => "`auto` or a number of threads",
                };
                cx.error_spanned(&setting.key, format!("bad value for `{k}`: expected {expected}"));
            }
        }
    }
    s
}

fn components<'a>(decl: &'a Declaration, cx: &mut Ctxt) -> (Vec<Component<'a>>, Vec<Vec<usize>>) {
    let mut out: Vec<Component<'a>> = Vec::new();
    let mut groups = Vec::new();
    for entry in &decl.components {
        // A malformed group (reported) is stored as `contiguous`.
        let shape_ok = validate::check_group_shape(entry, cx);
        let grouped = entry.strategy == kw::GROUPED && shape_ok;
        let group = groups.len();
        let many = (entry.strategy == kw::MANY).then(|| validate::check_many(entry, cx));
        let mut members = Vec::new();
        for path in &entry.types {
            let name = path_key(path);
            if let Some(prev) = out.iter().find(|c| c.name == name) {
                validate::report_duplicate_component(prev, path, &entry.strategy, cx);
                continue;
            }
            let storage = match entry.strategy.to_string().as_str() {
                kw::CONTIGUOUS => Storage::Contiguous,
                kw::GROUPED if !grouped => Storage::Contiguous,
                kw::GROUPED => Storage::Grouped {
                    group,
                    member: members.len(),
                },
                kw::SPARSE_SET => Storage::SparseSet,
                kw::HASH_MAP => Storage::HashMap,
                kw::TAG => Storage::Tag,
                kw::MANY => Storage::Many(many.expect("checked for `many` above")),
                _ => Storage::Custom(entry.custom.as_ref().expect("parsed with custom")),
            };
            members.push(out.len());
            out.push(Component {
                path,
                name,
                storage,
                attrs: &entry.attrs,
                implicit: false,
            });
        }
        if grouped {
            groups.push(members);
        }
    }
    (out, groups)
}

fn implicit_component<'a>(components: &mut Vec<Component<'a>>, path: &'a Path) -> usize {
    let name = path_key(path);
    if let Some(i) = components.iter().position(|c| c.name == name) {
        return i;
    }
    components.push(Component {
        path,
        name,
        storage: Storage::Contiguous,
        attrs: &[],
        implicit: true,
    });
    components.len() - 1
}

fn systems<'a>(
    decl: &'a Declaration,
    components: &mut Vec<Component<'a>>,
    resources: &[Resource<'a>],
    cx: &mut Ctxt,
) -> Vec<System<'a>> {
    // A repeated system (reported) is dropped, so the emitted code has no
    // duplicate impls and `after` resolves to the indices of kept systems.
    let mut kept: Vec<&'a ast::SystemEntry> = Vec::new();
    for entry in &decl.systems {
        if validate::check_system_unique(&kept, entry, cx) {
            kept.push(entry);
        }
    }
    let mut out: Vec<System<'a>> = Vec::new();
    for &entry in &kept {
        let mut sys = System {
            entry,
            name: &entry.name,
            ty: &entry.ty,
            ty_name: path_key(&entry.ty),
            reads: Vec::new(),
            writes: Vec::new(),
            resource_reads: Vec::new(),
            resource_writes: Vec::new(),
            after: Vec::new(),
            unresolved_after: false,
            parallelism: None,
            output: None,
            columns: None,
            stream: None,
        };
        let own = out.len();
        for field in &entry.fields {
            match field {
                SystemField::List(key, items) if key == kw::READ || key == kw::WRITE => {
                    for path in items {
                        if let Some(r) = resources::resolve(resources, path) {
                            resources::record_access(&mut sys, resources, key, r, path, cx);
                            continue;
                        }
                        let found = validate::resolve_component(components, entry, key, path, cx);
                        // An unknown component (already reported) is declared
                        // implicitly, so the code emitted beside the error
                        // still type-checks and the mistake gives one error.
                        let c = found.unwrap_or_else(|| implicit_component(components, path));
                        let list = if key == kw::READ {
                            &mut sys.reads
                        } else {
                            &mut sys.writes
                        };
                        if list.contains(&c) {
                            cx.error_spanned(
                                path,
                                format!(
                                    "`{}` appears twice in `{key}` of system `{}`; remove one",
                                    components[c].name, entry.name
                                ),
                            );
                        } else {
                            list.push(c);
                        }
                    }
                }
                SystemField::List(key, items) if key == kw::STREAM => {
                    for path in items {
                        let Some(d) = validate::resolve_system(&kept, entry, key, path, cx) else {
                            sys.unresolved_after = true;
                            continue;
                        };
                        if validate::check_stream_target(&sys, own, d, path, cx) {
                            sys.stream = Some((d, path));
                            if !sys.after.iter().any(|&(a, _)| a == d) {
                                sys.after.push((d, path));
                            }
                        }
                    }
                }
                SystemField::List(key, items) => {
                    for path in items {
                        let Some(d) = validate::resolve_system(&kept, entry, key, path, cx) else {
                            sys.unresolved_after = true;
                            continue;
                        };
                        if let Some((s, _)) = sys.stream
                            && s == d
                        {
                            continue; // `stream` orders the two already
                        }
                        if sys.after.iter().any(|&(a, _)| a == d) {
                            cx.error_spanned(
                                path,
                                format!(
                                    "`{}` appears twice in `after` of system `{}`; remove one",
                                    path_key(path),
                                    entry.name
                                ),
                            );
                        } else {
                            sys.after.push((d, path));
                        }
                    }
                }
                SystemField::Parallelism(p) => sys.parallelism = Some(p),
                SystemField::Output(t) => sys.output = Some(t),
                SystemField::Kind(k) => sys.columns = (k == kw::KIND_COLUMNS).then_some(k),
            }
        }
        validate::check_read_write_overlap(&mut sys, components, cx);
        resources::check_read_write_overlap(&mut sys, resources, cx);
        resources::check_write_parallelism(&sys, resources, cx);
        out.push(sys);
    }
    out
}
