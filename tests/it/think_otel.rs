//! A run as a trace viewer shows it, through a real OpenTelemetry pipeline
//! (the SDK with its in-memory exporter, fed by `tracing-opentelemetry`):
//! one span per run, one child span per attempt, one
//! `gen_ai.evaluation.result` event per section judged; against an
//! OpenAI-compatible server on 127.0.0.1, the client's call span below each
//! attempt, every span's whole attribute set checked with its types
//! against the GenAI semantic conventions v1.37.

use opentelemetry::trace::{SpanKind, TracerProvider as _};
use opentelemetry::Value;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt as _;
use twr_runtime::{ChatModel, OpenAiCompatible, ScriptedModel, Sections, Think};

use crate::support::client::{Scripted, TestServer};

#[derive(Debug, PartialEq, Sections)]
struct Trip {
    /// How many days.
    days: u32,
    /// The places, in order.
    plan: Vec<String>,
}

/// The attributes of `span` named in `keys`, as text, in that order
/// (`-` for one the span does not have).
fn attributes(span: &SpanData, keys: &[&str]) -> Vec<String> {
    keys.iter()
        .map(|key| {
            span.attributes
                .iter()
                .find(|kv| kv.key.as_str() == *key)
                .map_or("-".to_string(), |kv| value(&kv.value))
        })
        .collect()
}

fn value(value: &Value) -> String {
    match value {
        Value::String(text) => text.as_str().to_string(),
        other => other.to_string(),
    }
}

/// The evaluation events of `span`: (section, label, explanation).
fn evaluations(span: &SpanData) -> Vec<(String, String, String)> {
    span.events
        .iter()
        .filter(|event| event.name == "gen_ai.evaluation.result")
        .map(|event| {
            let get = |key: &str| {
                event
                    .attributes
                    .iter()
                    .find(|kv| kv.key.as_str() == key)
                    .map_or("-".to_string(), |kv| value(&kv.value))
            };
            (
                get("gen_ai.evaluation.name"),
                get("gen_ai.evaluation.score.label"),
                get("gen_ai.evaluation.explanation"),
            )
        })
        .collect()
}

/// Runs `think` over a Trip with a patch retry under an OpenTelemetry
/// pipeline and returns the finished spans.
async fn traced(trace_content: bool) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("twr-test")));
    let model = ScriptedModel::new(["[Days]\nthree\n[Plan]\n- Gion\n- Nara", "[Days]\n3"])
        .with_name("kyoto-planner");
    {
        let _guard = tracing::subscriber::set_default(subscriber);
        let outcome = Think::new(&model)
            .max_attempts(3)
            .trace_content(trace_content)
            .run::<Trip>("Plan a trip to Kyoto.")
            .await
            .unwrap();
        assert_eq!(outcome.value.days, 3);
    }
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

#[tokio::test]
async fn a_run_is_a_span_with_one_child_per_attempt_and_an_event_per_section_judged() {
    let spans = traced(false).await;
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(
        names,
        ["twr.attempt 1 first", "twr.attempt 2 patch", "twr.run"],
        "spans end child first"
    );
    let (first, patch, run) = (&spans[0], &spans[1], &spans[2]);
    let run_id = run.span_context.span_id();
    assert_eq!(first.parent_span_id, run_id);
    assert_eq!(patch.parent_span_id, run_id);
    assert_eq!(
        attributes(
            run,
            &[
                "gen_ai.request.model",
                "twr.max_attempts",
                "twr.retry_mode",
                "twr.attempts",
                "twr.outcome"
            ]
        ),
        ["kyoto-planner", "3", "Patch", "2", "typed"]
    );
    let attempt_keys = [
        "gen_ai.operation.name",
        "gen_ai.request.model",
        "twr.attempt.model",
        "twr.attempt.number",
        "twr.attempt.kind",
        "twr.attempt.constrained",
        "twr.attempt.outcome",
        "gen_ai.input.messages",
    ];
    assert_eq!(
        attributes(first, &attempt_keys),
        [
            "-",
            "kyoto-planner",
            "kyoto-planner",
            "1",
            "first",
            "false",
            "rejected",
            "-"
        ]
    );
    assert_eq!(
        attributes(patch, &attempt_keys),
        [
            "-",
            "kyoto-planner",
            "kyoto-planner",
            "2",
            "patch",
            "false",
            "merged",
            "-"
        ]
    );
    assert_eq!(
        evaluations(first),
        [
            (
                "[Days]".to_string(),
                "fail".to_string(),
                "The [Days] section should be a single whole number; it says 'three'.".to_string()
            ),
            ("[Plan]".to_string(), "pass".to_string(), "-".to_string()),
        ]
    );
    assert_eq!(
        evaluations(patch),
        [("[Days]".to_string(), "pass".to_string(), "-".to_string())],
        "the patch is judged on the section it holds"
    );
}

#[tokio::test]
async fn the_messages_are_on_the_attempt_spans_only_when_asked_for() {
    let spans = traced(true).await;
    let patch = &spans[1];
    let [input, output] =
        &attributes(patch, &["gen_ai.input.messages", "gen_ai.output.messages"])[..]
    else {
        unreachable!()
    };
    let input: serde_json::Value = serde_json::from_str(input).unwrap();
    let roles: Vec<&str> = input
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    assert_eq!(
        input[1]["parts"][0]["content"],
        "[Days]\nthree\n[Plan]\n- Gion\n- Nara"
    );
    let output: serde_json::Value = serde_json::from_str(output).unwrap();
    assert_eq!(
        output,
        serde_json::json!([{
            "role": "assistant",
            "parts": [{"type": "text", "content": "[Days]\n3"}],
            "finish_reason": "stop"
        }])
    );
}

/// Every attribute of `span`, sorted by key, with its value as exported
/// (type and all).
fn all_attributes(span: &SpanData) -> Vec<(String, Value)> {
    let mut all: Vec<(String, Value)> = span
        .attributes
        .iter()
        .map(|kv| (kv.key.as_str().to_string(), kv.value.clone()))
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

fn text(value: &str) -> Value {
    Value::String(value.to_string().into())
}

/// A string array attribute, as the conventions type
/// `gen_ai.response.finish_reasons` (twr-runtime's `opentelemetry` feature).
fn strings(values: &[&str]) -> Value {
    let values: Vec<opentelemetry::StringValue> =
        values.iter().map(|v| v.to_string().into()).collect();
    Value::Array(opentelemetry::Array::String(values))
}

fn attrs(pairs: &[(&str, Value)]) -> Vec<(String, Value)> {
    let mut all: Vec<(String, Value)> = pairs
        .iter()
        .map(|(key, value)| (key.to_string(), value.clone()))
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

/// A chat completion from a server that names the model that answered
/// (not the one asked for).
fn completion(content: &str, prompt_tokens: u64, completion_tokens: u64) -> serde_json::Value {
    json!({
        "model": "kyoto-planner-0125",
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens}
    })
}

#[tokio::test]
async fn every_span_of_a_run_against_a_server_holds_the_conventions_attributes_with_their_types() {
    let server = TestServer::start(vec![
        Scripted::json(
            200,
            completion("[Days]\nthree\n[Plan]\n- Gion\n- Nara", 120, 14),
        ),
        Scripted::json(200, completion("[Days]\n3", 160, 4)),
    ])
    .await;
    let model = OpenAiCompatible::new(server.url("/v1"), "kyoto-planner")
        .api_key("sk-traced")
        .temperature(0.2)
        .max_tokens(256)
        .seed(7);
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("twr-test")));
    {
        let _guard = tracing::subscriber::set_default(subscriber);
        let outcome = Think::new(&model)
            .max_attempts(3)
            .trace_content(true)
            .run::<Trip>("Plan a trip to Kyoto.")
            .await
            .unwrap();
        assert_eq!(outcome.value.days, 3);
        assert_eq!(outcome.usage.prompt_tokens, 280, "each call counted once");
    }
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "chat kyoto-planner",
            "twr.attempt 1 first",
            "chat kyoto-planner",
            "twr.attempt 2 patch",
            "twr.run"
        ],
        "spans end child first"
    );
    let kinds: Vec<&SpanKind> = spans.iter().map(|s| &s.span_kind).collect();
    assert_eq!(
        kinds,
        [
            &SpanKind::Client,
            &SpanKind::Internal,
            &SpanKind::Client,
            &SpanKind::Internal,
            &SpanKind::Internal
        ]
    );
    let (call_1, first, call_2, patch, run) =
        (&spans[0], &spans[1], &spans[2], &spans[3], &spans[4]);
    assert_eq!(call_1.parent_span_id, first.span_context.span_id());
    assert_eq!(call_2.parent_span_id, patch.span_context.span_id());
    assert_eq!(first.parent_span_id, run.span_context.span_id());
    let port = i64::from(
        reqwest::Url::parse(&server.url("/v1"))
            .unwrap()
            .port()
            .unwrap(),
    );
    let call = |input: i64, output: i64| {
        attrs(&[
            ("gen_ai.operation.name", text("chat")),
            ("gen_ai.provider.name", text("openai")),
            ("gen_ai.request.model", text("kyoto-planner")),
            ("gen_ai.request.temperature", Value::F64(0.2)),
            ("gen_ai.request.max_tokens", Value::I64(256)),
            ("gen_ai.request.seed", Value::I64(7)),
            ("gen_ai.response.model", text("kyoto-planner-0125")),
            ("gen_ai.response.finish_reasons", strings(&["stop"])),
            ("gen_ai.usage.input_tokens", Value::I64(input)),
            ("gen_ai.usage.output_tokens", Value::I64(output)),
            ("server.address", text("127.0.0.1")),
            ("server.port", Value::I64(port)),
            ("twr.provider", text("openai-compatible")),
            ("twr.stream", Value::Bool(false)),
            ("twr.messages", Value::I64(1)),
        ])
    };
    let mut call_1_attrs = all_attributes(call_1);
    let mut call_2_attrs = all_attributes(call_2);
    // The bridge's own attributes (code location, thread, busy and idle
    // time) are not the spans' own: left out of the comparison.
    let ours = |all: &mut Vec<(String, Value)>| {
        all.retain(|(key, _)| {
            !key.starts_with("code.")
                && !key.starts_with("thread.")
                && key != "busy_ns"
                && key != "idle_ns"
                && key != "target"
                && key != "level"
        })
    };
    ours(&mut call_1_attrs);
    ours(&mut call_2_attrs);
    assert_eq!(call_1_attrs, call(120, 14));
    let mut second = call(160, 4);
    second.iter_mut().for_each(|(key, value)| {
        if key == "twr.messages" {
            *value = Value::I64(3);
        }
    });
    assert_eq!(call_2_attrs, second);
    let mut first_attrs = all_attributes(first);
    ours(&mut first_attrs);
    let input = first_attrs
        .iter()
        .find(|(key, _)| key == "gen_ai.input.messages")
        .map(|(_, v)| v.clone())
        .unwrap();
    assert_eq!(
        first_attrs,
        attrs(&[
            ("gen_ai.request.model", text("kyoto-planner")),
            ("twr.attempt.number", Value::I64(1)),
            ("twr.attempt.kind", text("first")),
            ("twr.attempt.constrained", Value::Bool(false)),
            ("twr.attempt.outcome", text("rejected")),
            ("twr.attempt.model", text("kyoto-planner")),
            ("gen_ai.input.messages", input),
            (
                "gen_ai.output.messages",
                text(
                    &json!([{
                        "role": "assistant",
                        "parts": [{"type": "text", "content": "[Days]\nthree\n[Plan]\n- Gion\n- Nara"}],
                        "finish_reason": "stop"
                    }])
                    .to_string()
                )
            ),
        ])
    );
    let mut patch_attrs = all_attributes(patch);
    ours(&mut patch_attrs);
    let input = patch_attrs
        .iter()
        .find(|(key, _)| key == "gen_ai.input.messages")
        .map(|(_, v)| v.clone())
        .unwrap();
    assert!(matches!(input, Value::String(_)), "{input:?}");
    assert_eq!(
        patch_attrs,
        attrs(&[
            ("gen_ai.request.model", text("kyoto-planner")),
            ("twr.attempt.number", Value::I64(2)),
            ("twr.attempt.kind", text("patch")),
            ("twr.attempt.constrained", Value::Bool(false)),
            ("twr.attempt.outcome", text("merged")),
            ("twr.attempt.model", text("kyoto-planner")),
            ("gen_ai.input.messages", input),
            (
                "gen_ai.output.messages",
                text(
                    &json!([{
                        "role": "assistant",
                        "parts": [{"type": "text", "content": "[Days]\n3"}],
                        "finish_reason": "stop"
                    }])
                    .to_string()
                )
            ),
        ])
    );
    // The evaluation events' own attributes, with their types: the name,
    // label and explanation are strings (the bridge's code location and
    // level left out, as above).
    let events: Vec<Vec<(String, Value)>> = [first, patch]
        .iter()
        .flat_map(|span| span.events.iter())
        .filter(|event| event.name == "gen_ai.evaluation.result")
        .map(|event| {
            let mut all: Vec<(String, Value)> = event
                .attributes
                .iter()
                .map(|kv| (kv.key.as_str().to_string(), kv.value.clone()))
                .collect();
            ours(&mut all);
            all.sort_by(|a, b| a.0.cmp(&b.0));
            all
        })
        .collect();
    assert_eq!(
        events,
        [
            attrs(&[
                ("gen_ai.evaluation.name", text("[Days]")),
                ("gen_ai.evaluation.score.label", text("fail")),
                (
                    "gen_ai.evaluation.explanation",
                    text("The [Days] section should be a single whole number; it says 'three'.")
                ),
            ]),
            attrs(&[
                ("gen_ai.evaluation.name", text("[Plan]")),
                ("gen_ai.evaluation.score.label", text("pass")),
            ]),
            attrs(&[
                ("gen_ai.evaluation.name", text("[Days]")),
                ("gen_ai.evaluation.score.label", text("pass")),
            ]),
        ]
    );
    let mut run_attrs = all_attributes(run);
    ours(&mut run_attrs);
    assert_eq!(
        run_attrs,
        attrs(&[
            ("gen_ai.request.model", text("kyoto-planner")),
            ("twr.max_attempts", Value::I64(3)),
            ("twr.retry_mode", text("Patch")),
            ("twr.attempts", Value::I64(2)),
            ("twr.outcome", text("typed")),
        ])
    );
    // No span but the calls carries token counts: a viewer summing them
    // counts each call once.
    let summed: i64 = spans
        .iter()
        .flat_map(|span| span.attributes.iter())
        .filter(|kv| kv.key.as_str() == "gen_ai.usage.input_tokens")
        .map(|kv| match kv.value {
            Value::I64(n) => n,
            ref other => panic!("not an integer: {other:?}"),
        })
        .sum();
    assert_eq!(summed, 280);
    assert!(
        !spans
            .iter()
            .flat_map(|span| span.attributes.iter())
            .any(|kv| kv.value.as_str().contains("sk-traced")),
        "the key is in no attribute"
    );
}

#[tokio::test]
async fn a_server_that_names_no_model_leaves_the_response_model_out_and_a_failure_has_its_error_type(
) {
    let server = TestServer::start(vec![
        Scripted::json(
            200,
            json!({
                "choices": [{"message": {"role": "assistant", "content": "fine"}, "finish_reason": "length"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12}
            }),
        ),
        Scripted::json(404, json!({"error": {"message": "no such model"}})),
    ])
    .await;
    let model = OpenAiCompatible::new(server.url("/v1"), "m");
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("twr-test")));
    {
        let _guard = tracing::subscriber::set_default(subscriber);
        let hi = [twr_runtime::Message::user("hi")];
        model.chat(&hi).await.unwrap();
        model.chat(&hi).await.unwrap_err();
    }
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    assert_eq!(
        attributes(&spans[0], &["gen_ai.response.model", "error.type"]),
        ["-", "-"]
    );
    let reasons = spans[0]
        .attributes
        .iter()
        .find(|kv| kv.key.as_str() == "gen_ai.response.finish_reasons")
        .map(|kv| kv.value.clone());
    assert_eq!(reasons, Some(strings(&["length"])));
    assert_eq!(
        attributes(
            &spans[1],
            &[
                "gen_ai.response.model",
                "gen_ai.usage.input_tokens",
                "error.type"
            ]
        ),
        ["-", "-", "404"]
    );
}

/// The guide's traces page shows the lines its example is built with: each
/// dependency line but twr-runtime's is, word for word, one of
/// twr-runtime's dev-dependencies (the guide's code blocks are its doc
/// tests, compiled by `cargo test`), and twr-runtime's names the feature
/// that makes finish reasons an array, which twr-runtime has.
#[test]
fn the_traces_pages_set_up_lines_are_the_ones_its_example_is_built_with() {
    let page = include_str!("../../twr-runtime/docs/guide/traces.md");
    let manifest = include_str!("../../twr-runtime/Cargo.toml");
    let block = page
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a toml block");
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "[dependencies]",
            r#"twr-runtime = { version = "0.1", features = ["opentelemetry"] }"#
        ]
    );
    let dev = manifest
        .split("\n[dev-dependencies]\n")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("twr-runtime's dev-dependencies");
    let crates: Vec<&str> = lines[2..]
        .iter()
        .map(|line| {
            assert!(dev.lines().any(|d| d == *line), "{line:?} is not built");
            line.split(' ').next().unwrap()
        })
        .collect();
    assert_eq!(
        crates,
        [
            "tracing",
            "tracing-subscriber",
            "tracing-opentelemetry",
            "opentelemetry",
            "opentelemetry_sdk"
        ]
    );
    assert!(lines.iter().any(|l| l.contains(r#""testing""#)), "{block}");
    let features = manifest
        .split("\n[features]\n")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .unwrap();
    assert!(
        features.lines().any(|l| l.starts_with("opentelemetry = [")),
        "{features}"
    );
}

/// The values to review are in the trace: an attribute of the run's
/// span, and an event on the last attempt's naming them and the
/// threshold.
#[tokio::test]
async fn the_values_to_review_are_on_the_run_span_and_an_event_of_the_last_attempt() {
    use twr_runtime::model::TokenLogprob;
    use twr_runtime::Reply;

    #[derive(Debug, Sections)]
    #[allow(dead_code)]
    struct Order {
        city: String,
        paid: bool,
    }
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("twr-test")));
    let token = |text: &str, p: f64| TokenLogprob {
        token: text.into(),
        logprob: p.ln(),
        top: vec![],
    };
    let model = ScriptedModel::from_replies([Reply::text("[City]\nOslo\n[Paid]\nyes")
        .with_logprobs(vec![
            token("[City]\n", 1.0),
            token("Oslo", 0.5),
            token("\n[Paid]\n", 1.0),
            token("yes", 0.99),
        ])]);
    {
        let _guard = tracing::subscriber::set_default(subscriber);
        let outcome = Think::new(&model)
            .confidence(true)
            .review_below(0.8)
            .run::<Order>("Paid order to Oslo.")
            .await
            .unwrap();
        assert_eq!(outcome.needs_review(), ["city"]);
    }
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(names, ["twr.attempt 1 first", "twr.run"]);
    let (attempt, run) = (&spans[0], &spans[1]);
    assert_eq!(
        attributes(run, &["twr.outcome", "twr.needs_review"]),
        ["typed", "city"]
    );
    let review: Vec<Vec<(String, String)>> = attempt
        .events
        .iter()
        .filter(|event| event.name == "twr values to review")
        .map(|event| {
            event
                .attributes
                .iter()
                .filter(|kv| kv.key.as_str().starts_with("twr."))
                .map(|kv| (kv.key.as_str().to_string(), value(&kv.value)))
                .collect()
        })
        .collect();
    assert_eq!(
        review,
        [[
            ("twr.needs_review".to_string(), "city".to_string()),
            ("twr.review_below".to_string(), "0.8".to_string()),
        ]]
    );
}
