//! Promises of the README, the guide and the docs that no other test checks: a failed
//! run keeps each attempt's reasoning; the tracing event of an attempt names
//! the JSON layer and repairs; `ThinkError::model_error`, `Outcome::map` and
//! `Outcome::elapsed` do what they say.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::think::*;
use serde::Deserialize;
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::run::Ending;
use twr_runtime::{
    ChatModel, Message, ModelError, Reply, RetryMode, ScriptedModel, Sections, Think,
    ThinkErrorKind,
};

const PROMPT: &str = "Plan a 3-day trip to Kyoto";
const BAD_DAYS: &str =
    "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n[Days]\nthree\n[Budget]\n500";

fn with_reasoning(raw: &str, reasoning: &str) -> Reply {
    let mut reply = reply_with_usage(raw, 10, 5);
    reply.reasoning = Some(reasoning.to_string());
    reply
}

#[tokio::test]
async fn a_failed_run_keeps_each_attempts_reasoning() {
    let model = ScriptedModel::from_replies([
        with_reasoning("no sections", "They want a plan; I will chat first."),
        with_reasoning("[Plan]\nTemples", "Oops, the days and the budget."),
        with_reasoning("[Plan]\nTemples\n[Days]\nthree", "Days in words should do."),
    ]);
    let error = Think::new(&model)
        .max_attempts(3)
        .retry_mode(RetryMode::Full)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    let reasoning: Vec<Option<&str>> = error
        .attempts()
        .iter()
        .map(|a| a.reasoning.as_deref())
        .collect();
    assert_eq!(
        reasoning,
        [
            Some("They want a plan; I will chat first."),
            Some("Oops, the days and the budget."),
            Some("Days in words should do."),
        ]
    );
    // An attempt's own Debug output, what a log of one attempt shows, has
    // its reasoning whole; the error's is kept short.
    for (attempt, text) in error.attempts().iter().zip(reasoning.into_iter().flatten()) {
        let debug = format!("{attempt:?}");
        assert!(
            debug.contains(&format!("{text:?}")),
            "{text:?} not in {debug}"
        );
    }
    let debug = format!("{error:?}");
    assert!(debug.len() < 600, "{} bytes: {debug}", debug.len());
    assert!(!debug.contains("I will chat first"), "{debug}");
}

#[derive(Debug, PartialEq, Deserialize)]
struct Budget {
    total: u32,
    currency: String,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Meta {
    city: String,
}

#[derive(Debug, Sections)]
struct Costed {
    plan: String,
    #[section(json)]
    budget: Budget,
    #[section(json)]
    meta: Meta,
}

/// A tracing subscriber writing plain lines into a buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync {
        let writer = self.clone();
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_ansi(false)
            .without_time()
            .with_target(false)
            .with_writer(move || writer.clone())
            .finish()
    }

    /// The fields of each `twr attempt` event, the latency written as `N`
    /// (the one field that varies from run to run).
    fn attempt_fields(&self) -> Vec<String> {
        let log = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        log.lines()
            .filter_map(|line| line.split_once("twr attempt "))
            .map(|(_, fields)| {
                fields
                    .split(' ')
                    .map(|field| match field.split_once('=') {
                        Some(("latency_ms", _)) => "latency_ms=N".to_string(),
                        _ => field.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }
}

#[tokio::test]
async fn the_attempt_event_names_the_json_layer_and_repairs() {
    let captured = Captured::default();
    let _guard = tracing::subscriber::set_default(captured.subscriber());
    let model = ScriptedModel::new([
        "[Plan]\nTemples\n[Budget]\nabout five hundred\n[Meta]\n{\"city\": \"Kyoto\"}",
        "[Budget]\n```json\n{'total': 500, 'currency': 'USD',}\n```",
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Costed>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.ending, Ending::Repaired(1));
    assert_eq!(outcome.value.plan, "Temples");
    assert_eq!(
        outcome.value.budget,
        Budget {
            total: 500,
            currency: "USD".to_string()
        }
    );
    assert_eq!(outcome.value.meta.city, "Kyoto");
    assert_eq!(
        captured.attempt_fields(),
        [
            "attempt=1 kind=Rejected model=scripted latency_ms=N prompt_tokens=0 completion_tokens=0 problems=1 \
             transport_retries=0 json=",
            "attempt=2 kind=Merged model=scripted latency_ms=N prompt_tokens=0 completion_tokens=0 problems=0 \
             transport_retries=0 json=[Budget]=repair(trailing_comma,single_quotes) [Meta]=as_is",
        ]
    );
}

#[tokio::test]
async fn json_read_by_a_custom_parser_is_in_the_event_too() {
    let captured = Captured::default();
    let _guard = tracing::subscriber::set_default(captured.subscriber());
    let model = ScriptedModel::new(["Sure! {city: 'Kyoto'}"]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run_json::<Meta>(PROMPT)
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Meta {
            city: "Kyoto".to_string()
        }
    );
    assert_eq!(
        captured.attempt_fields(),
        [
            "attempt=1 kind=Accepted model=scripted latency_ms=N prompt_tokens=0 completion_tokens=0 problems=0 \
          transport_retries=0 json=reply=repair(unquoted_key,single_quotes)"
        ]
    );
}

#[tokio::test]
async fn model_error_is_the_error_that_ended_the_run() {
    let model = ScriptedModel::from_results([Err(ModelError::Status {
        status: 401,
        message: "invalid api key".to_string(),
        retry_after: None,
    })]);
    let error = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    let source = error.model_error().expect("the 401 that ended the run");
    assert!(
        matches!(source, ModelError::Status { status: 401, message, retry_after: None } if message == "invalid api key"),
        "{source:?}"
    );
    assert_eq!(
        source.to_string(),
        "the model server answered HTTP 401: invalid api key"
    );

    // A run that ended for the format has no model error.
    let model = ScriptedModel::new(["no sections"]);
    let error = Think::new(&model)
        .max_attempts(1)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    assert!(error.model_error().is_none(), "{error:?}");
}

#[tokio::test]
async fn map_changes_the_value_and_keeps_the_record() {
    let model = ScriptedModel::from_replies([
        reply_with_usage(BAD_DAYS, 100, 40),
        reply_with_usage("[Days]\n3", 180, 5),
    ]);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .system("You plan trips.")
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    let before = outcome.clone();
    let mapped = outcome.map(|trip| trip.days * 24);
    assert_eq!(mapped.value, 72);
    assert_eq!(mapped.attempts, before.attempts);
    assert_eq!(mapped.usage, before.usage);
    assert_eq!(mapped.transcript, before.transcript);
    assert_eq!(mapped.ending, Ending::Repaired(1));
    assert_eq!(mapped.sources, before.sources);
    assert_eq!(mapped.elapsed, before.elapsed);
    assert_eq!(mapped.final_reply(), before.final_reply());
    assert_eq!(
        mapped.final_exchange(),
        [
            Message::user(PROMPT),
            Message::assistant(before.final_reply())
        ]
    );
    assert_eq!(mapped.usage.total_tokens, 325);
}

/// Replays `inner`, each reply after `delay`.
struct Delayed {
    inner: ScriptedModel,
    delay: Duration,
}

impl ChatModel for Delayed {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            tokio::time::sleep(self.delay).await;
            self.inner.call(request).await
        })
    }
}

#[tokio::test]
async fn elapsed_is_the_wall_time_of_the_whole_run() {
    let delay = Duration::from_millis(60);
    let model = Delayed {
        inner: ScriptedModel::new(["no sections", GOOD]),
        delay,
    };
    let started = Instant::now();
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    let wall = started.elapsed();
    assert_eq!(outcome.attempts.len(), 2);
    let latencies: Duration = outcome.attempts.iter().map(|a| a.latency).sum();
    // Both calls are inside the run's time, and the run's time is inside the
    // time measured around it.
    assert!(latencies >= delay * 2, "{latencies:?}");
    assert!(outcome.elapsed >= latencies, "{outcome:?}");
    assert!(outcome.elapsed <= wall, "{:?} > {wall:?}", outcome.elapsed);
}
