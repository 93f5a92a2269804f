//! Helpers shared by the test modules.

pub mod client;
pub mod openai_batch;
pub mod think;
