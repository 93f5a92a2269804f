//! Helpers shared by the test modules.

pub mod anthropic_batch;
pub mod batch_core;
pub mod client;
pub mod gemini_batch;
pub mod openai_batch;
pub mod think;
