//! The guide: how to use twr, one page per topic, in reading order.
//!
//! The pages are the Markdown files in `twr-runtime/docs/guide/`, read on
//! GitHub as they are and here as these modules. Their Rust code blocks are
//! this crate's doc tests: `cargo test --workspace` compiles every one and
//! runs those that need no server (a [`ScriptedModel`](crate::ScriptedModel)
//! answers them); a block that asks a real server is compiled only
//! (`no_run`). The modules hold no items.
//!
//! 1. [`getting_started`]: the dependency lines, a larger example, and
//!    pointing the examples at a real model.
//! 2. [`derive`](mod@derive): `#[derive(Sections)]`, its attributes, the guide it
//!    writes and the mistakes it reports; header styles.
//! 3. [`tables`]: tables, records and maps inside a section.
//! 4. [`ways`]: ways to answer (an enum deriving `Sections`) and shared
//!    groups (`flatten`).
//! 5. [`rules`]: rules across sections, and checks that need the world.
//! 6. [`phrases`]: the feedback in your own words, in any language.
//!    [`numbers`]: numbers as the user writes them (`NumberStyle`).
//! 7. [`parsing`]: how a reply is read.
//! 8. [`the_loop`]: [`Think`](crate::Think): attempts, patches, budgets,
//!    the ledger, escalation, many prompts.
//!    [`confidence`]: how sure the model was of each section, and the
//!    values to review.
//! 9. [`traces`]: the run as OpenTelemetry spans.
//! 10. [`small_models`]: the loop's rules for models of a few hundred
//!     million parameters.
//! 11. [`grammars`]: when asking is not enough: the constrained attempt.
//! 12. [`learning`]: demonstrations learned from what worked, and which
//!     feedback worked.
//! 13. [`streaming`]: sections typed as they arrive, and early abort.
//! 14. [`batch`]: providers' batch APIs, and jobs too large to hold;
//!     [`many_machines`]: one job drained by many machines (PostgreSQL),
//!     and which store to use when.
//! 15. [`images`]: images and documents in the prompt.
//! 16. [`clients`]: the HTTP clients, your own provider, and the wrappers.
//! 17. [`your_client`]: using the client you already have (async-openai,
//!     genai, rig).
//! 18. [`json`]: JSON extraction and repair.
//! 19. [`measurements`]: every figure, with the command that reproduces
//!     it.
//! 20. [`working_on_twr`]: the tests and the layout of the repository.
//!
//! Only the pages live here; each module is a page, included whole. The
//! four whose examples call the HTTP clients (the loop, confidence,
//! grammars, streaming) are included with those clients only, so that
//! `cargo test -p twr-runtime --no-default-features` compiles every example
//! it shows.

#[doc = include_str!("../../docs/guide/getting_started.md")]
pub mod getting_started {}
#[doc = include_str!("../../docs/guide/derive.md")]
pub mod derive {}
#[doc = include_str!("../../docs/guide/tables.md")]
pub mod tables {}
#[doc = include_str!("../../docs/guide/ways.md")]
pub mod ways {}
#[doc = include_str!("../../docs/guide/rules.md")]
pub mod rules {}
#[doc = include_str!("../../docs/guide/phrases.md")]
pub mod phrases {}
#[doc = include_str!("../../docs/guide/numbers.md")]
pub mod numbers {}
#[doc = include_str!("../../docs/guide/parsing.md")]
pub mod parsing {}
#[cfg_attr(feature = "__client", doc = include_str!("../../docs/guide/the_loop.md"))]
#[cfg_attr(
    not(feature = "__client"),
    doc = "The loop: this page's examples use the HTTP clients, so its text is built with the `client` feature (on by default) or `native-tls`."
)]
pub mod the_loop {}
#[cfg_attr(feature = "__client", doc = include_str!("../../docs/guide/confidence.md"))]
#[cfg_attr(
    not(feature = "__client"),
    doc = "Confidence: this page's examples use the HTTP clients, so its text is built with the `client` feature (on by default) or `native-tls`."
)]
pub mod confidence {}
#[doc = include_str!("../../docs/guide/traces.md")]
pub mod traces {}
#[doc = include_str!("../../docs/guide/small_models.md")]
pub mod small_models {}
#[cfg_attr(feature = "__client", doc = include_str!("../../docs/guide/grammars.md"))]
#[cfg_attr(
    not(feature = "__client"),
    doc = "Grammars: this page's examples use the HTTP clients, so its text is built with the `client` feature (on by default) or `native-tls`."
)]
pub mod grammars {}
#[doc = include_str!("../../docs/guide/learning.md")]
pub mod learning {}
#[cfg_attr(feature = "__client", doc = include_str!("../../docs/guide/streaming.md"))]
#[cfg_attr(
    not(feature = "__client"),
    doc = "Streaming: this page's examples use the HTTP clients, so its text is built with the `client` feature (on by default) or `native-tls`."
)]
pub mod streaming {}
#[doc = include_str!("../../docs/guide/batch.md")]
pub mod batch {}
#[doc = include_str!("../../docs/guide/many_machines.md")]
pub mod many_machines {}
#[doc = include_str!("../../docs/guide/images.md")]
pub mod images {}
#[doc = include_str!("../../docs/guide/clients.md")]
pub mod clients {}
#[doc = include_str!("../../docs/guide/your_client.md")]
pub mod your_client {}
#[doc = include_str!("../../docs/guide/json.md")]
pub mod json {}
#[doc = include_str!("../../docs/guide/measurements.md")]
pub mod measurements {}
#[doc = include_str!("../../docs/guide/working_on_twr.md")]
pub mod working_on_twr {}
