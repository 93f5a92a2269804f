//! End to end against a real OpenAI-compatible server (for example
//! llama-cpp-python serving SmolLM2-135M). The tests are ignored unless asked
//! for, and fail (never skip) without a server:
//!
//! ```text
//! bash scripts/local-llm.sh start
//! TWR_E2E_BASE_URL=http://127.0.0.1:8088/v1 \
//!     cargo test -p twr-tests --test e2e_local_llm -- --ignored --nocapture
//! ```
//!
//! `.ci/run` does exactly this and fails when the server cannot start.
//! `TWR_E2E_MODEL` names the model (default `smollm2-135m-instruct`). The
//! assertions are about the client's and the loop's behaviour (what was sent,
//! what was made of the server's answer), not about how good a
//! 135M-parameter model is.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::run::Ending;
use twr_runtime::{
    Attempt, AttemptKind, ChatModel, Feedback, FinishReason, Message, ModelError, OpenAiCompatible,
    Outcome, Progress, Reply, RetryPolicy, Role, Sections, Think, ThinkError, ThinkErrorKind,
};

const MAX_TOKENS: u32 = 48;

/// The server under test: its base URL and model name. Panics without
/// `TWR_E2E_BASE_URL`: these tests run only when asked for (`--ignored`),
/// and then a missing server is a failure, not a silent pass.
fn server() -> (String, String) {
    let base = std::env::var("TWR_E2E_BASE_URL").expect(
        "TWR_E2E_BASE_URL is not set: start a server (bash scripts/local-llm.sh start) \
         and set TWR_E2E_BASE_URL=http://127.0.0.1:8088/v1",
    );
    let model =
        std::env::var("TWR_E2E_MODEL").unwrap_or_else(|_| "smollm2-135m-instruct".to_string());
    (base, model)
}

fn messages() -> Vec<Message> {
    vec![
        Message::system("You are a concise assistant."),
        Message::user("Name three primary colors, one per line."),
    ]
}

/// Checks a reply the way the loop relies on it, and prints it.
fn check(label: &str, result: &Result<Reply, ModelError>, elapsed: Duration) {
    match result {
        Ok(reply) => {
            eprintln!(
                "{label}: {:?} in {elapsed:?}\n  content: {:?}\n  reasoning: {:?}\n  usage: {:?}",
                reply.finish_reason, reply.content, reply.reasoning, reply.usage
            );
            assert!(
                !reply.content.trim().is_empty() || reply.is_truncated(),
                "an empty reply must be an error unless truncated"
            );
            let finish = reply
                .finish_reason
                .as_ref()
                .expect("the server sends finish_reason");
            assert!(
                matches!(finish, FinishReason::Stop | FinishReason::Length),
                "{finish:?}"
            );
            let usage = reply.usage;
            if usage.total_tokens > 0 {
                assert!(usage.prompt_tokens > 0);
                assert!(usage.completion_tokens >= 1);
                assert!(usage.completion_tokens <= u64::from(MAX_TOKENS));
                assert_eq!(
                    usage.total_tokens,
                    usage.prompt_tokens + usage.completion_tokens
                );
                if *finish == FinishReason::Length {
                    assert_eq!(usage.completion_tokens, u64::from(MAX_TOKENS));
                }
            }
        }
        Err(error) => {
            eprintln!(
                "{label}: error in {elapsed:?}: {error} (transient: {})",
                error.is_transient()
            );
            assert!(
                matches!(error, ModelError::EmptyReply),
                "only an empty reply is an acceptable failure from a healthy server: {error:?}"
            );
        }
    }
}

#[tokio::test]
#[ignore = "needs TWR_E2E_BASE_URL"]
async fn real_server_non_streaming_and_streaming() {
    let (base, model_name) = server();
    let model = OpenAiCompatible::new(&base, &model_name)
        .temperature(0.0)
        .seed(7)
        .max_tokens(MAX_TOKENS)
        .timeout(Duration::from_secs(120));

    let started = Instant::now();
    let plain = model.chat(&messages()).await;
    check("non-streaming", &plain, started.elapsed());
    // llama.cpp servers report usage on whole responses.
    if let Ok(reply) = &plain {
        assert!(
            reply.usage.prompt_tokens > 0,
            "usage missing: {:?}",
            reply.usage
        );
    }

    let streaming = model.clone().stream(true);
    let started = Instant::now();
    let streamed = streaming.chat(&messages()).await;
    check("streaming", &streamed, started.elapsed());

    // Greedy decoding with one seed usually gives the same text both ways,
    // but llama.cpp's prompt cache can change it, so this is reported, not
    // asserted.
    if let (Ok(a), Ok(b)) = (&plain, &streamed) {
        eprintln!(
            "streamed text {} the whole response",
            if a.content == b.content {
                "equals"
            } else {
                "differs from"
            }
        );
    }
}

#[tokio::test]
#[ignore = "needs TWR_E2E_BASE_URL"]
async fn real_server_errors_are_typed() {
    let (base, model_name) = server();
    // A path the server does not serve: a 404 with the server's own message,
    // not worth retrying.
    let wrong = OpenAiCompatible::new(
        format!("{}/no-such-api", base.trim_end_matches('/')),
        &model_name,
    );
    let error = wrong.chat(&messages()).await.unwrap_err();
    eprintln!("wrong path: {error}");
    assert!(
        matches!(error, ModelError::Status { status: 404, .. }),
        "{error:?}"
    );
    assert!(!error.is_transient());

    // A time limit no model can meet.
    let hurried = OpenAiCompatible::new(&base, &model_name)
        .max_tokens(MAX_TOKENS)
        .timeout(Duration::from_millis(1));
    let error = hurried.chat(&messages()).await.unwrap_err();
    eprintln!("1 ms timeout: {error}");
    assert!(
        matches!(error, ModelError::Timeout(d) if d == Duration::from_millis(1)),
        "{error:?}"
    );
}

/// Passes calls through and records every conversation sent.
struct Recording<M> {
    inner: M,
    requests: Mutex<Vec<Vec<Message>>>,
}

impl<M: ChatModel> ChatModel for Recording<M> {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        self.requests
            .lock()
            .unwrap()
            .push(request.messages.to_vec());
        self.inner.call(request)
    }
    fn name(&self) -> &str {
        self.inner.name()
    }
}

/// A strict parser, so a small model's chatty answer gets feedback.
fn legs(raw: &str) -> Result<u32, Feedback> {
    let text = raw.trim().trim_end_matches('.');
    text.parse::<u32>().map_err(|_| {
        Feedback::message(format!(
            "Reply with the number alone, digits only, nothing else; you wrote '{}'.",
            raw.trim()
        ))
    })
}

const SYSTEM: &str = "You are a careful assistant.";
const QUESTION: &str = "How many legs does a spider have?";

/// A parser any reply passes: the trimmed text, unless it is empty.
fn any_text(raw: &str) -> Result<String, Feedback> {
    match raw.trim() {
        "" => Err(Feedback::message("Please answer in a few words.")),
        text => Ok(text.to_string()),
    }
}

/// A question with a short answer, so the reply ends well before the
/// token limit (a reply cut off by the limit is re-asked, not accepted).
const SHORT: &str = "Name one primary color. Answer in one short sentence.";
const SHORT_MAX_TOKENS: u32 = 256;

/// The real-model run that must succeed whatever a small model writes: the
/// first reply is the value, and the ledger says exactly that.
#[tokio::test]
#[ignore = "needs TWR_E2E_BASE_URL"]
async fn real_server_any_text_is_accepted_on_the_first_try() {
    let (base, model_name) = server();
    let model = OpenAiCompatible::new(&base, &model_name)
        .temperature(0.0)
        .seed(7)
        .max_tokens(SHORT_MAX_TOKENS)
        .timeout(Duration::from_secs(300));
    for (label, model, streamed) in [
        ("any text", model.clone(), false),
        ("any text, streamed", model.stream(true), true),
    ] {
        let recording = Recording {
            inner: model,
            requests: Mutex::new(Vec::new()),
        };
        let hook_calls = AtomicUsize::new(0);
        let started = Instant::now();
        let outcome = Think::new(&recording)
            .system(SYSTEM)
            .max_attempts(3)
            .retry_policy(RetryPolicy::none())
            .on_attempt(|_| {
                hook_calls.fetch_add(1, Ordering::SeqCst);
            })
            .run_with(SHORT, any_text)
            .await
            .unwrap_or_else(|error| panic!("{label}: {error:?}"));
        let elapsed = started.elapsed();
        eprintln!(
            "{label}: {:?} in {elapsed:?}, usage {:?}",
            outcome.value, outcome.usage
        );

        assert_eq!(outcome.ending, Ending::FirstTry, "{label}");
        assert_eq!(outcome.attempts.len(), 1, "{label}");
        assert_eq!(hook_calls.load(Ordering::SeqCst), 1, "{label}");
        let attempt = &outcome.attempts[0];
        assert_eq!(attempt.number, 1);
        assert_eq!(attempt.kind, AttemptKind::Accepted);
        assert_eq!(outcome.value, attempt.raw.trim());
        assert_eq!(attempt.reasoning, None);
        assert_eq!(attempt.feedback, None);
        assert_eq!(attempt.sent_back, None);
        assert_eq!(attempt.transport_retries, []);
        assert!(attempt.json.is_empty());
        assert_eq!(attempt.finish_reason, Some(FinishReason::Stop));
        assert_eq!(outcome.usage, attempt.usage);
        if !streamed {
            let usage = attempt.usage;
            assert!(usage.prompt_tokens > 0, "{usage:?}");
            assert!((1..u64::from(SHORT_MAX_TOKENS)).contains(&usage.completion_tokens));
            assert_eq!(
                usage.total_tokens,
                usage.prompt_tokens + usage.completion_tokens
            );
        }
        assert!(attempt.latency <= outcome.elapsed && outcome.elapsed <= elapsed);

        // One request, the system message and the prompt as written (no
        // guide: run_with has no format to describe).
        let requests = recording.requests.lock().unwrap().clone();
        assert_eq!(
            requests,
            vec![vec![Message::system(SYSTEM), Message::user(SHORT)]]
        );
        assert_eq!(
            outcome.transcript,
            vec![
                Message::system(SYSTEM),
                Message::user(SHORT),
                Message::assistant(attempt.raw.clone()),
            ]
        );
        assert_eq!(
            outcome.final_exchange(),
            [
                Message::user(SHORT),
                Message::assistant(attempt.raw.clone())
            ]
        );
    }
}

/// What one run of the loop produced, for the checks below.
struct Run {
    label: &'static str,
    streamed: bool,
    prompt: String,
    attempts: Vec<Attempt>,
    requests: Vec<Vec<Message>>,
    hook_calls: usize,
}

/// Prints the run's result and returns its ledger: a value, or a format
/// failure (exhausted or repeated); a healthy server gives nothing else.
fn ledger<T: std::fmt::Debug>(
    label: &str,
    result: &Result<Outcome<T>, ThinkError>,
    elapsed: Duration,
) -> Vec<Attempt> {
    match result {
        Ok(outcome) => {
            eprintln!(
                "{label}: value {:?} after {} attempt(s), {:?}, usage {:?}, in {elapsed:?}",
                outcome.value,
                outcome.attempts.len(),
                outcome.ending,
                outcome.usage
            );
            let last = outcome.attempts.last().expect("a ledger entry");
            assert!(matches!(
                last.kind,
                AttemptKind::Accepted | AttemptKind::Merged
            ));
            outcome.attempts.clone()
        }
        Err(error) => {
            eprintln!(
                "{label}: {error} after {} attempt(s), in {elapsed:?}",
                error.attempts().len()
            );
            let attempts = error.attempts();
            match error.kind() {
                ThinkErrorKind::Exhausted => assert_eq!(attempts.len(), 3),
                ThinkErrorKind::RepeatedReply => {
                    assert_eq!(attempts.last().unwrap().kind, AttemptKind::Repeated)
                }
                other => panic!("a healthy server gives a value or a format failure: {other:?}"),
            }
            error.attempts().to_vec()
        }
    }
}

/// Checks the loop's own behaviour on a real run: requests against the
/// ledger, hook calls, feedback turns, the bounded conversation.
fn check_run(run: &Run) {
    let Run {
        label,
        streamed,
        prompt,
        attempts,
        requests,
        hook_calls,
    } = run;
    for attempt in attempts {
        eprintln!(
            "  {label} #{} {:?} {:?} {:?} {:?}\n     raw: {:?}\n     sent back: {:?}",
            attempt.number,
            attempt.kind,
            attempt.finish_reason,
            attempt.usage,
            attempt.latency,
            attempt.raw,
            attempt.sent_back
        );
    }
    // One hook call and one ledger entry per reply; one request per reply
    // plus one per transport retry.
    assert_eq!(*hook_calls, attempts.len());
    let retries: usize = attempts.iter().map(|a| a.transport_retries.len()).sum();
    assert_eq!(requests.len(), attempts.len() + retries);
    assert!(!attempts.is_empty() && attempts.len() <= 3);
    // The first request: the system message, then the prompt.
    assert_eq!(requests[0][0], Message::system(SYSTEM));
    assert_eq!(requests[0][1].role, Role::User);
    assert_eq!(requests[0][1].content, *prompt);
    assert_eq!(requests[0].len(), 2);
    for (i, attempt) in attempts.iter().enumerate() {
        assert_eq!(attempt.number, i + 1);
        assert!(
            attempt.finish_reason.is_some(),
            "finish_reason from the server"
        );
        if *streamed {
            assert_eq!(
                attempt.usage.total_tokens, 0,
                "this server sends no usage in streams"
            );
        } else {
            assert!(attempt.usage.prompt_tokens > 0 && attempt.usage.completion_tokens > 0);
        }
        if i + 1 == attempts.len() {
            // Nothing is sent back after the last reply.
            assert_eq!(attempt.sent_back, None);
        } else {
            // The next request carries the prompt, this reply and its
            // feedback, and only the latest failed exchange (bounded).
            let sent_back = attempt
                .sent_back
                .as_deref()
                .expect("feedback for a reply that was not the last");
            let next = &requests[i
                + 1
                + attempts[..=i]
                    .iter()
                    .map(|a| a.transport_retries.len())
                    .sum::<usize>()];
            assert_eq!(next.len(), 4);
            assert_eq!(next[..2], requests[0][..]);
            // The failed reply, or before a focused question the answer so
            // far (the sections kept, each under its header).
            assert_eq!(next[2].role, Role::Assistant);
            assert!(
                *next[2].content == *attempt.raw || next[2].content.starts_with('['),
                "{:?}",
                next[2]
            );
            assert_eq!(next[3], Message::user(sent_back));
        }
    }
}

/// Runs `Think` over the real server with a closure parser.
async fn run_numbers(label: &'static str, model: OpenAiCompatible, streamed: bool) {
    let recording = Recording {
        inner: model,
        requests: Mutex::new(Vec::new()),
    };
    let hook_calls = AtomicUsize::new(0);
    let started = Instant::now();
    let result = Think::new(&recording)
        .system(SYSTEM)
        .max_attempts(3)
        .retry_policy(RetryPolicy::default().max_retries(1))
        .on_attempt(|_| {
            hook_calls.fetch_add(1, Ordering::SeqCst);
        })
        .run_with(QUESTION, legs)
        .await;
    let attempts = ledger(label, &result, started.elapsed());
    check_run(&Run {
        label,
        streamed,
        prompt: QUESTION.to_string(),
        attempts,
        requests: recording.requests.lock().unwrap().clone(),
        hook_calls: hook_calls.load(Ordering::SeqCst),
    });
}

/// The brief's own task, through the derive, the parser and the loop.
#[derive(Debug, Sections)]
struct Trip {
    /// What to do, in a few lines.
    plan: String,
    /// Day by day.
    timeline: String,
    /// The total cost.
    budget: String,
}

const TRIP: &str = "Plan a 3-day trip to Kyoto.";

async fn run_trip(label: &'static str, model: OpenAiCompatible, streamed: bool) {
    let recording = Recording {
        inner: model,
        requests: Mutex::new(Vec::new()),
    };
    let hook_calls = AtomicUsize::new(0);
    let started = Instant::now();
    let result = Think::new(&recording)
        .system(SYSTEM)
        .max_attempts(3)
        .retry_policy(RetryPolicy::default().max_retries(1))
        .on_attempt(|_| {
            hook_calls.fetch_add(1, Ordering::SeqCst);
        })
        .run::<Trip>(TRIP)
        .await;
    if let Ok(outcome) = &result {
        // A parsed String section is never empty.
        let trip = &outcome.value;
        for section in [&trip.plan, &trip.timeline, &trip.budget] {
            assert!(!section.trim().is_empty());
        }
    }
    let attempts = ledger(label, &result, started.elapsed());
    check_run(&Run {
        label,
        streamed,
        prompt: format!("{TRIP}\n\n{}", Trip::format_guide()),
        attempts,
        requests: recording.requests.lock().unwrap().clone(),
        hook_calls: hook_calls.load(Ordering::SeqCst),
    });
}

#[tokio::test]
#[ignore = "needs TWR_E2E_BASE_URL"]
async fn real_server_through_the_loop() {
    let (base, model_name) = server();
    let model = OpenAiCompatible::new(&base, &model_name)
        .temperature(0.0)
        .seed(7)
        .max_tokens(MAX_TOKENS)
        .timeout(Duration::from_secs(120));
    run_numbers("numbers", model.clone(), false).await;
    run_numbers("numbers, streamed", model.clone().stream(true), true).await;
    // The sections run once: a 135M model on a shared CPU is slow, and the
    // streamed path is already covered above.
    run_trip("trip", model.max_tokens(160), false).await;
}

/// One streamed run: the server streams, the loop reads each
/// section the moment it is complete (stopping a reply whose section is
/// already invalid), and every event is printed. The assertions are about
/// the events and the ledger agreeing, not about the model's answer.
#[tokio::test]
#[ignore = "needs TWR_E2E_BASE_URL"]
async fn real_server_streamed_run_reports_each_section() {
    let (base, model_name) = server();
    let model = OpenAiCompatible::new(&base, &model_name)
        .temperature(0.0)
        .seed(7)
        .max_tokens(160)
        .timeout(Duration::from_secs(120))
        .stream(true);
    assert!(model.streams());
    let think = Think::new(&model)
        .system(SYSTEM)
        .max_attempts(3)
        .retry_policy(RetryPolicy::default().max_retries(1));
    let started = Instant::now();
    let events: Vec<Progress<Trip>> = think.stream::<Trip>(TRIP).collect().await;
    let headers: Vec<&str> = Trip::specs().iter().map(|spec| spec.header).collect();
    let mut current = 0;
    let mut aborted = Vec::new();
    let mut feedback = Vec::new();
    let mut result = None;
    for event in events {
        match event {
            Progress::AttemptStarted { attempt } => {
                eprintln!("streamed: attempt {attempt} started");
                assert_eq!(attempt, current + 1, "attempts start in order");
                current = attempt;
            }
            Progress::SectionComplete(section) | Progress::SectionInvalid(section) => {
                eprintln!(
                    "streamed: attempt {} {} complete ({}): {:?}",
                    section.attempt,
                    section.header,
                    match &section.problem {
                        None => "valid".to_string(),
                        Some(problem) => format!("invalid: {:?}", problem.kind),
                    },
                    section.text
                );
                assert_eq!(section.attempt, current);
                assert!(headers.contains(&section.header), "{}", section.header);
                assert_eq!(section.completed.text(section.field), Some(&*section.text));
            }
            Progress::Aborted {
                attempt,
                header,
                received,
            } => {
                eprintln!("streamed: attempt {attempt} stopped at {header} after {received} bytes");
                assert_eq!(attempt, current);
                aborted.push((attempt, received));
            }
            Progress::TransportRetry { attempt, error } => {
                eprintln!("streamed: attempt {attempt} transport retry: {error}");
            }
            Progress::Retry {
                attempt,
                kind,
                feedback: text,
            } => {
                eprintln!("streamed: attempt {attempt} ({kind:?}) feedback: {text:?}");
                feedback.push((attempt, text));
            }
            Progress::Finished(finished) => result = Some(finished),
            _ => {}
        }
    }
    let result = result.expect("the stream ends with the outcome or the error");
    let attempts = ledger("trip, streamed", &result, started.elapsed());
    // A run that failed during a call has one attempt fewer than it started.
    assert!(attempts.len() == current || (result.is_err() && attempts.len() + 1 == current));
    for attempt in &attempts {
        // This server sends no usage in streams, and an aborted reply never
        // gets the stream's last event: the ledger says so.
        assert_eq!(attempt.usage_reported, attempt.usage.total_tokens > 0);
        let was_aborted = aborted.iter().find(|(n, _)| *n == attempt.number);
        assert_eq!(was_aborted.is_some(), attempt.kind == AttemptKind::Aborted);
        if let Some((_, received)) = was_aborted {
            assert_eq!(attempt.raw.len(), *received);
            assert_eq!(attempt.finish_reason, None);
        }
        let sent = feedback.iter().find(|(n, _)| *n == attempt.number);
        assert_eq!(
            sent.map(|(_, text)| text.as_str()),
            attempt.sent_back.as_deref()
        );
    }
}

/// A short answer for the constrained run: a number and a list.
#[derive(Debug, Sections)]
struct Outing {
    /// How many hours the outing takes.
    hours: u32,
    /// What to see, one item per line.
    sights: Vec<String>,
}

/// The constrained attempt against the real server: the client is told
/// its server takes llama.cpp's GBNF, every attempt is sent with the
/// grammar (`constrain_after(0)`), and the server enforces it: whatever a
/// 135M model would write freely, the reply parses.
#[tokio::test]
#[ignore = "needs TWR_E2E_BASE_URL"]
async fn real_server_enforces_the_grammar_of_a_constrained_attempt() {
    let (base, model_name) = server();
    let model = OpenAiCompatible::new(&base, &model_name)
        .grammar(twr_runtime::grammar::Dialect::LlamaCpp)
        .temperature(0.7)
        .seed(11)
        .max_tokens(512)
        .timeout(Duration::from_secs(300));
    let started = Instant::now();
    let result = Think::new(&model)
        .constrain_after(0)
        .max_attempts(2)
        .run::<Outing>("Plan a two-hour walk through Kyoto's Gion district.")
        .await;
    let attempts = ledger("constrained", &result, started.elapsed());
    assert!(
        attempts.iter().all(|a| a.constrained),
        "every attempt carried the grammar"
    );
    let outcome = result.expect("a reply written under the grammar parses");
    eprintln!(
        "constrained: {} hours, {} sights",
        outcome.value.hours,
        outcome.value.sights.len()
    );
    assert!(!outcome.value.sights.is_empty());
    assert!(outcome.value.sights.iter().all(|s| !s.trim().is_empty()));
}
