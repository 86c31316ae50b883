//! What `many` changes in the emitted code: the type that implements
//! `Component` (and names the component in systems' rights) is the set of
//! instances, `Many<A>`, rather than `A`; its column is the inner strategy's
//! column of sets.

use crate::model::{Component, ManyInner, Storage};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// The type the generated code names the component by: its own path, or
/// `Many<path>` for a `many` component (spanned on the path, so that errors
/// about it point at the declaration).
pub fn component_type(comp: &Component) -> TokenStream {
    let path = comp.path;
    match comp.storage {
        Storage::Many(_) => quote_spanned!(path.span()=> ::ecs::__private::Many<#path>),
        _ => quote!(#path),
    }
}

/// The column of a `many` component: the inner strategy's column of sets.
pub fn storage_type(inner: ManyInner, comp: &Component) -> TokenStream {
    let set = component_type(comp);
    match inner {
        ManyInner::Contiguous => quote!(::ecs::__private::Contiguous<#set>),
        ManyInner::SparseSet => quote!(::ecs::__private::SparseSetStorage<#set>),
        ManyInner::HashMap => quote!(::ecs::__private::HashMapStorage<#set>),
    }
}

/// The storage column of the generated docs' component table.
pub fn describe(inner: ManyInner) -> String {
    match inner {
        ManyInner::Contiguous => "`many` (sets of instances)".to_owned(),
        ManyInner::SparseSet => "`many(sparse_set)` (sets of instances)".to_owned(),
        ManyInner::HashMap => "`many(hash_map)` (sets of instances)".to_owned(),
    }
}
