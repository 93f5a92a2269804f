//! Google's Generative Language API, side by side: the online API
//! (`online.rs`) and its batch mode (`batch.rs`, feature `batch`).

mod online;
pub(crate) use online::error_status;
pub use online::{Gemini, GeminiApi};
#[cfg(test)]
pub(crate) use online::ATTACHMENTS;

#[cfg(feature = "batch")]
mod batch;
#[cfg(feature = "batch")]
pub use batch::GeminiBatchApi;
