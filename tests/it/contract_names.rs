//! Every public name the product contract (kept beside this repository) marks as
//! fixed, used the way the contract shows it, from outside the crate. Code
//! outside this repository compiles against these names: this file is the
//! first thing to break when one of them moves, and each test also checks
//! what the name does on a small scripted run.

use futures_util::StreamExt;
use serde::Deserialize;
use twr_runtime::json;
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::parse::{divider_parser, multi_section_parser, MatchMode, SectionMap};
use twr_runtime::{
    think_with_retry, Anthropic, AttemptKind, ChatModel, Choice, CircuitBreaker, Delta, Fallback,
    Feedback, FinishReason, Gemini, Message, ModelError, OpenAiCompatible, Progress, Reply, Role,
    ScriptedModel, SectionEvent, SectionSpec, Sections, Think, Usage,
};

#[derive(Debug, PartialEq, Clone, Copy, Choice)]
enum Priority {
    Low,
    High,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Row {
    item: String,
    qty: u32,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Meta {
    author: String,
}

#[derive(Debug, PartialEq, Sections)]
struct Plan {
    /// The steps, in order.
    steps: Vec<String>,
    weeks: u32,
    priority: Priority,
}

#[derive(Debug, PartialEq, Sections)]
struct Order {
    #[section(table)]
    rows: Vec<Row>,
    #[section(record)]
    meta: Meta,
}

#[derive(Debug, PartialEq, Sections)]
#[sections(style = "xml")]
struct Tagged {
    answer: String,
}

const PLAN: &str = "[Steps]\n- read\n- write\n[Weeks]\n6\n[Priority]\nHigh";

fn plan() -> Plan {
    Plan {
        steps: vec!["read".to_owned(), "write".to_owned()],
        weeks: 6,
        priority: Priority::High,
    }
}

#[test]
fn the_sections_trait_and_the_parsers() {
    let specs: &'static [SectionSpec] = Plan::specs();
    assert_eq!(specs.len(), 3);
    assert!(Plan::format_guide().contains("[Weeks]"));
    assert_eq!(Plan::parse_sections(PLAN).unwrap(), plan());
    let feedback: Feedback = Plan::parse_sections("[Steps]\n- read").unwrap_err();
    let _: &dyn std::error::Error = &feedback;
    assert!(feedback.to_string().contains("[Weeks]"));

    let map: SectionMap =
        multi_section_parser("[A]\none\n[B]\ntwo", &["[A]", "[B]"], MatchMode::All).unwrap();
    assert_eq!(map.get("[B]"), Some("two"));
    assert!(multi_section_parser("[A]\none", &["[A]", "[B]"], MatchMode::Any).is_ok());
    assert_eq!(
        divider_parser("x\n=====\nmiddle\n=====\ny").unwrap(),
        "middle"
    );

    let value: serde_json::Value = json::extract_value("```json\n{\"a\": 1}\n```").unwrap();
    assert_eq!(value, serde_json::json!({"a": 1}));
    let row: Row = json::extract("{'item': 'pen', 'qty': 2,}").unwrap();
    assert_eq!(
        row,
        Row {
            item: "pen".to_owned(),
            qty: 2
        }
    );
}

#[test]
fn the_format_attributes() {
    let order = Order::parse_sections(
        "[Rows]\n| item | qty |\n| --- | --- |\n| pen | 2 |\n[Meta]\nAuthor: Ada",
    )
    .unwrap();
    assert_eq!(
        order.rows,
        vec![Row {
            item: "pen".to_owned(),
            qty: 2
        }]
    );
    assert_eq!(
        order.meta,
        Meta {
            author: "Ada".to_owned()
        }
    );
    assert!(Tagged::format_guide().contains("<answer>"));
    assert_eq!(
        Tagged::parse_sections("<answer>\n42\n</answer>").unwrap(),
        Tagged {
            answer: "42".to_owned()
        }
    );
}

#[tokio::test]
async fn the_loop_and_its_builder() {
    let model = ScriptedModel::new([PLAN]);
    let value: Plan = think_with_retry::<Plan>(&model, "Plan it").await.unwrap();
    assert_eq!(value, plan());

    let earlier = vec![Message::user("hi"), Message::assistant("hello")];
    let model = ScriptedModel::new(["[Steps]\n- read", PLAN]);
    let outcome = Think::new(&model)
        .system("You are a careful planner.")
        .history(&earlier)
        .max_attempts(4)
        .run::<Plan>("Plan it")
        .await
        .unwrap();
    assert_eq!(outcome.value, plan());
    assert_eq!(outcome.attempts.len(), 2);
    let usage: Usage = outcome.usage;
    let Usage {
        prompt_tokens,
        completion_tokens,
        ..
    } = usage;
    let _ = (prompt_tokens, completion_tokens);
    // The system message, the caller's history, the prompt, the final reply.
    assert_eq!(
        outcome.transcript[..3],
        [
            Message::system("You are a careful planner."),
            Message::user("hi"),
            Message::assistant("hello"),
        ]
    );
    assert_eq!(outcome.transcript.last(), Some(&Message::assistant(PLAN)));
    assert_eq!(earlier.len(), 2);
    assert_eq!(Message::system("s").role, Role::System);

    let model = ScriptedModel::new(["7"]);
    let n: u32 = Think::new(&model)
        .run_with("How many?", |raw: &str| {
            raw.trim()
                .parse::<u32>()
                .map_err(|e| Feedback::from(e.to_string()))
        })
        .await
        .unwrap()
        .value;
    assert_eq!(n, 7);

    let model = ScriptedModel::new(["[Answer]\n42"]).chunk_size(3);
    let seen = std::sync::Mutex::new(Vec::new());
    let outcome = Think::new(&model)
        .demonstration("What is 6 times 7?", "<answer>\n42\n</answer>")
        .on_section(|event: &SectionEvent| {
            seen.lock().unwrap().push((
                event.attempt,
                event.field,
                event.header,
                event.problem.is_some(),
                event.text.clone(),
            ))
        })
        .early_abort(true)
        .run::<Tagged>("What is 6 times 7?")
        .await
        .unwrap();
    assert_eq!(outcome.value.answer, "42");
    assert_eq!(
        seen.into_inner().unwrap(),
        vec![(1, "answer", "[Answer]", false, "42".to_owned())]
    );

    let model = ScriptedModel::new([PLAN]).chunk_size(5);
    let events: Vec<_> = Think::new(&model).stream::<Plan>("Plan it").collect().await;
    let completed: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            Progress::SectionComplete(section) => Some(section.field),
            _ => None,
        })
        .collect();
    assert_eq!(completed, ["steps", "weeks", "priority"]);
    match events.last() {
        Some(Progress::Finished(Ok(outcome))) => assert_eq!(outcome.value, plan()),
        other => panic!("the stream must end with the outcome: {other:?}"),
    }

    let cheap = ScriptedModel::new(["no sections", "still none"]);
    let strong = ScriptedModel::new([PLAN]);
    let outcome = Think::new(&cheap)
        .max_attempts(3)
        .escalate_to(&strong, 2)
        .run::<Plan>("Plan it")
        .await
        .unwrap();
    assert_eq!(outcome.value, plan());
    assert_eq!(outcome.attempts.len(), 3);
    assert_eq!((cheap.calls(), strong.calls()), (2, 1));

    let model = ScriptedModel::new([PLAN, PLAN]);
    let results = Think::new(&model).run_many::<Plan>(["one", "two"]).await;
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r.is_ok()));
    let _ = AttemptKind::Aborted;
}

/// Third round: a choice of shapes, and a flattened group that may be one.
#[derive(Debug, PartialEq, Sections)]
struct FinalAnswer {
    answer: String,
}

#[derive(Debug, PartialEq, Sections)]
enum Step {
    /// Search the web before answering.
    Search {
        query: String,
        reason: String,
    },
    Answer(FinalAnswer),
}

#[derive(Debug, PartialEq, Sections)]
struct AgentStep {
    thought: String,
    #[section(flatten)]
    next: Step,
}

#[test]
fn a_choice_of_shapes_and_a_flattened_group() {
    assert_eq!(
        Step::parse_sections("[Query]\nKyoto in May\n[Reason]\nTo check the weather."),
        Ok(Step::Search {
            query: "Kyoto in May".into(),
            reason: "To check the weather.".into()
        })
    );
    assert!(Step::format_guide().contains("Way 1 (Search): Search the web before answering."));
    let mixed = Step::parse_sections("[Query]\nKyoto\n[Answer]\nGo in May.").unwrap_err();
    assert!(mixed
        .to_string()
        .starts_with("Your answer mixes the ways of Step"));
    assert_eq!(
        AgentStep::parse_sections("[Thought]\nI know.\n[Answer]\nGo in May."),
        Ok(AgentStep {
            thought: "I know.".into(),
            next: Step::Answer(FinalAnswer {
                answer: "Go in May.".into()
            })
        })
    );
}

/// Third round: a rule across sections over a flattened group.
#[derive(Debug, PartialEq, Sections)]
struct Customer {
    name: String,
}

#[derive(Debug, PartialEq, Sections)]
#[sections(validate = check_refund)]
struct Ticket {
    #[section(flatten)]
    customer: Customer,
    refund: Option<f64>,
}

fn check_refund(ticket: &Ticket) -> Result<(), String> {
    match ticket.refund {
        Some(refund) if refund > 100.0 => Err("A refund is at most 100.".into()),
        _ => Ok(()),
    }
}

#[test]
fn a_rule_across_sections() {
    assert_eq!(
        Ticket::parse_sections("[Name]\nAda\n[Refund]\n20"),
        Ok(Ticket {
            customer: Customer { name: "Ada".into() },
            refund: Some(20.0)
        })
    );
    let feedback = Ticket::parse_sections("[Name]\nAda\n[Refund]\n200").unwrap_err();
    assert_eq!(feedback.to_string(), "A refund is at most 100.");
}

/// Third round, point 1: a `Think` owns its model, clones, and runs in a
/// spawned task.
#[tokio::test]
async fn a_think_is_a_value_a_program_keeps() {
    let client = ScriptedModel::new([PLAN, PLAN]);
    let think = Think::new(std::sync::Arc::new(client))
        .system("You extract tickets.")
        .max_attempts(3);
    let again = think.clone();
    let spawned = tokio::spawn(async move { again.run::<Plan>("Plan it").await });
    assert_eq!(spawned.await.unwrap().unwrap().value, plan());
    assert_eq!(think.run::<Plan>("Plan it").await.unwrap().value, plan());
    assert_eq!(think.model().calls(), 2);

    let client = ScriptedModel::new([PLAN]);
    let borrowed = Think::new(&client);
    assert_eq!(borrowed.run::<Plan>("Plan it").await.unwrap().value, plan());
    let boxed = Think::new(Box::new(ScriptedModel::new([PLAN])) as Box<dyn ChatModel>);
    assert_eq!(boxed.run::<Plan>("Plan it").await.unwrap().value, plan());
}

/// Third round: images and documents in the prompt. `png` and `pdf` are
/// anything that converts into `bytes::Bytes`; `run`, `run_with` and
/// `stream` take `impl Into<Message>`, and text is a user message as before.
#[tokio::test]
async fn messages_with_parts() {
    let png: Vec<u8> = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let pdf: bytes::Bytes = bytes::Bytes::from_static(b"%PDF-1.7\n%EOF\n");
    let message = Message::user("Read this receipt.").with_image(png, "image/png");
    let _ = Message::user("...").with_image_url("https://example.com/receipt.jpg");
    let _ = Message::user("...").with_document(pdf, "application/pdf");

    let model = ScriptedModel::new([PLAN, "42", PLAN, PLAN]);
    let think = Think::new(&model);
    let outcome = think.run::<Plan>(message.clone()).await.unwrap();
    assert_eq!(outcome.value, plan());
    let n: u32 = think
        .run_with(&message, |raw: &str| {
            raw.trim()
                .parse()
                .map_err(|_| Feedback::message("a number"))
        })
        .await
        .unwrap()
        .value;
    assert_eq!(n, 42);
    let last = think
        .stream::<Plan>(message.clone())
        .collect::<Vec<_>>()
        .await;
    assert!(matches!(last.last(), Some(Progress::Finished(Ok(_)))));
    // Text stays a user message.
    assert_eq!(
        think
            .run::<Plan>(String::from("Plan it"))
            .await
            .unwrap()
            .value,
        plan()
    );
    // The scripted model recorded the parts it was sent.
    let requests = model.requests();
    assert_eq!(requests[0][0].attachments(), message.attachments());
    assert!(requests[3][0].attachments().is_empty());
}

#[tokio::test]
async fn models_and_wrappers() {
    let model = ScriptedModel::new(["whole"]);
    let pieces: Vec<Delta> = model
        .chat_stream(&[Message::user("q")])
        .map(|d| d.unwrap())
        .collect()
        .await;
    assert!(matches!(&pieces[0], Delta::Content(text) if text == "whole"));
    assert!(matches!(pieces.last(), Some(Delta::Done { .. })));

    let fallback = Fallback::new(vec![
        Box::new(ScriptedModel::new(["a"])) as Box<dyn ChatModel>,
        Box::new(ScriptedModel::new(["b"])),
    ]);
    let reply: Reply = fallback.chat(&[Message::user("q")]).await.unwrap();
    assert_eq!(reply.content, "a");
    let breaker = CircuitBreaker::new(ScriptedModel::new(["c"]));
    let reply = breaker.clone().chat(&[Message::user("q")]).await.unwrap();
    assert_eq!(reply.content, "c");

    let _ = OpenAiCompatible::new("http://127.0.0.1:1/v1", "m")
        .api_key("k")
        .stream(true)
        .temperature(0.0)
        .max_tokens(512);
    let _ = OpenAiCompatible::from_env();
    let _ = Gemini::new("k", "m").base_url("http://127.0.0.1:1");
    let _ = Gemini::from_env();
    let _ = Anthropic::new("k", "m").base_url("http://127.0.0.1:1");
    let _ = Anthropic::from_env();
}

/// A model written outside the crate, as a user writes one: it builds its
/// `Reply` and `Usage` with struct literals.
struct Echo;

impl ChatModel for Echo {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let last = request
            .messages
            .last()
            .map(|m| m.content.to_string())
            .unwrap_or_default();
        Box::pin(async move {
            Ok(Response::from_reply(Reply {
                content: format!("[Answer]\n{}", last.len()),
                reasoning: None,
                usage: Usage {
                    prompt_tokens: 3,
                    completion_tokens: 2,
                    total_tokens: 5,
                    ..Usage::default()
                },
                finish_reason: Some(FinishReason::Stop),
                logprobs: Vec::new(),
            }))
        })
    }
}

#[tokio::test]
async fn a_model_of_your_own() {
    let outcome = Think::new(&Echo).run::<Tagged>("abc").await.unwrap();
    assert_eq!(outcome.usage, Usage::new(3, 2));
    assert_eq!(outcome.attempts.len(), 1);
    let message = Message {
        role: Role::User,
        content: "hi".into(),
    };
    assert_eq!(message, Message::user("hi"));

    // The same model as an async function of the conversation; `chat` and
    // `chat_stream` work on it, and on `Echo`, with only `ChatModel` in scope.
    let echo = twr_runtime::model::from_fn(|messages: Vec<Message>| async move {
        let last = messages.last().map_or(0, |m| m.content.len());
        Ok(Reply::text(format!("[Answer]\n{last}")).with_usage(Usage::new(3, 2)))
    })
    .with_name("echo");
    let outcome = Think::new(&echo).run::<Tagged>("abc").await.unwrap();
    let by_trait = Think::new(&Echo).run::<Tagged>("abc").await.unwrap();
    assert_eq!(outcome.value.answer, by_trait.value.answer);
    let reply = Echo.chat(&[Message::user("abcd")]).await.unwrap();
    assert_eq!(reply.content, "[Answer]\n4");
    assert_eq!(outcome.attempts[0].model, "echo");
    let streamed: Vec<Delta> = echo
        .chat_stream(&[Message::user("abcd")])
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(streamed[0], Delta::Content("[Answer]\n4".into()));
}
