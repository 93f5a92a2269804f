//! The ledger as data (feature `serde`): [`Outcome`], [`Attempt`],
//! [`ThinkError`] and what they hold serialize, so a run can be logged as a
//! JSON line.
//!
//! Written by hand rather than derived: the shape is chosen for logs
//! (durations as `*_ms` numbers, feedback as its text and headers, kinds as
//! snake_case names) and stays stable while the Rust types grow. Nothing
//! secret is in a ledger: server text was scrubbed of keys before it was
//! stored, and no client option is part of it.

use std::time::Duration;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::error::{ThinkError, ThinkErrorKind};
use super::outcome::{
    Attempt, AttemptKind, Ending, FailedCall, Outcome, SectionSource, TransportRetry,
};
use crate::feedback::Feedback;
use crate::json::JsonProvenance;
use crate::model::Reply;
use crate::model::Served;

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// A snake_case name of an attempt kind (`"rejected"`).
fn attempt_kind(kind: AttemptKind) -> String {
    let name = format!("{kind:?}");
    let mut snake = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}

/// Feedback as the message the model was sent and the headers it names.
struct FeedbackData<'a>(&'a Feedback);

impl Serialize for FeedbackData<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Feedback", 2)?;
        s.serialize_field("message", &self.0.to_string())?;
        s.serialize_field("headers", &self.0.headers())?;
        s.end()
    }
}

/// A JSON section's provenance: its header and what the reader did
/// (`"repair(trailing_comma)"`).
struct ProvenanceData<'a>(&'a JsonProvenance);

impl Serialize for ProvenanceData<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("JsonProvenance", 2)?;
        s.serialize_field("header", self.0.header)?;
        s.serialize_field("report", &self.0.report.to_string())?;
        s.end()
    }
}

impl Serialize for Reply {
    /// `{content, reasoning, usage, finish_reason}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Reply", 4)?;
        s.serialize_field("content", &self.content)?;
        s.serialize_field("reasoning", &self.reasoning)?;
        s.serialize_field("usage", &self.usage)?;
        s.serialize_field("finish_reason", &self.finish_reason)?;
        s.end()
    }
}

impl Serialize for TransportRetry {
    /// `{error, delay_ms, partial}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("TransportRetry", 3)?;
        s.serialize_field("error", &self.error)?;
        s.serialize_field("delay_ms", &millis(self.delay))?;
        s.serialize_field("partial", &self.partial)?;
        s.end()
    }
}

impl Serialize for Attempt {
    /// `{number, kind, model, raw, reasoning, problems: {message, headers},
    /// sent_back, latency_ms, usage, usage_reported, finish_reason,
    /// transport_retries, json: [{header, report}], served: "live" |
    /// "journal" | "cache" | {batch_id, custom_id}, cost}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Attempt", 15)?;
        s.serialize_field("number", &self.number)?;
        s.serialize_field("kind", &attempt_kind(self.kind))?;
        s.serialize_field("model", &self.model)?;
        s.serialize_field("raw", &self.raw)?;
        s.serialize_field("reasoning", &self.reasoning)?;
        s.serialize_field("problems", &self.problems.as_ref().map(FeedbackData))?;
        s.serialize_field("sent_back", &self.sent_back)?;
        s.serialize_field("latency_ms", &millis(self.latency))?;
        s.serialize_field("usage", &self.usage)?;
        s.serialize_field("usage_reported", &self.usage_reported)?;
        s.serialize_field("finish_reason", &self.finish_reason)?;
        s.serialize_field("transport_retries", &self.transport_retries)?;
        let json: Vec<ProvenanceData<'_>> = self.json.iter().map(ProvenanceData).collect();
        s.serialize_field("json", &json)?;
        s.serialize_field("served", &ServedData(&self.served))?;
        s.serialize_field("cost", &self.cost)?;
        s.end()
    }
}

/// Where a reply came from: `"live"`, `"journal"`, `"cache"` or
/// `{"batch_id": ..., "custom_id": ...}`.
struct ServedData<'a>(&'a Served);

impl Serialize for ServedData<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Served::Live => serializer.serialize_str("live"),
            Served::Journal => serializer.serialize_str("journal"),
            Served::Cache => serializer.serialize_str("cache"),
            Served::Batch {
                batch_id,
                custom_id,
            } => {
                let mut s = serializer.serialize_struct("Batch", 2)?;
                s.serialize_field("batch_id", batch_id)?;
                s.serialize_field("custom_id", custom_id)?;
                s.end()
            }
        }
    }
}

impl Serialize for SectionSource {
    /// `{header, attempt}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("SectionSource", 2)?;
        s.serialize_field("header", self.header)?;
        s.serialize_field("attempt", &self.attempt)?;
        s.end()
    }
}

impl<T: Serialize> Serialize for Outcome<T> {
    /// `{value, ending: "first_try" | "reasked" | "repaired", reasks,
    /// attempts, usage, cost, transcript, sources, elapsed_ms}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (ending, reasks) = match self.ending {
            Ending::FirstTry => ("first_try", 0),
            Ending::Reasked(n) => ("reasked", n),
            Ending::Repaired(n) => ("repaired", n),
        };
        let mut s = serializer.serialize_struct("Outcome", 9)?;
        s.serialize_field("value", &self.value)?;
        s.serialize_field("ending", ending)?;
        s.serialize_field("reasks", &reasks)?;
        s.serialize_field("attempts", &self.attempts)?;
        s.serialize_field("usage", &self.usage)?;
        s.serialize_field("cost", &self.cost())?;
        s.serialize_field("transcript", &self.transcript)?;
        s.serialize_field("sources", &self.sources)?;
        s.serialize_field("elapsed_ms", &millis(self.elapsed))?;
        s.end()
    }
}

impl Serialize for FailedCall {
    /// `{number, failures, latency_ms, usage, cost}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("FailedCall", 5)?;
        s.serialize_field("number", &self.number)?;
        s.serialize_field("failures", &self.failures)?;
        s.serialize_field("latency_ms", &millis(self.latency))?;
        s.serialize_field("usage", &self.usage)?;
        s.serialize_field("cost", &self.cost)?;
        s.end()
    }
}

impl Serialize for ThinkError {
    /// `{kind: "exhausted" | "repeated_reply" | "budget" | "model",
    /// message, attempts, failed_call, requests, usage, cost}`; `message` is the
    /// error's `Display`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kind = match self.kind() {
            ThinkErrorKind::Exhausted => "exhausted",
            ThinkErrorKind::RepeatedReply => "repeated_reply",
            ThinkErrorKind::Budget { .. } => "budget",
            ThinkErrorKind::Model { .. } => "model",
        };
        let mut s = serializer.serialize_struct("ThinkError", 7)?;
        s.serialize_field("kind", kind)?;
        s.serialize_field("message", &self.to_string())?;
        s.serialize_field("attempts", self.attempts())?;
        s.serialize_field("failed_call", &self.failed_call())?;
        s.serialize_field("requests", &self.requests())?;
        s.serialize_field("usage", &self.usage())?;
        s.serialize_field("cost", &self.cost())?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempt_kinds_are_snake_case() {
        assert_eq!(attempt_kind(AttemptKind::Rejected), "rejected");
        assert_eq!(attempt_kind(AttemptKind::Aborted), "aborted");
        assert_eq!(attempt_kind(AttemptKind::Accepted), "accepted");
    }
}
