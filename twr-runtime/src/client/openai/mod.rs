//! OpenAI's API and every server that speaks it, side by side: the online
//! chat API (`online.rs`) and the Batch API (`batch.rs`, feature `batch`).

mod online;
pub use online::{OpenAiApi, OpenAiCompatible};
#[cfg(test)]
pub(crate) use online::ATTACHMENTS;

#[cfg(feature = "batch")]
mod batch;
#[cfg(feature = "batch")]
pub use batch::OpenAiBatchApi;
