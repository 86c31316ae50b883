//! The DSL's keywords, in one place.

syn::custom_keyword!(context);
syn::custom_keyword!(settings);
syn::custom_keyword!(components);
syn::custom_keyword!(systems);
syn::custom_keyword!(resources);

/// Setting keys.
pub const ENTITIES: &str = "entities";
pub const INNER_PARALLELISM: &str = "inner_parallelism";
pub const THREADS: &str = "threads";
pub const SERDE: &str = "serde";
pub const LAYOUT: &str = "layout";

/// Setting values.
pub const FIXED: &str = "fixed";
pub const DYNAMIC: &str = "dynamic";
pub const ALLOW: &str = "allow";
pub const DENY: &str = "deny";
pub const AUTO: &str = "auto";
pub const ALL: &str = "all";
/// `layout: ids` (the default) and `layout: archetypes`.
pub const IDS: &str = "ids";
pub const ARCHETYPES: &str = "archetypes";

/// Storage strategies.
pub const CONTIGUOUS: &str = "contiguous";
pub const GROUPED: &str = "grouped";
pub const SPARSE_SET: &str = "sparse_set";
pub const HASH_MAP: &str = "hash_map";
pub const TAG: &str = "tag";
pub const CUSTOM: &str = "custom";
/// Several instances per entity: `A: many;` or `A: many(sparse_set);`.
pub const MANY: &str = "many";
/// The type a `many` component is named by in code, also accepted in
/// `read` and `write`: `Many<A>`.
pub const MANY_TYPE: &str = "Many";

/// System keys.
pub const READ: &str = "read";
pub const WRITE: &str = "write";
pub const AFTER: &str = "after";
pub const PARALLELISM: &str = "parallelism";
pub const OUTPUT: &str = "output";
pub const KIND: &str = "kind";
/// `stream: [producer]`: consume the producer's `Stream` while it runs.
pub const STREAM: &str = "stream";

/// System kinds (`kind: columns` makes a column step).
pub const KIND_ENTITIES: &str = "entities";
pub const KIND_COLUMNS: &str = "columns";

/// Parallelism strategies.
pub const NONE: &str = "none";
pub const SPLIT_EVENLY_PER_CORE: &str = "split_evenly_per_core";
pub const SPLIT_EVERY: &str = "split_every";
pub const NONE_BELOW: &str = "none_below";

/// Default entity capacity reserved by `dynamic` without a number.
pub const DEFAULT_DYNAMIC_CAPACITY: usize = 1024;

/// The most threads a context runs on. The run time caps
/// `Context::with_threads` at the same number (ecs-core's `context.rs`).
pub const MAX_THREADS: usize = 1024;
