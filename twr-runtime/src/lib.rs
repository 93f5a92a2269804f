//! # twr — Think-With-Retry
//!
//! Typed, validated values out of large language models without forcing them
//! into rigid JSON. twr asks for a natural answer with loose section headers
//! (`[Plan]`, `[Timeline]`, ...), parses it with a validating parser, and when
//! a section is missing or malformed tells the model exactly what to fix and
//! asks again, until the value parses or the budget is spent.
//!
//! The [`guide`] shows how to use it, one page per topic (the derive, the
//! loop, small models, grammars, streaming, batch APIs, clients, traces,
//! ...), and its [`guide::measurements`] page every figure with the command
//! that reproduces it.
//!
//! ## Where things are: one path per item
//!
//! What a program names day to day lives at the crate root, and only
//! there:
//!
//! - the derives and their traits: [`Sections`] ([`macro@Sections`]),
//!   [`Choice`], and the [`SectionSpec`] that [`Sections::specs`] returns;
//! - the loop: [`think_with_retry`], [`Think`], [`RetryMode`],
//!   [`RetryPolicy`], and what a run returns or reports: [`Outcome`],
//!   [`Attempt`], [`AttemptKind`], [`ThinkError`], [`ThinkErrorKind`],
//!   [`Progress`], [`SectionEvent`];
//! - models: the [`ChatModel`] trait and its types ([`Message`], [`Role`],
//!   [`Reply`], [`Usage`], [`FinishReason`], [`Delta`], [`ModelError`],
//!   [`BoxStream`]), the
//!   clients ([`OpenAiCompatible`], [`Gemini`], [`Anthropic`]), the wrappers
//!   ([`Fallback`], [`CircuitBreaker`], [`Limited`]) and
//!   [`ScriptedModel`] for tests;
//! - the [`Feedback`] a failed parse returns.
//!
//! The modules hold what you reach for only now and then, and only there:
//!
//! - [`sections`]: what a section is made of ([`sections::ValueKind`],
//!   [`sections::Presence`], [`sections::Lang`], [`sections::Style`]) and
//!   the ways to answer of an enum ([`sections::WaysSpec`],
//!   [`sections::WaySpec`]), for a hand-written [`Sections`] or a look
//!   at the specs;
//! - [`feedback`]: what a [`Feedback`] holds: each [`feedback::Problem`],
//!   its [`feedback::ProblemKind`] and [`feedback::Place`], the ways of an
//!   enum ([`feedback::Way`]) and the message without its closing request
//!   ([`feedback::ProblemList`]);
//! - [`run`]: the details of a run's ledger ([`run::Ending`],
//!   [`run::SectionSource`], [`run::FailedRequest`], [`run::FailedCall`]),
//!   [`run::BudgetLimit`], [`run::Completed`], [`run::RunsProgress`], and
//!   the loop's defaults and environment variables
//!   ([`run::DEFAULT_MAX_ATTEMPTS`], [`run::TWR_MAX_ATTEMPTS_ENV`], ...);
//! - [`cost`]: [`cost::Prices`] per model and each model's [`cost::Price`];
//! - [`parse`]: the section parser and the free parsers
//!   ([`parse::multi_section_parser`], [`parse::divider_parser`]), the map
//!   of sections ([`parse::SectionMap`]), the incremental
//!   [`parse::SectionStream`], and [`parse::SectionValue`] for your own
//!   section types (with [`parse::ValueError`] and [`parse::Expected`]);
//! - [`json`]: layered JSON extraction and repair, and the record of how a
//!   value was found ([`json::Report`], [`json::JsonProvenance`], the type of
//!   [`Attempt::json`]);
//! - [`prompt`]: the soft-format guide, for a hand-written [`Sections`];
//! - [`client`]: what the clients are made of ([`client::HttpModel`] and
//!   each provider's part, such as [`client::OpenAiApi`]), their constants,
//!   and the [`client::Provider`] trait for an API of your own;
//! - [`resilience`]: the wrappers' defaults and [`resilience::CircuitOpen`];
//! - `journal` (feature `journal`): the durable journal, its jobs and the
//!   response cache, for [`Think::journal`] and [`Think::response_cache`];
//! - `batch` (feature `batch`): typed re-ask rounds over the providers'
//!   batch APIs, `batch::BatchModel`;
//! - [`model`]: the seam a model or a wrapper implements,
//!   [`ChatModel::call`], with its [`model::Request`], [`model::Response`]
//!   and [`model::BoxFuture`], and the parts of replies and errors named
//!   now and then ([`model::ErrorDetail`], [`model::Served`],
//!   [`model::http_error`] (what an HTTP error response means, for every
//!   client and adapter alike),
//!   [`model::RateLimits`], [`model::SharedText`],
//!   [`model::ScriptExhausted`]), and the images and documents of a message
//!   ([`model::Attachment`], [`model::AttachmentKind`], [`model::Content`],
//!   and [`model::AttachmentError`] with its [`model::LimitScope`]), which
//!   [`Message::with_image`] and its kin add.
//!
//! ## Cargo features
//!
//! | feature | default | what it adds | crates it brings |
//! | --- | --- | --- | --- |
//! | `client` | yes | the HTTP clients [`OpenAiCompatible`], [`Gemini`], [`Anthropic`] and the [`client`] module, over rustls (reqwest's default TLS); turns on `limits` | reqwest, hyper, h2, rustls, aws-lc-rs, governor |
//! | `native-tls` | no | the same clients over the platform's TLS (OpenSSL, Schannel, Security Framework) instead of rustls; with `client` too, the clients use the platform's TLS | reqwest, hyper, h2, native-tls, governor |
//! | `limits` | with `client` | [`Limited`]: concurrency, requests and tokens per minute for any [`ChatModel`], your own included | governor |
//! | `journal` | no | the durable journal and the response cache (`journal` module): a SQLite file, built from SQLite's bundled source | rusqlite, libsqlite3-sys, sha2 |
//! | `postgres` | no | `journal::Journal::postgres`: the same journal in a PostgreSQL database that many processes on many machines share; turns on `journal` | tokio-postgres, deadpool-postgres, rustls (over aws-lc-rs) |
//! | `batch` | no | `batch::BatchModel`: [`Think::run_many`] over a provider's batch API, in rounds of re-asks; turns on `journal` and the clients, but no TLS backend (so a `native-tls` program builds no rustls): the default features bring `client`; without them name `client` or `native-tls` too, or reach only `http://` servers | as `client` and `journal` |
//! | `schemars` | no | a `#[section(json)]` field whose type implements `schemars::JsonSchema` is written to that type's shape in every [`grammar`] rendering instead of any JSON value | schemars |
//! | `opentelemetry` | no | a client's call span carries `gen_ai.response.finish_reasons` as the string array the OpenTelemetry GenAI conventions type it, set through `tracing-opentelemetry` 0.34 (a `tracing` field holds no array: without the feature, the array's JSON text); see [`guide::traces`] | opentelemetry, tracing-opentelemetry |
//!
//! With `default-features = false`, twr-runtime is the derives, the
//! parser, JSON extraction and repair, the retry loop ([`Think`]), the
//! [`Fallback`] and [`CircuitBreaker`] wrappers and [`ScriptedModel`],
//! with no HTTP or TLS crate: bring your own [`ChatModel`]. [`model::RateLimits`]
//! is in every build; reading it from response headers is the clients'
//! part.
//!
//! ```toml
//! # the parser and the loop, for a model of your own
//! twr-runtime = { version = "0.1", default-features = false }
//! # the clients over the platform's TLS, no rustls
//! twr-runtime = { version = "0.1", default-features = false, features = ["native-tls"] }
//! ```
//!
//! ## Layout of the source
//!
//! One module per concern; `pub` ones are paths a program names, the rest
//! are the crate's own. In layer order, from the leaves up:
//!
//! ```text
//! twr-runtime/src/
//! ├── lib.rs           the root: day-to-day names, these docs
//! ├── vocab/           the leaf vocabulary: spec.rs (section specs, value kinds, presence, style, the ways of an enum), expected.rs
//! ├── byte_search.rs   the byte search of the stream parser and the reasoning lexer, and the lines of a section
//! ├── text.rs          SharedText: a reply held once, shared by the ledger
//! ├── choice.rs        the Choice trait
//! ├── reasoning/       the one lexer of <think> blocks, shared by parser, JSON and clients
//! ├── phrases/         pub: every word twr writes for a model, one table per language; lang.rs: Lang, which table
//! ├── feedback/        pub: problem.rs: what is wrong and where; report.rs: Feedback, every problem of one reply and the message that tells the model what to fix
//! ├── prompt.rs        pub: the soft-format guide
//! ├── json/            pub: layered JSON extraction and repair, and its report
//! ├── parse/           pub: the section parser, the derive's section reader, value codecs and their errors, tables and records;
//! │                    sections.rs: the Sections trait; set.rs: what a flattened type knows of its sections
//! ├── sections/        pub: paths only, the vocabulary, Lang and the Sections trait where a program names them
//! ├── grammar/         pub: the sections as a grammar a server enforces (GBNF, Lark, JSON schema)
//! ├── model/           pub: the ChatModel seam, messages and their attachments (attachment/), replies, errors
//! ├── retry.rs         the transport retry policy: whether to ask again, how long to wait
//! ├── scripted.rs      ScriptedModel, for tests and demos
//! ├── cost.rs          pub: prices per model, cost per attempt
//! ├── resilience/      pub: Fallback, CircuitBreaker, Limited
//! ├── client/          pub: HttpModel, the Provider seam, BatchApi; one folder per provider (openai/, gemini/,
//! │                    anthropic/), its online API and its batch API side by side (feature client)
//! ├── journal/         pub: the durable journal and the response cache (feature journal); store.rs: the
//! │                    one async seam to what keeps the records; sqlite/: the SQLite file, on tokio's blocking pool;
//! │                    postgres/: a PostgreSQL database (feature postgres)
//! ├── stored_model.rs  the journal and the response cache as a layer around the model
//! ├── think/           the loop: builder (mod.rs), driver.rs (one run, step by step), attempts, patch merging, ledger
//! │   ├── attempt/     the kinds of attempt, one file each, and the one enum naming them
//! │   └── stream/      streamed runs: events.rs (SectionEvent, Completed, Progress), notes.rs,
//! │                    watch.rs (the early-abort watcher), listener.rs, progress.rs
//! ├── run.rs           pub: the ledger's details and the loop's defaults
//! ├── batch/           pub: typed re-ask rounds over batch APIs (feature batch): BatchModel, the
//! │                    providers' aliases and constructors, LocalBatchApi
//! ├── __private.rs     what derived code calls; not an API
//! └── guide/           pub: the guide, one page per module, from twr-runtime/docs/guide/*.md
//! ```
//!
//! ## Layers
//!
//! The modules stand in layers, listed from the leaves up. A module names
//! (in a `use` or a path) only modules of the layers below its own: never
//! one above it, nor one beside it on its line. Its own tests may name any.
//! A test of this crate (`layer_check.rs`) reads this list and checks it against
//! every path of the source outside `#[cfg(test)]` items that leaves its
//! top-level module: `crate::x`, the same through a name the crate was
//! imported as (`use crate as twr;` then `twr::x`), and `super::` paths
//! that climb out of the module (`super::super::x`), each resolved to the
//! `crate::` path it stands for; a crate-root name (`crate::Think`) counts
//! as the module it is re-exported from. It reads the source text, not
//! the compiler's resolution: a name brought in by a glob or a macro
//! counts only where a path spells its module. So the list is the rule,
//! and a new module joins a line before its test passes.
//!
//! 1. `vocab`, `byte_search`, `text`, `choice`: the leaves, importing nothing of the crate
//! 2. `reasoning`: the lexer of `<think>` blocks
//! 3. `phrases`: the phrase tables, and `Lang`, which names one
//! 4. `feedback`, `prompt`: what is wrong with a reply and the message saying it; the format guide
//! 5. `json`: layered extraction and repair
//! 6. `parse`: the section parser, the value codecs and the `Sections` trait
//! 7. `sections`: paths only, where a program names the vocabulary and the trait
//! 8. `grammar`: the sections as a grammar a server enforces
//! 9. `model`: the `ChatModel` seam, messages and their attachments, replies, errors
//! 10. `retry`, `scripted`, `cost`, `resilience`: about one model: when to call again, a scripted one, prices, wrappers
//! 11. `client`, `journal`: the HTTP clients; the journal and the response cache
//! 12. `stored_model`: the journal and the response cache as a layer around the model, and what the loop records and learns from through it
//! 13. `think`: the loop
//! 14. `run`, `batch`, `__private`: the ledger's paths; rounds over batch APIs; what derived code calls
//! 15. `guide`: the guide's pages (`docs/guide/*.md`), documentation only
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The prose links the clients, the journal and the limits wherever it
// speaks of them; built without every one of those features, some targets
// are not there. The links are checked where they all are (CI's
// `cargo doc`, docs.rs with every feature), so only that build may leave
// one unresolved.
#![cfg_attr(
    not(all(feature = "__client", feature = "journal", feature = "limits")),
    allow(rustdoc::broken_intra_doc_links)
)]

/// Declares the files of the built-in providers and re-exports each one's
/// public names, one line per provider: `file: Name, Name;`. A client's
/// line starts with the model type a program names at the crate root, and
/// only there (`root` arm): gathered in the `models` module that the root
/// re-exports, while the other names are its module's.
/// Adding a built-in provider is its own file plus its line.
#[cfg(feature = "__client")]
macro_rules! built_in {
    (root $($file:ident: $model:ident $(, $name:ident)*;)+) => {
        $(pub(crate) mod $file; pub use $file::{$($name),*};)+
        /// The built-in providers' models, re-exported at the crate root.
        pub(crate) mod models {
            $(
                #[cfg_attr(docsrs, doc(cfg(any(feature = "client", feature = "native-tls"))))]
                pub use super::$file::$model;
            )+
        }
    };
    ($($file:ident: $($name:ident),+;)+) => {
        $(pub(crate) mod $file; pub use $file::{$($name),+};)+
    };
}

#[cfg(feature = "batch")]
#[cfg_attr(docsrs, doc(cfg(feature = "batch")))]
pub mod batch;
mod byte_search;
mod choice;
#[cfg(feature = "__client")]
#[cfg_attr(docsrs, doc(cfg(any(feature = "client", feature = "native-tls"))))]
pub mod client;
pub mod cost;
pub mod feedback;
pub mod grammar;
pub mod guide;
#[cfg(feature = "journal")]
#[cfg_attr(docsrs, doc(cfg(feature = "journal")))]
pub mod journal;
pub mod json;
pub mod model;
pub mod parse;
pub mod prompt;
mod reasoning;
pub mod resilience;
mod retry;
pub mod run;
mod scripted;
pub mod sections;
mod stored_model;
mod text;
mod think;
mod vocab;

pub mod phrases;

#[doc(hidden)]
pub mod __private;

#[cfg(test)]
mod layer_check;

pub use choice::Choice;
#[cfg(feature = "__client")]
#[cfg_attr(docsrs, doc(cfg(any(feature = "client", feature = "native-tls"))))]
pub use client::models::*;
pub use feedback::Feedback;
pub use model::chat::{BoxStream, ChatModel, Delta};
pub use model::error::ModelError;
pub use model::message::{FinishReason, Message, Reply, Role, Usage};
pub use resilience::breaker::CircuitBreaker;
pub use resilience::fallback::Fallback;
#[cfg(feature = "limits")]
#[cfg_attr(docsrs, doc(cfg(feature = "limits")))]
pub use resilience::limited::Limited;
pub use retry::RetryPolicy;
pub use scripted::ScriptedModel;
pub use sections::{SectionSpec, Sections};
pub use think::{
    think_with_retry, Attempt, AttemptKind, Learned, Outcome, Progress, RetryMode, SectionEvent,
    Think, ThinkError, ThinkErrorKind,
};

/// Derives [`Sections`](trait@Sections) for a struct with named fields, or
/// for an enum whose variants are ways to answer with sections of their own.
///
/// ```
/// use twr_runtime::{Choice, Sections};
///
/// #[derive(Debug, PartialEq, Choice)]
/// enum Pace {
///     Relaxed,
///     Packed,
/// }
///
/// #[derive(Debug, Sections)]
/// struct Trip {
///     /// What to see, one stop per line.
///     #[section(header = "[Plan]", example = "- Fushimi Inari\n- Gion")]
///     stops: Vec<String>,
///     #[section(aliases = ["Schedule"])]
///     timeline: String,
///     pace: Pace,
///     budget: u32,
///     notes: Option<String>,
/// }
///
/// let reply = "Kyoto in one day, then.\n[Plan]\n- Gion\n- Nishiki Market\n\
///              **Schedule:**\nDay 1, afternoon\n[Pace]\nrelaxed\n[Budget]\n$120";
/// let trip = Trip::parse_sections(reply).unwrap();
/// assert_eq!(trip.stops, ["Gion", "Nishiki Market"]);
/// assert_eq!(trip.timeline, "Day 1, afternoon");
/// assert_eq!(trip.pace, Pace::Relaxed);
/// assert_eq!(trip.budget, 120);
/// assert_eq!(trip.notes, None);
///
/// let headers: Vec<&str> = Trip::specs().iter().map(|s| s.header).collect();
/// assert_eq!(headers, ["[Plan]", "[Timeline]", "[Pace]", "[Budget]", "[Notes]"]);
///
/// // A reply that misses a section gives feedback naming it.
/// let feedback = Trip::parse_sections("[Plan]\n- Gion\n[Timeline]\nDay 1\n[Pace]\npacked").unwrap_err();
/// assert_eq!(feedback.headers(), ["[Budget]"]);
/// ```
///
/// On an enum, each variant is one way to answer, with sections of its own;
/// the reply's headers choose the variant:
///
/// ```
/// use twr_runtime::Sections;
///
/// #[derive(Debug, PartialEq, Sections)]
/// struct FinalAnswer {
///     answer: String,
///     confidence: u8,
/// }
///
/// #[derive(Debug, PartialEq, Sections)]
/// enum Step {
///     /// Search the web before answering.
///     Search { query: String },
///     /// Answer now.
///     Answer(FinalAnswer),
/// }
///
/// assert_eq!(
///     Step::parse_sections("[Query]\ncapital of France"),
///     Ok(Step::Search { query: "capital of France".into() })
/// );
/// assert_eq!(
///     Step::parse_sections("[Query]\nx\n[Answer]\nParis\n[Confidence]\n5")
///         .unwrap_err()
///         .to_string(),
///     "Your answer mixes the ways of Step: it has sections of Search ([Query]) and \
///      Answer ([Answer] and [Confidence]). Choose one way and write only its sections: \
///      Search ([Query]) or Answer ([Answer] and [Confidence])."
/// );
///
/// // Flattened after a shared section: an agent's step.
/// #[derive(Debug, PartialEq, Sections)]
/// struct AgentStep {
///     thought: String,
///     #[section(flatten)]
///     next: Step,
/// }
/// let step = AgentStep::parse_sections("[Thought]\nEasy.\n[Answer]\nParis\n[Confidence]\n5").unwrap();
/// assert_eq!(step.next, Step::Answer(FinalAnswer { answer: "Paris".into(), confidence: 5 }));
/// ```
///
/// Every attribute is described below (and in the guide, [`guide::derive`]).
pub use twr_derive::Sections;

/// Derives [`Choice`](trait@Choice) for an enum whose variants carry no data.
///
/// ```
/// use twr_runtime::Choice;
///
/// #[derive(Debug, PartialEq, Choice)]
/// enum Priority {
///     Low,
///     Medium,
///     High,
/// }
///
/// assert_eq!(Priority::VARIANTS, ["Low", "Medium", "High"]);
/// assert_eq!(Priority::from_choice("**high.**"), Some(Priority::High));
/// assert_eq!(Priority::from_choice("urgent"), None);
/// assert_eq!(Priority::Medium.as_choice(), "Medium");
/// ```
pub use twr_derive::Choice;
