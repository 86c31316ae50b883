//! What `many` changes in the emitted code: the type that implements
//! `Component` (and names the component in systems' rights) is the set of
//! instances, `Many<A>`, rather than `A`; its column is a `ManyColumn`
//! whose first instances live in the inner strategy's column.

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

/// The types a system's right over `comp` is granted for: the component
/// type, and for a `many` component also its instance type `A`. No query,
/// proxy or storage reaches data through `A` (it implements no
/// `Component`), so the extra right grants nothing; it lets a query that
/// names the instance type (`&mut A` for `Many<A>`) fail only on the
/// missing `Component`, whose note says how a `many` component is named,
/// rather than also telling the user to add to `write` what is there.
pub fn right_types(comp: &Component) -> Vec<TokenStream> {
    let path = comp.path;
    match comp.storage {
        Storage::Many(_) => vec![component_type(comp), quote_spanned!(path.span()=> #path)],
        _ => vec![component_type(comp)],
    }
}

/// The column of a `many` component's first instances (its inner
/// strategy's column of `Many<path>`).
pub fn inner_type(inner: ManyInner, comp: &Component) -> TokenStream {
    let first = component_type(comp);
    match inner {
        ManyInner::Contiguous => quote!(::ecs::__private::Contiguous<#first>),
        ManyInner::SparseSet => quote!(::ecs::__private::SparseSetStorage<#first>),
        ManyInner::HashMap => quote!(::ecs::__private::HashMapStorage<#first>),
    }
}

/// The column of a `many` component: first instances in the inner
/// strategy's column, the others beside it.
pub fn storage_type(inner: ManyInner, comp: &Component) -> TokenStream {
    let path = comp.path;
    let inner = inner_type(inner, comp);
    quote!(::ecs::__private::ManyColumn<#path, #inner>)
}

/// The storage column of the generated docs' component table.
pub fn describe(inner: ManyInner) -> String {
    match inner {
        ManyInner::Contiguous => "`many` (instances per entity)".to_owned(),
        ManyInner::SparseSet => "`many(sparse_set)` (instances per entity)".to_owned(),
        ManyInner::HashMap => "`many(hash_map)` (instances per entity)".to_owned(),
    }
}
