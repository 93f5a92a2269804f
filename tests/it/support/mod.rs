//! Helpers shared by the test modules.

pub mod client;
pub mod think;
