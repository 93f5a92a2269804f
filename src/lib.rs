//! The workspace root package: it owns the examples of twr (the tests and
//! benches are the `twr-tests` package, in tests/). Depend on `twr-runtime`.

/// The README's code blocks, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
