//! What streams (`stream: [producer]`) add to the context: the check that
//! a streamed producer's output is an `ecs::Stream`, and the dispatch arms
//! that run a producer with its consumer in one node.

use super::Names;
use crate::model::Model;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// For each stream, a function that fails to compile (spanned on the
/// producer's `output` type) unless that type is an `ecs::Stream`.
pub fn emit(model: &Model) -> TokenStream {
    let mut out = TokenStream::new();
    for sys in &model.systems {
        let Some((p, _)) = sys.stream else { continue };
        let Some(output) = model.systems[p].output else {
            continue;
        };
        out.extend(quote_spanned! {output.span()=>
            const _: () = {
                fn streamed<O: ::ecs::__private::StreamOutput>() {}
                let _ = streamed::<#output>;
            };
        });
    }
    out
}

/// The where-clause of `Dispatch<__A>` for system `i`.
pub fn dispatch_bound(model: &Model, i: usize, names: &Names) -> TokenStream {
    let sys = &model.systems[i];
    match sys.stream {
        Some((p, _)) => {
            let context = &names.context;
            let (ty, producer) = (sys.ty, model.systems[p].ty);
            quote! {
                #ty: ::ecs::__private::Consumes<
                    #context,
                    <#producer as ::ecs::__private::SystemOf<#context>>::Output,
                    __A,
                >
            }
        }
        None => super::columns::dispatch_bound(model, i, names),
    }
}

/// The call that runs system `i` in `Dispatch::dispatch`: a producer runs
/// with its consumer; the consumer's own node runs it only if its producer
/// did not run.
pub fn dispatch_call(model: &Model, i: usize) -> TokenStream {
    let ty = model.systems[i].ty;
    if model.systems[i].stream.is_some() {
        return quote!(cx.run_consumer::<#ty, __A>(args));
    }
    match model.consumer_of(i) {
        Some(c) => {
            let consumer = model.systems[c].ty;
            quote!(cx.run_stream::<#ty, #consumer, __A>(args))
        }
        None => super::columns::dispatch_call(model, i),
    }
}
