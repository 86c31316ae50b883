//! What `parse.rs` produces: the declaration's syntax, every token kept for
//! error spans.

use proc_macro2::Span;
use syn::{Attribute, Ident, LitInt, Path, Type, Visibility};

pub struct Declaration {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub settings: Vec<Setting>,
    pub components: Vec<ComponentEntry>,
    pub resources: Vec<ResourceEntry>,
    pub systems: Vec<SystemEntry>,
}

pub struct Setting {
    pub key: Ident,
    pub value: SettingValue,
}

pub enum SettingValue {
    /// `fixed(N)`
    Fixed(LitInt),
    /// `dynamic` or `dynamic(N)`
    Dynamic(Option<LitInt>),
    /// `allow`, `deny`, `auto`
    Word(Ident),
    /// a number
    Number(LitInt),
}

/// `#[doc] A, B: strategy;` or `(A, B): grouped;`
pub struct ComponentEntry {
    pub attrs: Vec<Attribute>,
    pub types: Vec<Path>,
    /// Whether the types were written as a parenthesised group.
    pub parenthesised: Option<Span>,
    pub strategy: Ident,
    /// The type of `custom(Type)`.
    pub custom: Option<Type>,
    /// The strategy inside `many(...)`, which stores the sets of instances.
    pub many_inner: Option<Ident>,
}

/// `#[doc] Time` in `resources { ... }`.
pub struct ResourceEntry {
    pub attrs: Vec<Attribute>,
    pub path: Path,
}

pub struct SystemEntry {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub ty: Path,
    pub fields: Vec<SystemField>,
}

pub enum SystemField {
    List(Ident, Vec<Path>),
    Parallelism(ParallelismExpr),
    Output(Type),
    /// `kind: entities` or `kind: columns` (checked while parsing).
    Kind(Ident),
}

pub enum ParallelismExpr {
    None,
    SplitEvenlyPerCore,
    SplitEvery(LitInt),
    NoneBelow(LitInt, Box<ParallelismExpr>),
}
