//! The workspace root package: it owns the examples, the integration tests
//! and the benches of twr. Depend on `twr-runtime`.
