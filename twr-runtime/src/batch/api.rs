//! What a provider's batch API must do for a [`BatchModel`](super::BatchModel):
//! write one request line, submit a batch, say where it stands, and read its
//! results. One implementation per provider, in the files beside this one.

use crate::grammar::Format;
use crate::model::{BoxFuture, ModelError, Reply, Request};

/// Where a submitted batch stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Still being validated, queued or run; with the provider's own word.
    Running(String),
    /// Over: every line has its result or never will (completed, expired,
    /// cancelled, failed); with the provider's own word.
    Ended(String),
}

/// One line's result, by its custom id.
pub type LineResult = (String, Result<Reply, ModelError>);

/// A provider's batch API.
pub trait BatchApi: Send + Sync + 'static {
    /// The provider's name in the journal (`"openai"`).
    const PROVIDER: &'static str;

    /// The most lines one batch may hold (the provider's limit).
    const MAX_LINES: usize;

    /// The most bytes of requests one batch may hold: the sum of its lines'
    /// request bodies as JSON, kept a little under the provider's limit on
    /// the whole upload, which also holds each line's envelope.
    const MAX_BYTES: usize;

    /// The model's name, for keys and the ledger.
    fn model_name(&self) -> &str;

    /// The options its requests carry (as the online client's
    /// [`request_options`](crate::ChatModel::request_options)).
    fn request_options(&self) -> Option<serde_json::Value>;

    /// The rendering of a grammar its requests carry (as the online
    /// client's [`takes_grammar`](crate::ChatModel::takes_grammar)).
    ///
    /// Provided: `None`, a batch API whose lines carry no grammar.
    fn takes_grammar(&self) -> Option<Format> {
        None
    }

    /// The request of one line: the body the online client would send for
    /// `request`, its messages and its grammar (in the field the client's
    /// dialect names, if it has one).
    fn line(&self, request: Request<'_>) -> Result<serde_json::Value, ModelError>;

    /// Submits `lines` (custom id, request) as one batch; its id.
    fn submit<'a>(
        &'a self,
        lines: &'a [(String, serde_json::Value)],
    ) -> BoxFuture<'a, Result<String, ModelError>>;

    /// Where batch `id` stands.
    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Status, ModelError>>;

    /// The results of the ended batch `id`, in any order; a line with no
    /// result is one the batch never ran (see `missing`).
    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<LineResult>, ModelError>>;
}

/// The error of a line that a batch ended without running: transient for a
/// batch that expired (a new batch can run it), not for one that was
/// cancelled or failed (asking again would meet the same fate).
pub(crate) fn missing(batch: &str, custom_id: &str, status: &str) -> ModelError {
    let message = format!("batch {batch} ended ({status}) before request {custom_id} ran");
    if status == "expired" {
        ModelError::Interrupted(message.into())
    } else {
        ModelError::Other(message.into())
    }
}
