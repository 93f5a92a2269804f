//! Helpers shared by the test modules.

pub mod anthropic_batch;
pub mod backends;
pub mod batch_core;
pub mod client;
pub mod gemini_batch;
pub mod openai_batch;
pub mod secret_png;
pub mod think;

/// An error and each error of its `source()` chain, joined by `": "`: the
/// whole story a report prints (each cause is said once along the chain,
/// `error_chains.rs`).
pub fn report(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
