//! The tests that set process environment variables (`LLM_MAX_RETRIES`,
//! `TWR_MAX_ATTEMPTS`), in a test binary of their own: the environment is
//! one for the whole process, and every `Think` without an explicit number
//! of attempts reads it, so in `tests/it` they would change what the tests
//! running beside them on other threads see. Here they take turns through
//! [`ENVIRONMENT`].

#[path = "../it/support/think.rs"]
mod think_support;

mod think_env;
mod think_env_twr;

/// Held by each test for as long as it changes and reads the environment.
static ENVIRONMENT: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
