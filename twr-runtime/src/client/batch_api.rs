//! What a provider's batch API must do for a [`BatchModel`](crate::batch::BatchModel):
//! write one request line, submit a batch, say where it stands, and read its
//! results. One implementation per provider, in its folder beside its
//! online client (`client/openai/batch.rs`, ...), and the in-process
//! [`LocalBatchApi`](crate::batch::LocalBatchApi).

use crate::model::{BoxFuture, ChatModel, ModelError, Reply, Request};

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
///
/// A result line that cannot be read fails only its own run: its error is a
/// [`ModelError::Decode`] that holds the line's text. When even its custom
/// id cannot be read, its custom id is the empty string (no line is ever
/// submitted under it): the [`BatchModel`](crate::batch::BatchModel) gives its
/// text to the runs of the batch that are left without a result.
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

    /// The online model this API is the batch form of (for a built-in, the
    /// client it was made from; for [`LocalBatchApi`](crate::batch::LocalBatchApi),
    /// the model that answers the lines). The batch model takes three
    /// things from it, so a provider never repeats them: its
    /// [`name`](ChatModel::name) (for the journal's keys and the ledger),
    /// its [`request_options`](ChatModel::request_options) (the journal's
    /// keys hold them, as online) and its
    /// [`takes_grammar`](ChatModel::takes_grammar) (whether the loop
    /// constrains an attempt, and the grammar's rendering in a line). The
    /// batch model never calls it.
    fn online(&self) -> &dyn ChatModel;

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

    /// The results of the ended batch `id`, in any order. A submitted line
    /// with no result is one the batch never ran: its run's call fails,
    /// transient (asked again in the next round) when the batch's last
    /// [`Status::Ended`] word is `"expired"`, not transient otherwise.
    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<LineResult>, ModelError>>;
}

/// A result line that could not be read, as `why` says: its custom id
/// (read from `raw` as JSON with `id_at` when it is, else by finding the
/// first `"custom_id": "..."` in its text), and a decode error that holds
/// its whole text, passed through `scrub`.
pub(crate) fn unreadable(
    raw: &[u8],
    why: &dyn std::fmt::Display,
    id_at: &[&str],
    scrub: impl Fn(&str) -> String,
) -> LineResult {
    let text = String::from_utf8_lossy(raw);
    let custom_id = match serde_json::from_slice::<serde_json::Value>(raw) {
        Ok(value) => id_at
            .iter()
            .try_fold(&value, |v, key| v.get(key))
            .and_then(|id| id.as_str())
            .map(str::to_string),
        Err(_) => id_in_text(&text, id_at.last().copied().unwrap_or("custom_id")),
    }
    .unwrap_or_default();
    let whose = if custom_id.is_empty() {
        "a result line with no readable custom id".to_string()
    } else {
        format!("the result line of request {custom_id}")
    };
    let error = ModelError::Decode(
        format!(
            "{whose} could not be read ({why}); the line: {}",
            scrub(text.trim())
        )
        .into(),
    );
    (custom_id, Err(error))
}

/// The string value of the first `"key": "..."` in `text`, a line that is
/// not JSON (cut off, or broken elsewhere). Written by hand: one forward
/// scan for a fixed pattern, where a JSON parser cannot help (the text is
/// not JSON) and a regex crate would be a dependency for four lines.
fn id_in_text(text: &str, key: &str) -> Option<String> {
    let quoted = format!("\"{key}\"");
    let after = &text[text.find(&quoted)? + quoted.len()..];
    let value = after.trim_start().strip_prefix(':')?.trim_start();
    let value = value.strip_prefix('"')?;
    let end = value.find(['"', '\\'])?;
    (value[end..].starts_with('"') && end > 0).then(|| value[..end].to_string())
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
