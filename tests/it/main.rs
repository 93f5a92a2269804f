//! The integration tests, as one test binary: one module per concern, the
//! shared helpers in `support/`, compiled and linked once (each file of
//! `tests/` is a crate of its own, so 52 files meant 52 links and the
//! helpers compiled once per file that used them).
//!
//! Standing apart in `tests/`, each for a reason of its own process:
//! `ui.rs` (trybuild compiles each case in `tests/ui/` as a crate of its
//! own), `e2e_local_llm.rs` (needs a real model server, run on its own as
//! `cargo test -p twr-tests --test e2e_local_llm -- --ignored`) and `alone/` (tests that
//! set process environment variables, which every thread of a binary shares
//! and every `Think` reads, or count the whole heap with a global
//! allocator).

mod support;

mod attachments;
mod batch_lines;
mod batch_openai;
mod batch_outside;
mod batch_providers;
mod batch_resume;
mod client_anthropic;
mod client_edges;
mod client_gemini;
mod client_grammar;
mod client_logprobs;
mod client_openai;
mod client_otel;
mod client_retry;
mod client_stream;
mod contract_names;
mod custom_provider;
mod derive_bounds;
mod derive_choice;
mod derive_contract;
mod derive_flatten;
mod derive_formats;
mod derive_rules;
mod derive_ways;
// Public, as the crate root of its own binary was: its lints (`missing_docs`,
// `dead_code`) then judge the generated code as they would in a user's library.
pub mod derive_hygiene;
mod derive_parse;
mod derive_specs;
mod derive_styles;
mod error_chains;
mod grammar;
mod journal_confidence;
mod journal_fleet;
mod journal_lease;
mod journal_postgres;
mod journal_resume;
mod json_exact_numbers;
mod json_fragments;
mod json_layers;
mod json_linear;
mod json_peer_classes;
mod json_props;
mod json_section;
mod json_unambiguous;
mod load_faults;
mod number_props;
mod parse_linear;
mod parse_one_reading;
mod parse_props;
mod parse_samples;
mod parse_tool_styles;
mod phrases_custom;
mod phrases_words;
mod providers;
mod readme_examples;
mod resilience_breaker;
mod resilience_limited;
mod stray_headers;
mod stream_linear;
mod stream_props;
mod stream_typed;
mod think_batch;
mod think_check;
mod think_constrain;
mod think_cost;
mod think_deadline;
mod think_derived;
mod think_escalate;
mod think_json;
mod think_junk;
mod think_learn;
mod think_ledger;
mod think_loop;
mod think_merge_props;
mod think_otel;
mod think_partial;
mod think_patch;
mod think_promises;
mod think_samples;
mod think_samples_n;
mod think_serde;
mod think_service;
mod think_small_models;
mod think_stream;
mod think_stream_http;
mod think_stream_progress;
mod think_tracing;
mod think_transport;
mod think_ways;
mod think_wording;
mod typed_once;
mod values_exact;
