//! The ledger as data: [`Outcome`], [`Attempt`],
//! [`ThinkError`] and what they hold serialize, so a run can be logged as a
//! JSON line.
//!
//! Written by hand rather than derived: the shape is chosen for logs
//! (durations as `*_ms` numbers, kinds and finish reasons as snake_case
//! names, feedback as what was wrong and the headers, each reply once: the
//! transcript refers to the attempts' `raw` and `sent_back` as
//! `{"role", "attempt"}`) and stays stable while the Rust types grow. Nothing
//! secret is in a ledger: server text was scrubbed of keys before it was
//! stored, and no client option is part of it.

use std::time::Duration;

use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

use super::error::{ThinkError, ThinkErrorKind};
use super::learn::Learned;
use super::outcome::{
    Attempt, AttemptKind, Ending, FailedCall, FailedRequest, Outcome, Sample, SectionSource,
};
use crate::feedback::Feedback;
use crate::json::JsonProvenance;
use crate::model::{Message, Reply, Role, Served};

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// A snake_case name of an attempt kind (`"rejected"`).
pub(super) fn attempt_kind(kind: AttemptKind) -> String {
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

/// Feedback as what was wrong and the headers it names. The message is
/// the problem list alone ([`Feedback::problem_list`]), without a closing
/// request: what the model was asked to write is the attempt's `sent_back`
/// (which opens with this list when the loop sent one), so the ledger says
/// it once and the two never disagree.
struct FeedbackData<'a>(&'a Feedback);

impl Serialize for FeedbackData<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Feedback", 2)?;
        s.serialize_field("message", &self.0.problem_list().to_string())?;
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

impl Serialize for FailedRequest {
    /// `{error, delay_ms, partial}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("FailedRequest", 3)?;
        s.serialize_field("error", &self.error)?;
        s.serialize_field("delay_ms", &millis(self.delay))?;
        s.serialize_field("partial", &self.partial)?;
        s.end()
    }
}

impl Serialize for Attempt {
    /// `{number, kind, model, raw, reasoning, feedback: {message, headers},
    /// sent_back, latency_ms, usage, usage_reported, finish_reason,
    /// transport_retries, constrained, json: [{header, report}], served: "live" |
    /// "journal" | "cache" | {batch_id, custom_id}, cost, confidence:
    /// {field: number}, samples: [{raw, reasoning, usage, finish_reason,
    /// served, cost}]}`; `samples` only for an attempt asked several times.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = if self.samples.is_empty() { 17 } else { 18 };
        let mut s = serializer.serialize_struct("Attempt", fields)?;
        s.serialize_field("number", &self.number)?;
        s.serialize_field("kind", &attempt_kind(self.kind))?;
        s.serialize_field("model", &self.model)?;
        s.serialize_field("raw", &self.raw)?;
        s.serialize_field("reasoning", &self.reasoning)?;
        s.serialize_field("feedback", &self.feedback.as_ref().map(FeedbackData))?;
        s.serialize_field("sent_back", &self.sent_back)?;
        s.serialize_field("latency_ms", &millis(self.latency))?;
        s.serialize_field("usage", &self.usage)?;
        s.serialize_field("usage_reported", &self.usage_reported)?;
        s.serialize_field("finish_reason", &self.finish_reason)?;
        s.serialize_field("transport_retries", &self.transport_retries)?;
        s.serialize_field("constrained", &self.constrained)?;
        let json: Vec<ProvenanceData<'_>> = self.json.iter().map(ProvenanceData).collect();
        s.serialize_field("json", &json)?;
        s.serialize_field("served", &ServedData(&self.served))?;
        s.serialize_field("cost", &self.cost)?;
        s.serialize_field("confidence", &ConfidenceData(&self.confidence))?;
        if !self.samples.is_empty() {
            s.serialize_field("samples", &self.samples)?;
        }
        s.end()
    }
}

impl Serialize for Sample {
    /// `{raw, reasoning, usage, finish_reason, served, cost}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Sample", 6)?;
        s.serialize_field("raw", &self.raw)?;
        s.serialize_field("reasoning", &self.reasoning)?;
        s.serialize_field("usage", &self.usage)?;
        s.serialize_field("finish_reason", &self.finish_reason)?;
        s.serialize_field("served", &ServedData(&self.served))?;
        s.serialize_field("cost", &self.cost)?;
        s.end()
    }
}

/// Confidences by field, as a JSON object `{"field": 0.75}` in the order
/// of the sections.
struct ConfidenceData<'a>(&'a [(&'static str, f64)]);

impl Serialize for ConfidenceData<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (field, confidence) in self.0 {
            map.serialize_entry(field, confidence)?;
        }
        map.end()
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

/// The transcript with each message the ledger already holds written as a
/// reference to its attempt: `{"role": "assistant", "attempt": n}` is
/// attempt `n`'s `raw`, `{"role": "user", "attempt": n}` its `sent_back`.
/// The messages before the first reply (the caller's and the prompt with
/// its format guide) are written whole, as `{role, content}`.
///
/// The run writes the transcript as those messages followed by, per
/// attempt, its reply and the message sent back about it; a transcript
/// changed since (the field is public) is written whole rather than
/// pointing at text it does not hold.
struct TranscriptData<'a> {
    transcript: &'a [Message],
    attempts: &'a [Attempt],
}

/// A transcript message that is an attempt's text.
struct AttemptRef {
    role: Role,
    attempt: usize,
}

impl Serialize for AttemptRef {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Message", 2)?;
        s.serialize_field("role", &self.role)?;
        s.serialize_field("attempt", &self.attempt)?;
        s.end()
    }
}

impl TranscriptData<'_> {
    /// The messages the attempts account for, in the run's order: each
    /// reply, then what was sent back about it.
    fn ledger_messages(&self) -> Vec<(Role, &str, usize)> {
        let mut messages = Vec::with_capacity(self.attempts.len() * 2);
        for attempt in self.attempts {
            messages.push((Role::Assistant, attempt.raw.as_str(), attempt.number));
            if let Some(sent_back) = &attempt.sent_back {
                messages.push((Role::User, sent_back.as_str(), attempt.number));
            }
        }
        messages
    }
}

impl Serialize for TranscriptData<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let known = self.ledger_messages();
        let base = self.transcript.len().checked_sub(known.len());
        let matches = base.is_some_and(|base| {
            self.transcript[base..]
                .iter()
                .zip(&known)
                .all(|(message, (role, text, _))| {
                    message.role == *role
                        && message.content.attachments().is_empty()
                        && message.content.as_str() == *text
                })
        });
        let mut seq = serializer.serialize_seq(Some(self.transcript.len()))?;
        match base.filter(|_| matches) {
            Some(base) => {
                for message in &self.transcript[..base] {
                    seq.serialize_element(message)?;
                }
                for &(role, _, attempt) in &known {
                    seq.serialize_element(&AttemptRef { role, attempt })?;
                }
            }
            None => {
                for message in self.transcript {
                    seq.serialize_element(message)?;
                }
            }
        }
        seq.end()
    }
}

impl<T: Serialize> Serialize for Outcome<T> {
    /// `{value, ending: "first_try" | "reasked" | "repaired", reasks,
    /// attempts, usage, cost, transcript, sources, learned, elapsed_ms,
    /// confidence: {field: number}, needs_review: [field]}`. Each reply
    /// is written once, as its attempt's `raw`: the transcript refers to it
    /// (see `TranscriptData`), `{"role": "assistant", "attempt": n}`, and
    /// to a message sent back as `{"role": "user", "attempt": n}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (ending, reasks) = match self.ending {
            Ending::FirstTry => ("first_try", 0),
            Ending::Reasked(n) => ("reasked", n),
            Ending::Repaired(n) => ("repaired", n),
        };
        let mut s = serializer.serialize_struct("Outcome", 10)?;
        s.serialize_field("value", &self.value)?;
        s.serialize_field("ending", ending)?;
        s.serialize_field("reasks", &reasks)?;
        s.serialize_field("attempts", &self.attempts)?;
        s.serialize_field("usage", &self.usage)?;
        s.serialize_field("cost", &self.cost())?;
        s.serialize_field(
            "transcript",
            &TranscriptData {
                transcript: &self.transcript,
                attempts: &self.attempts,
            },
        )?;
        s.serialize_field("sources", &self.sources)?;
        s.serialize_field("learned", &self.learned)?;
        s.serialize_field("elapsed_ms", &millis(self.elapsed))?;
        s.serialize_field("confidence", &ConfidenceData(&self.confidence))?;
        s.serialize_field("needs_review", &self.needs_review)?;
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
    /// message, attempts, failed_call, requests, usage, cost, learned}`; `message` is the
    /// error's `Display`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kind = match self.kind() {
            ThinkErrorKind::Exhausted => "exhausted",
            ThinkErrorKind::RepeatedReply => "repeated_reply",
            ThinkErrorKind::Budget { .. } => "budget",
            ThinkErrorKind::Model { .. } => "model",
        };
        let mut s = serializer.serialize_struct("ThinkError", 8)?;
        s.serialize_field("kind", kind)?;
        s.serialize_field("message", &self.to_string())?;
        s.serialize_field("attempts", self.attempts())?;
        s.serialize_field("failed_call", &self.failed_call())?;
        s.serialize_field("requests", &self.requests())?;
        s.serialize_field("usage", &self.usage())?;
        s.serialize_field("cost", &self.cost())?;
        s.serialize_field("learned", self.learned())?;
        s.end()
    }
}

impl Serialize for Learned {
    /// `{job, prompt, similarity}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Learned", 3)?;
        s.serialize_field("job", &self.job)?;
        s.serialize_field("prompt", &self.prompt)?;
        s.serialize_field("similarity", &self.similarity)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(number: usize, raw: &str, sent_back: Option<&str>) -> Attempt {
        Attempt {
            number,
            kind: AttemptKind::Rejected,
            model: "m".into(),
            raw: raw.into(),
            reasoning: None,
            feedback: None,
            sent_back: sent_back.map(str::to_owned),
            latency: Duration::ZERO,
            usage: Default::default(),
            usage_reported: false,
            finish_reason: None,
            transport_retries: Vec::new(),
            constrained: false,
            served: Served::Live,
            cost: None,
            json: Vec::new(),
            confidence: Vec::new(),
            samples: Vec::new(),
        }
    }

    fn transcript(transcript: &[Message], attempts: &[Attempt]) -> serde_json::Value {
        serde_json::to_value(TranscriptData {
            transcript,
            attempts,
        })
        .unwrap()
    }

    #[test]
    fn the_transcript_points_at_the_replies_it_shares_and_holds_what_it_does_not() {
        let attempts = [
            attempt(1, "no sections", Some("Write [A].")),
            attempt(2, "[A]\nx", None),
        ];
        let run = vec![
            Message::system("Be brief."),
            Message::user("Say x."),
            Message::assistant("no sections"),
            Message::user("Write [A]."),
            Message::assistant("[A]\nx"),
        ];
        assert_eq!(
            transcript(&run, &attempts),
            serde_json::json!([
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Say x."},
                {"role": "assistant", "attempt": 1},
                {"role": "user", "attempt": 1},
                {"role": "assistant", "attempt": 2},
            ])
        );
        // A transcript edited after the run no longer matches its
        // attempts: it is written whole, never pointing at other text.
        let mut edited = run.clone();
        edited[4] = Message::assistant("[A]\ny");
        assert_eq!(
            transcript(&edited, &attempts),
            serde_json::to_value(&edited).unwrap()
        );
        assert_eq!(
            transcript(&run[..2], &attempts),
            serde_json::to_value(&run[..2]).unwrap()
        );
    }

    #[test]
    fn finish_reasons_are_snake_case_and_read_back() {
        use crate::model::FinishReason;
        let reasons = [
            FinishReason::Stop,
            FinishReason::Length,
            FinishReason::ContentFilter,
            FinishReason::Other("tool_calls".into()),
        ];
        let json = serde_json::to_value(&reasons).unwrap();
        assert_eq!(
            json,
            serde_json::json!(["stop", "length", "content_filter", "tool_calls"])
        );
        let back: Vec<FinishReason> = serde_json::from_value(json).unwrap();
        assert_eq!(back, reasons);
    }

    #[test]
    fn attempt_kinds_are_snake_case() {
        assert_eq!(attempt_kind(AttemptKind::Rejected), "rejected");
        assert_eq!(attempt_kind(AttemptKind::Aborted), "aborted");
        assert_eq!(attempt_kind(AttemptKind::Accepted), "accepted");
    }
}
