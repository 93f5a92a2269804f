//! A run as a trace viewer shows it, through a real OpenTelemetry pipeline
//! (the SDK with its in-memory exporter, fed by `tracing-opentelemetry`):
//! one span per run, one child span per attempt, one
//! `gen_ai.evaluation.result` event per section judged.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry::Value;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt as _;
use twr_runtime::{ScriptedModel, Sections, Think};

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
        "gen_ai.response.model",
        "twr.attempt.number",
        "twr.attempt.kind",
        "twr.attempt.constrained",
        "twr.attempt.outcome",
        "gen_ai.input.messages",
    ];
    assert_eq!(
        attributes(first, &attempt_keys),
        [
            "chat",
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
            "chat",
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
        serde_json::json!([{"role": "assistant", "parts": [{"type": "text", "content": "[Days]\n3"}]}])
    );
}
