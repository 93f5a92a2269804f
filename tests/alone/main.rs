//! The tests that need their process alone, in a test binary apart from
//! `tests/it`, where tests run side by side on several threads:
//!
//! - `think_env`, `think_env_twr` set environment variables
//!   (`LLM_MAX_RETRIES`, `TWR_MAX_ATTEMPTS`); the environment is one for the
//!   whole process, and every `Think` without an explicit number of attempts
//!   reads it;
//! - `batch_load` and `think_memory` count live heap bytes with the counting
//!   global allocator of this binary ([`heap`]), so any other test
//!   allocating meanwhile would be counted;
//! - `attachment_tracing` reads what a `tracing` subscriber of its own
//!   writes: tracing keeps one interest per call site for the process, which
//!   another test's subscriber on another thread could change meanwhile.
//!
//! Here they take turns: each holds [`ALONE`] from start to end.

#[path = "../it/support/openai_batch.rs"]
mod openai_batch;
// Only its `Captured` writer is used here (the file allows what is unused).
#[path = "../it/support/client.rs"]
mod client_support;
#[path = "../it/support/secret_png.rs"]
mod secret_png;
#[path = "../it/support/think.rs"]
mod think_support;

mod attachment_tracing;
mod batch_load;
mod heap;
mod think_env;
mod think_env_twr;
mod think_memory;

/// Held by each test of this binary for as long as it runs.
static ALONE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
