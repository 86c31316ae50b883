//! The error accumulator: validation reports every problem it finds, and the
//! macro emits them all at once.

use quote::ToTokens;
use std::fmt::Display;

#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error spanned on `tokens`.
    pub fn error_spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error at `span`.
    pub fn error_at(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Records an error made elsewhere.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All errors combined, if any.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_iter();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            first.combine(e);
        }
        Err(first)
    }
}
