//! Resources: the public struct of their values (`<Name>Resources`), the
//! hidden struct of their cells, one `Resource` impl per resource, and each
//! system's access rights to them.

use super::Names;
use crate::model::Model;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

fn cell_field(r: usize) -> syn::Ident {
    format_ident!("r{}", r)
}

pub fn emit(model: &Model, names: &Names) -> TokenStream {
    let Names {
        context,
        resources,
        resource_cells,
        ..
    } = names;
    let vis = &model.decl.vis;
    let value_fields = model.resources.iter().map(|r| {
        let (attrs, field, path) = (r.attrs, &r.field, r.path);
        quote!(#(#attrs)* pub #field: #path,)
    });
    let cell_fields = model.resources.iter().enumerate().map(|(i, r)| {
        let f = cell_field(i);
        let path = r.path;
        quote!(#f: ::ecs::__private::ResourceCell<#path>,)
    });
    let paths: Vec<_> = model.resources.iter().map(|r| r.path).collect();
    let fields: Vec<_> = model.resources.iter().map(|r| &r.field).collect();
    let impls = model.resources.iter().enumerate().map(|(i, r)| {
        let path = r.path;
        let name = &r.name;
        let f = cell_field(i);
        // Spanned on the resource's name, so that a resource that is not
        // thread-safe (`ResourceBounds`) is reported there.
        let head = quote_spanned!(path.span()=> unsafe impl ::ecs::__private::Resource<#context> for #path);
        quote! {
            // SAFETY: `INDEX` is this resource's position in the
            // declaration; `cell` returns its own field of the cells struct.
            #head {
                const INDEX: usize = #i;
                const NAME: &'static str = #name;
                #[inline(always)]
                fn cell(resources: &#resource_cells) -> &::ecs::__private::ResourceCell<Self> {
                    &resources.#f
                }
                #[inline(always)]
                fn cell_mut(resources: &mut #resource_cells) -> &mut ::ecs::__private::ResourceCell<Self> {
                    &mut resources.#f
                }
            }
        }
    });
    let access = model.systems.iter().map(|s| {
        let ty = s.ty;
        let reads = s
            .resource_reads
            .iter()
            .chain(&s.resource_writes)
            .map(|&(r, _)| model.resources[r].path);
        let writes = s.resource_writes.iter().map(|&(r, _)| model.resources[r].path);
        quote! {
            // SAFETY: each resource is in this system's `read` or `write`
            // list, and `resources::check_no_conflicts` proved that no
            // system unordered with this one writes it.
            #(unsafe impl ::ecs::__private::CanReadResource<#context, #reads> for #ty {})*
            // SAFETY: each resource is in `write`, and
            // `resources::check_no_conflicts` proved that no system
            // unordered with this one reads or writes it.
            #(unsafe impl ::ecs::__private::CanWriteResource<#context, #writes> for #ty {})*
        }
    });
    let doc = format!(
        "The initial value of every resource of [`{context}`], given to [`{context}::with_resources`] \
         (the other constructors use `Default`)."
    );
    quote! {
        #[doc = #doc]
        #vis struct #resources {
            #(#value_fields)*
        }

        impl ::core::default::Default for #resources
        where
            #(for<'__ecs> #paths: ::core::default::Default,)*
        {
            fn default() -> Self {
                Self {
                    #(#fields: ::core::default::Default::default(),)*
                }
            }
        }

        #[doc(hidden)]
        #vis struct #resource_cells {
            #(#cell_fields)*
        }

        #(#impls)*
        #(#access)*
    }
}

/// The cells struct made from the values struct `values`.
pub fn new_resources(model: &Model, names: &Names) -> TokenStream {
    let Names {
        context,
        resource_cells,
        ..
    } = names;
    let inits = model.resources.iter().enumerate().map(|(i, r)| {
        let f = cell_field(i);
        let (path, field) = (r.path, &r.field);
        quote!(#f: ::ecs::__private::new_resource_cell::<#context, #path>(values.#field),)
    });
    quote!(#resource_cells { #(#inits)* })
}
