//! The HTTP clients send a request's grammar as each server documents it,
//! only when told the server's dialect: against real axum servers on
//! 127.0.0.1, through the real reqwest client. The exact field each dialect
//! sends, none without a dialect (even when the loop constrains), a loop
//! whose last attempt is constrained, a reply in the JSON schema read back
//! as typed sections, Anthropic's and Gemini's structured outputs, the
//! configuration error of a dialect an API does not take, the error of a
//! server that refuses the field, and batch lines carrying the grammar.

use std::time::Duration;

use serde_json::{json, Value};
use twr_runtime::batch::BatchModel;
use twr_runtime::grammar::{Dialect, Format, Grammar, Limits};
use twr_runtime::model::Request;
use twr_runtime::{
    Anthropic, ChatModel, Gemini, Message, ModelError, OpenAiCompatible, RetryPolicy, Sections,
    Think,
};

use crate::support::client::{Scripted, TestServer};
use crate::support::openai_batch::{item_of, OpenAiBatchServer};

#[derive(Debug, PartialEq, Sections)]
struct Trip {
    /// How many days.
    days: u32,
    /// The places, in order.
    plan: Vec<String>,
}

/// Every field through which some server takes a grammar.
const GRAMMAR_FIELDS: [&str; 6] = [
    "grammar",
    "structured_outputs",
    "ebnf",
    "response_format",
    "guided_grammar",
    "output_config",
];

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    })
}

fn openai(server: &TestServer) -> OpenAiCompatible {
    OpenAiCompatible::new(server.url("/v1"), "local-model")
}

fn ask() -> Vec<Message> {
    vec![Message::user("Plan a trip to Kyoto.")]
}

/// The grammar fields a body carries, by name.
fn grammar_fields(body: &Value) -> Vec<&'static str> {
    GRAMMAR_FIELDS
        .into_iter()
        .filter(|field| body.get(field).is_some())
        .collect()
}

fn no_retries() -> RetryPolicy {
    RetryPolicy::default().base_delay(Duration::from_millis(1))
}

#[tokio::test]
async fn each_dialect_sends_the_field_its_server_documents_and_no_other() {
    let grammar = Grammar::of::<Trip>();
    let gbnf = Value::String(grammar.gbnf());
    let cases = [
        (Dialect::LlamaCpp, "grammar", gbnf.clone()),
        (
            Dialect::Vllm,
            "structured_outputs",
            json!({ "grammar": gbnf }),
        ),
        (Dialect::Sglang, "ebnf", gbnf.clone()),
        (
            Dialect::MistralRs,
            "grammar",
            json!({"type": "lark", "value": grammar.lark()}),
        ),
        (
            Dialect::JsonSchema,
            "response_format",
            json!({"type": "json_schema", "json_schema": {
                "name": "twr_sections", "strict": true, "schema": grammar.json_schema()}}),
        ),
    ];
    for (dialect, field, expected) in cases {
        let server = TestServer::start(vec![Scripted::json(200, completion("[Days]\n3"))]).await;
        let client = openai(&server).temperature(0.0).grammar(dialect);
        let messages = ask();
        let request = Request::new(&messages).with_grammar(&grammar);
        let reply = client.call(request).await.unwrap().into_reply().await;
        assert_eq!(reply.unwrap().content, "[Days]\n3", "{dialect:?}");
        let body = server.only_request().body;
        assert_eq!(body[field], expected, "{dialect:?}");
        assert_eq!(grammar_fields(&body), [field], "{dialect:?}");
        // The client's own fields are all still there.
        assert_eq!(body["model"], "local-model");
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["messages"][0]["content"], "Plan a trip to Kyoto.");
    }
}

#[tokio::test]
async fn a_streamed_call_carries_the_grammar_too() {
    let grammar = Grammar::of::<Trip>();
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "c", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    let events = [
        chunk(json!({"content": "[Days]\n"}), Value::Null),
        chunk(json!({"content": "3"}), json!("stop")),
        "[DONE]".to_string(),
    ];
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = TestServer::start(vec![Scripted::sse(&events)]).await;
    let client = openai(&server).stream(true).grammar(Dialect::Sglang);
    let messages = ask();
    let request = Request::new(&messages)
        .with_grammar(&grammar)
        .with_stream(true);
    let reply = client.call(request).await.unwrap().into_reply().await;
    assert_eq!(reply.unwrap().content, "[Days]\n3");
    let body = server.only_request().body;
    assert_eq!(body["ebnf"], grammar.gbnf());
    assert_eq!(body["stream"], true);
    assert_eq!(grammar_fields(&body), ["ebnf"]);
}

#[tokio::test]
async fn the_extra_fields_still_merge_last() {
    let grammar = Grammar::of::<Trip>();
    let server = TestServer::start(vec![Scripted::json(200, completion("[Days]\n3"))]).await;
    let client = openai(&server)
        .grammar(Dialect::JsonSchema)
        .extra(json!({"response_format": {"json_schema": {"name": "trip_plan"}}}));
    let messages = ask();
    let request = Request::new(&messages).with_grammar(&grammar);
    client
        .call(request)
        .await
        .unwrap()
        .into_reply()
        .await
        .unwrap();
    let body = server.only_request().body;
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {
            "name": "trip_plan", "strict": true, "schema": grammar.json_schema()}})
    );
}

#[test]
fn a_client_takes_grammars_only_once_told_its_dialect() {
    let local = OpenAiCompatible::new("http://127.0.0.1:1/v1", "m");
    assert_eq!(local.takes_grammar(), None);
    assert_eq!(
        local.clone().grammar(Dialect::LlamaCpp).takes_grammar(),
        Some(Format::Gbnf)
    );
    assert_eq!(
        local.clone().grammar(Dialect::MistralRs).takes_grammar(),
        Some(Format::Lark)
    );
    let anthropic = Anthropic::new("sk-ant", "claude").grammar(Dialect::JsonSchema);
    assert_eq!(anthropic.takes_grammar(), Some(Format::JsonSchema));
    let gemini = Gemini::new("AIza", "gemini").grammar(Dialect::JsonSchema);
    assert_eq!(gemini.takes_grammar(), Some(Format::JsonSchema));
    assert_eq!(Gemini::new("AIza", "gemini").takes_grammar(), None);
}

#[tokio::test]
async fn without_a_dialect_no_grammar_field_is_sent_even_when_the_loop_constrains() {
    let server = TestServer::start(vec![
        Scripted::json(200, completion("[Days]\nthree\n[Plan]\n- Gion")),
        Scripted::json(200, completion("[Days]\n3")),
    ])
    .await;
    let client = openai(&server);
    let outcome = Think::new(&client)
        .constrain_after(0)
        .max_attempts(2)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            days: 3,
            plan: vec!["Gion".into()]
        }
    );
    // The loop did put a grammar on both requests; the client, told no
    // dialect, sent it to the server in no field, and the ledger says so.
    let constrained: Vec<bool> = outcome.attempts.iter().map(|a| a.constrained).collect();
    assert_eq!(constrained, [false, false]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in requests {
        assert_eq!(grammar_fields(&request.body), Vec::<&str>::new());
    }
}

#[tokio::test]
async fn the_last_attempt_is_constrained_through_a_llama_cpp_server() {
    let server = TestServer::start(vec![
        Scripted::json(200, completion("[Days]\nthree\n[Plan]\n- Gion\n- Nara")),
        Scripted::json(200, completion("[Days]\na few")),
        Scripted::json(200, completion("[Days]\n3")),
    ])
    .await;
    let client = openai(&server).grammar(Dialect::LlamaCpp);
    let outcome = Think::new(&client)
        .max_attempts(3)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            days: 3,
            plan: vec!["Gion".into(), "Nara".into()]
        }
    );
    let constrained: Vec<bool> = outcome.attempts.iter().map(|a| a.constrained).collect();
    assert_eq!(constrained, [false, false, true]);
    let bodies: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(grammar_fields(&bodies[0]), Vec::<&str>::new());
    assert_eq!(grammar_fields(&bodies[1]), Vec::<&str>::new());
    // Only what still failed: the days failed twice, so the last attempt
    // is a focused question, constrained to their value alone, as
    // llama.cpp's GBNF.
    let days = Grammar::of::<Trip>().value_of("days").unwrap();
    assert_eq!(bodies[2]["grammar"], days.gbnf());
    assert_eq!(grammar_fields(&bodies[2]), ["grammar"]);
}

/// A constrained attempt fits the reply limit it is sent with: the
/// grammar's free text is cut to what `max_tokens` holds.
#[tokio::test]
async fn a_constrained_attempt_fits_the_clients_max_tokens() {
    let server = TestServer::start(vec![
        Scripted::json(200, completion("[Days]\nthree\n[Plan]\n- Gion\n- Nara")),
        Scripted::json(200, completion("[Days]\n3")),
    ])
    .await;
    let client = openai(&server).grammar(Dialect::LlamaCpp).max_tokens(96);
    let outcome = Think::new(&client)
        .max_attempts(2)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(outcome.value.days, 3);
    // The patch asks for the days: [Days] is 5 tokens and its number 18,
    // with 8 to spare 31; the 65 tokens left are 97 characters at 1.5 a
    // token, all the reasoning's (it is the only free value), 48 for the
    // free values not asked for.
    let patch = Grammar::of::<Trip>().only(|spec| spec.field == "days");
    let fitted = patch.clone().fit_tokens(96);
    assert_eq!(
        fitted.limits_of(),
        Limits::default().reasoning(96).text(48).list(48)
    );
    let body = &server.requests()[1].body;
    assert_eq!(body["grammar"], fitted.gbnf());
    assert_ne!(body["grammar"], patch.gbnf());
}

#[tokio::test]
async fn a_reply_in_the_json_schema_is_read_back_as_typed_sections() {
    let server = TestServer::start(vec![
        Scripted::json(200, completion("[Days]\nthree\n[Plan]\n- Gion\n- Nara")),
        Scripted::json(
            200,
            completion(r#"{"reasoning": "Three days suit Kyoto.", "days": 3}"#),
        ),
    ])
    .await;
    let client = openai(&server).grammar(Dialect::JsonSchema);
    let outcome = Think::new(&client)
        .max_attempts(2)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Trip {
            days: 3,
            plan: vec!["Gion".into(), "Nara".into()]
        }
    );
    let days = Grammar::of::<Trip>().only(|spec| spec.field == "days");
    let body = &server.requests()[1].body;
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {
            "name": "twr_sections", "strict": true, "schema": days.json_schema()}})
    );
    let constrained: Vec<bool> = outcome.attempts.iter().map(|a| a.constrained).collect();
    assert_eq!(constrained, [false, true]);
}

#[tokio::test]
async fn anthropic_sends_its_structured_outputs_with_no_beta_header() {
    let grammar = Grammar::of::<Trip>();
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": "{\"reasoning\": null, \"days\": 3, \"plan\": [\"Gion\"]}"}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 9, "output_tokens": 4}}),
    )])
    .await;
    let client = Anthropic::new("sk-ant-test", "claude-test")
        .base_url(server.url("/anthropic"))
        .grammar(Dialect::JsonSchema);
    let messages = ask();
    let request = Request::new(&messages).with_grammar(&grammar);
    let reply = client.call(request).await.unwrap().into_reply().await;
    let raw = reply.unwrap().content;
    let read = grammar.read_json(&raw).unwrap();
    assert_eq!(
        Trip::parse_sections(&read.sections).unwrap(),
        Trip {
            days: 3,
            plan: vec!["Gion".into()]
        }
    );
    let recorded = server.only_request();
    assert_eq!(
        recorded.body["output_config"],
        json!({"format": {"type": "json_schema", "schema": grammar.json_schema()}})
    );
    assert_eq!(grammar_fields(&recorded.body), ["output_config"]);
    assert_eq!(recorded.body["max_tokens"], 4096);
    assert_eq!(recorded.header("anthropic-beta"), None);
}

#[tokio::test]
async fn gemini_sends_its_json_schema_in_the_generation_config() {
    let grammar = Grammar::of::<Trip>();
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "{\"days\": 3}"}]},
            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4, "totalTokenCount": 13}}),
    )])
    .await;
    let client = Gemini::new("AIza-test", "gemini-test")
        .base_url(server.url("/v1beta"))
        .temperature(0.5)
        .grammar(Dialect::JsonSchema);
    let messages = ask();
    let request = Request::new(&messages).with_grammar(&grammar);
    let reply = client.call(request).await.unwrap().into_reply().await;
    assert_eq!(reply.unwrap().content, "{\"days\": 3}");
    let body = server.only_request().body;
    assert_eq!(
        body["generationConfig"],
        json!({
            "temperature": 0.5,
            "responseMimeType": "application/json",
            "responseJsonSchema": grammar.json_schema(),
        })
    );
    assert_eq!(grammar_fields(&body), Vec::<&str>::new());
}

#[tokio::test]
async fn a_dialect_the_api_does_not_take_is_a_configuration_error() {
    let grammar = Grammar::of::<Trip>();
    let messages = ask();
    let server = TestServer::start(vec![]).await;
    let anthropic = Anthropic::new("sk-ant-test", "claude-test")
        .base_url(server.url("/anthropic"))
        .grammar(Dialect::LlamaCpp);
    let request = Request::new(&messages).with_grammar(&grammar);
    let error = anthropic.call(request).await.err().unwrap();
    assert!(matches!(error, ModelError::Config(_)), "{error:?}");
    assert!(!error.is_transient());
    assert_eq!(
        error.to_string(),
        "invalid model configuration: the Anthropic API takes a grammar only as a JSON schema \
         (its structured outputs, `output_config.format`): give the client \
         .grammar(Dialect::JsonSchema), not .grammar(Dialect::LlamaCpp), which is for an \
         OpenAI-compatible server"
    );
    let gemini = Gemini::new("AIza-test", "gemini-test")
        .base_url(server.url("/v1beta"))
        .grammar(Dialect::Vllm);
    let error = gemini.request_body_for(request).unwrap_err();
    assert!(
        crate::support::report(&error).contains(
            "the Gemini API takes a grammar only as a JSON schema (its structured outputs, \
             `generationConfig.responseJsonSchema`): give the client \
             .grammar(Dialect::JsonSchema), not .grammar(Dialect::Vllm)"
        ),
        "{error}"
    );
    // Nothing was sent; a request without a grammar goes out as before.
    assert!(server.requests().is_empty());
    assert!(anthropic.request_body(&messages).is_ok());
}

#[tokio::test]
async fn a_server_that_refuses_the_field_gets_an_error_naming_the_dialect() {
    let refusal = || Scripted::json(400, json!({"error": {"message": "unknown field grammar"}}));
    let server = TestServer::start(vec![refusal(), refusal()]).await;
    let client = openai(&server).grammar(Dialect::LlamaCpp);
    let grammar = Grammar::of::<Trip>();
    let messages = ask();
    let request = Request::new(&messages).with_grammar(&grammar);
    let error = client.call(request).await.err().unwrap();
    assert!(!error.is_transient());
    assert!(
        matches!(error, ModelError::Status { status: 400, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the model server answered HTTP 400: unknown field grammar (the request carried a \
         grammar in the field `grammar`, as .grammar(Dialect::LlamaCpp) asks; this server may \
         not take that field: give the client the dialect its server documents, or none)"
    );
    // The same refusal of a request without a grammar is the server's alone.
    let error = client.chat(&messages).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model server answered HTTP 400: unknown field grammar"
    );
}

#[tokio::test]
async fn the_loop_stops_at_once_when_the_server_refuses_the_grammar() {
    let server = TestServer::start(vec![
        Scripted::json(200, completion("[Days]\nthree\n[Plan]\n- Gion")),
        Scripted::json(422, json!({"detail": "extra fields not permitted: ebnf"})),
    ])
    .await;
    let client = openai(&server).grammar(Dialect::Sglang);
    let error = Think::new(&client)
        .max_attempts(2)
        .retry_policy(no_retries())
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap_err();
    let text = crate::support::report(&error);
    assert!(
        text.contains("extra fields not permitted: ebnf (the request carried a grammar in the field `ebnf`, as .grammar(Dialect::Sglang) asks"),
        "{text}"
    );
    // Not retried: one free attempt, one constrained, nothing more.
    assert_eq!(server.requests().len(), 2);
}

/// A batch line is answered well only when it carries a grammar of
/// `Doubled` in llama.cpp's field; a line without one is answered badly.
fn answer_under_grammar(body: &Value) -> String {
    let n = item_of(body);
    let whole = Grammar::of::<Doubled>();
    let grammars = [
        whole.gbnf(),
        whole.clone().only(|_| true).gbnf(),
        whole.value_of("number").unwrap().gbnf(),
    ];
    match body.get("grammar") {
        Some(Value::String(sent)) if grammars.contains(sent) => format!("[Number]\n{}", 2 * n),
        Some(other) => format!("a grammar that is not Doubled's: {other}"),
        None => "[Number]\nabout that".into(),
    }
}

#[derive(Debug, PartialEq, Sections)]
struct Doubled {
    /// The number times two.
    number: u32,
}

#[tokio::test]
async fn batch_lines_carry_the_grammar_of_a_constrained_attempt() {
    let server = OpenAiBatchServer::start(answer_under_grammar, vec![]).await;
    let client = OpenAiCompatible::new(&server.url, "gpt-test")
        .api_key("sk-batch-test")
        .grammar(Dialect::LlamaCpp);
    let model = BatchModel::openai(client)
        .gather_window(Duration::from_millis(100))
        .poll_interval(Duration::from_millis(5));
    assert_eq!(model.takes_grammar(), Some(Format::Gbnf));
    let prompts: Vec<String> = (0..3).map(|i| format!("item {i}")).collect();
    let results = Think::new(&model)
        .concurrency(3)
        .max_attempts(2)
        .retry_policy(no_retries())
        .run_many::<Doubled>(prompts)
        .await;
    for (n, result) in results.iter().enumerate() {
        let outcome = result.as_ref().unwrap();
        assert_eq!(
            outcome.value,
            Doubled {
                number: 2 * n as u32
            }
        );
        let constrained: Vec<bool> = outcome.attempts.iter().map(|a| a.constrained).collect();
        assert_eq!(constrained, [false, true]);
    }
    // Round one free, round two constrained: 6 lines in 2 batches.
    assert_eq!((server.batches(), server.lines()), (2, 6));
}

/// A wrapper written as the `model` module's docs show it: `call` passes
/// the request on, `wrapped` names the model, and nothing else.
struct Logged<M> {
    model: M,
    calls: std::sync::atomic::AtomicUsize,
}

impl<M: ChatModel> ChatModel for Logged<M> {
    fn call<'a>(
        &'a self,
        request: Request<'a>,
    ) -> twr_runtime::model::BoxFuture<'a, Result<twr_runtime::model::Response<'a>, ModelError>>
    {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.model.call(request)
    }

    fn wrapped(&self) -> Option<&dyn ChatModel> {
        Some(&self.model)
    }
}

/// The wrapper keeps what describes its model: the loop still constrains
/// the last attempt (the client takes grammars), the grammar reaches the
/// server, and the journal's request key (the name and the options) is the
/// client's own.
#[tokio::test]
async fn a_wrapper_written_from_the_docs_keeps_constrained_attempts_and_journal_keys() {
    let server = TestServer::start(vec![
        Scripted::json(200, completion("[Days]\nthree\n[Plan]\n- Gion")),
        Scripted::json(200, completion("[Days]\n3")),
    ])
    .await;
    let client = openai(&server).grammar(Dialect::LlamaCpp).temperature(0.0);
    let logged = Logged {
        model: client.clone(),
        calls: Default::default(),
    };
    assert_eq!(logged.name(), "local-model");
    assert_eq!(logged.request_options(), client.request_options());
    assert_eq!(logged.takes_grammar(), Some(Format::Gbnf));
    assert_eq!(logged.streams(), client.streams());
    let outcome = Think::new(&logged)
        .max_attempts(2)
        .run::<Trip>("Plan a trip to Kyoto.")
        .await
        .unwrap();
    assert_eq!(outcome.value.days, 3);
    let constrained: Vec<bool> = outcome.attempts.iter().map(|a| a.constrained).collect();
    assert_eq!(constrained, [false, true]);
    let requests = server.requests();
    assert_eq!(grammar_fields(&requests[0].body), Vec::<&str>::new());
    assert_eq!(grammar_fields(&requests[1].body), ["grammar"]);
    assert_eq!(logged.calls.load(std::sync::atomic::Ordering::Relaxed), 2);
}
