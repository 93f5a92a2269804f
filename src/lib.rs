//! The workspace root package: it owns the examples, the integration tests
//! and the benches of twr. Depend on `twr-runtime`.

/// The README's code blocks, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
