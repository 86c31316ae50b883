//! The system states struct, the slots struct, one `SystemOf` per system,
//! the access rights of each system, and the dispatch from index to type.

use super::Names;
use crate::ast::ParallelismExpr;
use crate::model::Model;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

fn parallelism(p: Option<&ParallelismExpr>) -> TokenStream {
    match p {
        None | Some(ParallelismExpr::None) => quote!(::ecs::__private::Parallelism::None),
        Some(ParallelismExpr::SplitEvenlyPerCore) => {
            quote!(::ecs::__private::Parallelism::SplitEvenlyPerCore)
        }
        Some(ParallelismExpr::SplitEvery(n)) => quote!(::ecs::__private::Parallelism::SplitEvery(#n)),
        Some(ParallelismExpr::NoneBelow(t, then)) => {
            let then = parallelism(Some(then));
            quote!(::ecs::__private::Parallelism::NoneBelow { threshold: #t, otherwise: &#then })
        }
    }
}

pub fn emit(model: &Model, names: &Names) -> TokenStream {
    let Names {
        context, slots, states, ..
    } = names;
    let vis = &model.decl.vis;
    let state_fields = model.systems.iter().map(|s| {
        let name = s.name;
        let ty = s.ty;
        let attrs = &s.entry.attrs;
        quote!(#(#attrs)* pub #name: #ty,)
    });
    let tys: Vec<_> = model.systems.iter().map(|s| s.ty).collect();
    let sys_names: Vec<_> = model.systems.iter().map(|s| s.name).collect();
    let n = model.systems.len();
    let slot_fields = (0..model.systems.len()).map(|i| {
        let f = format_ident!("s{}", i);
        let ty = tys[i];
        quote!(#f: ::ecs::__private::SystemSlot<#context, #ty>,)
    });
    let system_impls = model.systems.iter().enumerate().map(|(i, s)| {
        let ty = s.ty;
        let f = format_ident!("s{}", i);
        let par = parallelism(s.parallelism);
        let output = match s.output {
            Some(t) => quote!(#t),
            None => quote!(()),
        };
        // Each component by the type that implements `Component`, and a
        // `many` component also by its instance type (see `rights_of`).
        let rights_of = |c: usize| super::many::right_types(&model.components[c]);
        let reads: Vec<_> = s.signature().flat_map(rights_of).collect();
        let writes: Vec<_> = s.writes.iter().flat_map(|&c| rights_of(c)).collect();
        let shared: Vec<_> = s.reads.iter().flat_map(|&c| rights_of(c)).collect();
        // A consumer runs while its producer does: it may not read the
        // producer's outputs or state, so it does not depend on it.
        let producer = s.stream.map(|(p, _)| p);
        let ancestors = model.ancestors[i]
            .iter()
            .filter(|&&a| Some(a) != producer)
            .map(|&a| model.systems[a].ty);
        let (chunk, offset, related) = relations(model, i);
        quote! {
            // SAFETY: `INDEX` is this system's position in the declaration,
            // `slot` returns its own field, `PARALLELISM` is as declared.
            unsafe impl ::ecs::__private::SystemOf<#context> for #ty {
                const INDEX: usize = #i;
                const PARALLELISM: ::ecs::__private::Parallelism = #par;
                type Output = #output;
                #[inline(always)]
                fn slot(systems: &#slots) -> &::ecs::__private::SystemSlot<#context, Self> {
                    &systems.#f
                }
                #[inline(always)]
                fn slot_mut(systems: &mut #slots) -> &mut ::ecs::__private::SystemSlot<#context, Self> {
                    &mut systems.#f
                }
            }
            // SAFETY: each component is in this system's `read` or `write`
            // list, and `check_no_conflicts` proved that no system unordered
            // with this one writes it (a `many` component's rights are also
            // granted under its instance type, as `CanRead` allows).
            #(unsafe impl ::ecs::__private::CanRead<#context, #reads> for #ty {})*
            // SAFETY: each component is in `write`, and `check_no_conflicts`
            // proved that no system unordered with this one reads or writes it.
            #(unsafe impl ::ecs::__private::CanWrite<#context, #writes> for #ty {})*
            // SAFETY: each component is in `read` and not in `write`
            // (`check_read_write_overlap`), so no subtask of this system writes it.
            #(unsafe impl ::ecs::__private::CanReadShared<#context, #shared> for #ty {})*
            // SAFETY: each system named here is an ancestor in the validated
            // graph (`Model::ancestors`).
            #(unsafe impl ::ecs::__private::DependsOn<#context, #ancestors> for #ty {})*
            // The systems ordered with this one, for `run_from`.
            impl ::ecs::__private::Relations<#context> for #ty {
                type Chunk = #chunk;
                type Offset = #offset;
                type Related = #related;
            }
        }
    });
    let indices = 0..model.systems.len();
    let bounds = (0..model.systems.len()).map(|i| super::stream::dispatch_bound(model, i, names));
    let calls = (0..model.systems.len()).map(|i| super::stream::dispatch_call(model, i));
    let states_doc = format!("The state of every system of [`{context}`], given to [`{context}::with_systems`].");
    quote! {
        #[doc = #states_doc]
        #vis struct #states {
            #(#state_fields)*
        }

        impl ::core::default::Default for #states
        where
            #(for<'__ecs> #tys: ::core::default::Default,)*
        {
            fn default() -> Self {
                Self {
                    #(#sys_names: ::core::default::Default::default(),)*
                }
            }
        }

        #[doc(hidden)]
        #vis struct #slots {
            cores: [::ecs::__private::SlotCore<#context>; #n],
            #(#slot_fields)*
        }

        #(#system_impls)*

        // SAFETY: each arm runs its own system through `run_system` (or
        // `run_column_system`; a streamed producer with its consumer through
        // `run_stream`, whose contract `check_streams` proved, and the
        // consumer's own arm through `run_consumer`), and `cx` serves
        // nothing else.
        unsafe impl<__A: ?::core::marker::Sized + ::core::marker::Sync> ::ecs::__private::Dispatch<__A> for #context
        where
            #(#bounds,)*
        {
            unsafe fn dispatch(cx: &::ecs::__private::Context<Self>, index: usize, args: &__A) {
                match index {
                    // SAFETY: `dispatch`'s caller upholds the contract of
                    // `run_system` (and `run_column_system`: they are the
                    // same); `index` is this system's, so the call runs the
                    // system asked for, as its kind runs.
                    #(#indices => unsafe { #calls },)*
                    _ => {}
                }
            }
        }
    }
}

/// System `i`'s `Relations`: its chunk and offset as numbers (`()` for 0,
/// `(n,)` for n + 1), and whether each system is `i`, an ancestor or a
/// descendant (`bool`) or not (`()`), as a list (`(head, tail)`) of lists of
/// 16. Tuples keep the n² flags to a few tokens each.
fn relations(model: &Model, i: usize) -> (TokenStream, TokenStream, TokenStream) {
    const CHUNK: usize = 16;
    let number = |n: usize| (0..n).fold(quote!(()), |inner, _| quote!((#inner,)));
    let list = |items: Vec<TokenStream>| {
        items
            .into_iter()
            .rev()
            .fold(quote!(()), |tail, head| quote!((#head, #tail)))
    };
    let n = model.systems.len();
    let chunks = (0..n.div_ceil(CHUNK))
        .map(|c| {
            let flags = (c * CHUNK..n.min((c + 1) * CHUNK))
                .map(|j| {
                    if j == i || model.ordered(i, j) {
                        quote!(bool)
                    } else {
                        quote!(())
                    }
                })
                .collect();
            list(flags)
        })
        .collect();
    (number(i / CHUNK), number(i % CHUNK), list(chunks))
}

/// The slots' constructor: every system's core in one array, then each
/// system's slot.
pub fn new_slots(model: &Model, names: &Names) -> TokenStream {
    let slots = &names.slots;
    let fields = (0..model.systems.len()).map(|i| format_ident!("s{}", i));
    let sys_names = model.systems.iter().map(|s| s.name);
    quote! {
        #slots {
            cores: ::ecs::__private::SlotCore::new_array(),
            #(#fields: ::ecs::__private::SystemSlot::new(states.#sys_names),)*
        }
    }
}
