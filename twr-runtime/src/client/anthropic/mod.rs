//! Anthropic's API, side by side: the Messages API (`online.rs`) and
//! Message Batches (`batch.rs`, feature `batch`).

mod online;
pub(crate) use online::{error_status, rate_limits};
pub use online::{Anthropic, AnthropicApi, ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS};
#[cfg(test)]
pub(crate) use online::{tests, ATTACHMENTS};

#[cfg(feature = "batch")]
mod batch;
#[cfg(feature = "batch")]
pub use batch::AnthropicBatchApi;
