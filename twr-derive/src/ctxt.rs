//! Error accumulation: every mistake in the input is reported in one go.

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use quote::ToTokens;

/// Collects the errors found while reading and checking the input, so that
/// the user sees all of them at once instead of fixing them one by one.
pub(crate) struct Ctxt {
    // `None` once `check` has run; the `Drop` below catches a forgotten check.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanned at `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at a span.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Records an error produced by syn itself.
    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(error);
    }

    /// All recorded errors combined, in source order, or `Ok` when there
    /// were none. The checks run by kind (keys, then names across fields),
    /// not by position; the user reads the errors top to bottom.
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        // Stable: errors at the same place keep the order they were found in.
        errors.sort_by_key(|error| {
            let start = error.span().start();
            (start.line, start.column)
        });
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}
