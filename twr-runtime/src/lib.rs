//! # twr — Think-With-Retry
//!
//! Typed, validated values out of large language models without forcing them
//! into rigid JSON. twr asks for a natural answer with loose section headers
//! (`[Plan]`, `[Timeline]`, ...), parses it with a validating parser, and when
//! a section is missing or malformed tells the model exactly what to fix and
//! asks again, until the value parses or the budget is spent.
//!
//! The pieces, one module per concern:
//!
//! - [`Sections`] and [`macro@Sections`]: the derive that turns a struct into
//!   headers, a format guide, a parser and field-specific feedback.
//! - [`parse`]: the section parser and the free parsers
//!   ([`parse::multi_section_parser`], [`parse::divider_parser`]).
//! - [`feedback`]: structured problems and the message sent back to the model.
//! - [`json`]: layered JSON extraction and repair.
//! - [`prompt`]: the soft-format guide.
//! - [`think`]: the loop ([`think_with_retry`], [`Think`]) and its ledger.
//! - [`resilience`]: [`Fallback`] across models, a [`CircuitBreaker`], shared
//!   [`Limited`] rates.
//! - [`retry`]: transport retries; [`scripted`]: a replaying model for tests;
//!   [`text`]: the shared text a reply is held in, once.
#![warn(missing_docs)]

pub mod choice;
pub mod client;
pub mod feedback;
pub mod json;
pub mod model;
pub mod parse;
pub mod prompt;
mod reasoning;
pub mod resilience;
pub mod retry;
pub mod scripted;
pub mod sections;
pub mod text;
pub mod think;

mod phrases;
mod vocab;

#[doc(hidden)]
pub mod __private;

pub use choice::Choice;
pub use client::{Anthropic, Gemini, OpenAiCompatible};
pub use feedback::{Feedback, Lang, Place, Problem, ProblemKind};
pub use model::{
    BoxFuture, BoxStream, ChatModel, Delta, ErrorDetail, FinishReason, Message, ModelError, Reply,
    Role, Usage,
};
pub use resilience::{CircuitBreaker, Fallback, Limited, RateLimits};
pub use retry::RetryPolicy;
pub use scripted::ScriptedModel;
pub use sections::{Presence, SectionSpec, Sections, Style, ValueKind};
pub use text::SharedText;
pub use think::BatchProgress;
pub use think::{
    think_with_retry, Attempt, AttemptKind, BudgetLimit, Ending, Outcome, RetryMode, Think,
    ThinkError, ThinkErrorKind,
};
pub use think::{Completed, Progress, SectionEvent};

/// Derives [`Sections`](trait@Sections) for a struct with named fields.
///
/// See the crate README for every attribute.
pub use twr_derive::Sections;

/// Derives [`Choice`](trait@Choice) for an enum whose variants carry no data.
pub use twr_derive::Choice;
