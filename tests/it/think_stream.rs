//! Streamed runs: sections reported as they complete, typed;
//! the progress stream; a reply stopped at its first invalid section; and a
//! streamed run ending exactly as the same replies read whole.

use std::sync::Mutex;
use std::time::Duration;

use futures_util::StreamExt as _;
use twr_runtime::model::{BoxFuture, ErrorDetail, Request, Response};
use twr_runtime::run::Ending;
use twr_runtime::{
    Attempt, AttemptKind, ChatModel, Choice, FinishReason, Message, ModelError, Outcome, Progress,
    Reply, RetryMode, ScriptedModel, SectionEvent, Sections, Think, ThinkError, Usage,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Choice)]
enum Pace {
    Slow,
    Fast,
}

#[derive(Debug, Clone, PartialEq, Sections)]
struct Trip {
    plan: String,
    days: u32,
    pace: Pace,
    notes: String,
}

const PROMPT: &str = "Plan a trip to Kyoto";
const GOOD: &str = "[Plan]\nSee the temples\n[Days]\n3\n[Pace]\nslow\n[Notes]\nBook early.";
/// The second section is invalid, and a tail follows it.
const BAD_DAYS: &str = "[Plan]\nSee the temples\n[Days]\nabout a week\n[Pace]\nslow\n[Notes]\nBook early, and much more text that is never read.";

fn trip() -> Trip {
    Trip {
        plan: "See the temples".into(),
        days: 3,
        pace: Pace::Slow,
        notes: "Book early.".into(),
    }
}

/// `attempt header "text"` and, for an invalid section, its problem.
fn describe(event: &SectionEvent) -> String {
    match &event.problem {
        None => format!("{} {} {:?}", event.attempt, event.header, event.text),
        Some(problem) => format!(
            "{} {} {:?} invalid: {:?}",
            event.attempt, event.header, event.text, problem.kind
        ),
    }
}

#[tokio::test]
async fn each_section_is_reported_the_moment_it_is_complete_and_typed() {
    let model = ScriptedModel::new([GOOD]).chunk_size(3);
    let events = Mutex::new(Vec::new());
    let outcome = Think::new(&model)
        .on_section(|event| {
            events.lock().unwrap().push((
                describe(event),
                event.field,
                event.completed.get::<u32>("days").map(Result::unwrap),
                event.completed.get::<Pace>("pace").map(Result::unwrap),
            ));
        })
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, trip());
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Accepted);
    assert_eq!(
        events.into_inner().unwrap(),
        [
            (
                "1 [Plan] \"See the temples\"".to_string(),
                "plan",
                None,
                None
            ),
            ("1 [Days] \"3\"".to_string(), "days", Some(3), None),
            (
                "1 [Pace] \"slow\"".to_string(),
                "pace",
                Some(3),
                Some(Pace::Slow)
            ),
            (
                "1 [Notes] \"Book early.\"".to_string(),
                "notes",
                Some(3),
                Some(Pace::Slow)
            ),
        ]
    );
}

#[tokio::test]
async fn typed_access_checks_the_kind_of_the_section() {
    let model = ScriptedModel::new([GOOD]).chunk_size(7);
    let seen = Mutex::new(Vec::new());
    Think::new(&model)
        .on_section(|event| {
            if event.field == "days" {
                seen.lock().unwrap().push(format!(
                    "{:?} {:?} {:?}",
                    event.value::<u32>(),
                    event.value::<bool>().map_err(|e| e.to_string()),
                    event.completed.text("plan"),
                ));
            }
        })
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(
        seen.into_inner().unwrap(),
        ["Ok(3) Err(\"the [Days] section holds Integer, not Bool\") Some(\"See the temples\")"]
    );
}

#[tokio::test]
async fn a_reply_is_stopped_at_its_first_invalid_section_and_the_feedback_goes_out_at_once() {
    let model = ScriptedModel::new([BAD_DAYS, "[Days]\n3\n[Pace]\nslow\n[Notes]\nBook early."])
        .chunk_size(5);
    let events = Mutex::new(Vec::new());
    let outcome = Think::new(&model)
        .max_attempts(2)
        .on_section(|event| events.lock().unwrap().push(describe(event)))
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, trip());
    assert_eq!(outcome.ending, Ending::Repaired(1));
    let aborted = &outcome.attempts[0];
    assert_eq!(aborted.kind, AttemptKind::Aborted);
    // Read up to the chunk that ended the [Pace] header line, no further.
    assert_eq!(
        aborted.raw,
        "[Plan]\nSee the temples\n[Days]\nabout a week\n[Pace]\n"
    );
    assert_eq!(aborted.finish_reason, None);
    assert!(!aborted.usage_reported);
    let problems = aborted.feedback.as_ref().unwrap().problems();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].header, "[Days]");
    assert_eq!(
        aborted.sent_back.as_deref(),
        Some(
            "The [Days] section should be a single whole number; it says 'about a week'.\n\n\
             I stopped reading your answer there. Reply with only the [Days], [Pace] and [Notes] \
             sections, each under its header on a line of its own; I have kept the sections \
             before it."
        )
    );
    assert_eq!(
        model.requests()[1][1..],
        [
            Message::assistant(aborted.raw.clone()),
            Message::user(aborted.sent_back.clone().unwrap()),
        ]
    );
    assert_eq!(
        events.into_inner().unwrap(),
        [
            "1 [Plan] \"See the temples\"",
            "1 [Days] \"about a week\" invalid: BadValue { expected: WholeNumber, found: \"about a week\" }",
            "2 [Days] \"3\"",
            "2 [Pace] \"slow\"",
            "2 [Notes] \"Book early.\"",
        ]
    );
}

#[tokio::test]
async fn a_section_merely_missing_so_far_never_stops_a_reply() {
    // [Pace] never comes (a near-miss header instead), [Notes] comes last:
    // nothing is invalid as it arrives, so the whole reply is read.
    let reply = "[Plan]\nSee the temples\n[Days]\n3\n[Speed]\nslow\n[Notes]\nBook early.";
    let model = ScriptedModel::new([reply, "[Pace]\nslow"]).chunk_size(4);
    let outcome = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, trip());
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
    assert_eq!(outcome.attempts[0].raw, reply);
}

#[tokio::test]
async fn early_abort_false_reads_the_whole_reply() {
    let model = ScriptedModel::new([BAD_DAYS, "[Days]\n3"]).chunk_size(5);
    let outcome = Think::new(&model)
        .max_attempts(2)
        .early_abort(false)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value.days, 3);
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
    assert_eq!(outcome.attempts[0].raw, BAD_DAYS);
}

#[tokio::test]
async fn a_model_that_does_not_stream_is_never_stopped_early() {
    // The default is on only for models that stream: this one sent its
    // whole reply anyway.
    let model = ScriptedModel::new([BAD_DAYS, "[Days]\n3"]);
    let events = Mutex::new(0);
    let outcome = Think::new(&model)
        .max_attempts(2)
        .on_section(|_| *events.lock().unwrap() += 1)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Rejected);
    assert_eq!(outcome.attempts[0].raw, BAD_DAYS);
    assert_eq!(*events.lock().unwrap(), 5);
}

#[tokio::test]
async fn the_progress_stream_reports_every_step_and_ends_with_the_outcome() {
    let patch = "[Days]\n3\n[Pace]\nslow\n[Notes]\nBook early.";
    let model = ScriptedModel::new([BAD_DAYS, patch]).chunk_size(6);
    let think = Think::new(&model).max_attempts(2);
    let progress: Vec<Progress<Trip>> = think.stream::<Trip>(PROMPT).collect().await;
    let mut seen = Vec::new();
    let mut outcome = None;
    for event in progress {
        seen.push(match event {
            // Counts of the text so far: think_stream_progress.rs.
            Progress::Receiving { .. } => continue,
            Progress::AttemptStarted { attempt } => format!("attempt {attempt}"),
            Progress::SectionComplete(event) => format!(
                "ok {} (merged: {:?})",
                describe(&event),
                event
                    .completed
                    .iter()
                    .map(|(f, _, _)| (f, event.completed.attempt(f).unwrap()))
                    .collect::<Vec<_>>()
            ),
            Progress::SectionInvalid(event) => format!("invalid {}", describe(&event)),
            Progress::Aborted {
                attempt,
                header,
                received,
            } => {
                format!("aborted {attempt} at {header} after {received} bytes")
            }
            Progress::Retry {
                attempt,
                kind,
                feedback,
            } => {
                format!("retry after {attempt} ({kind:?}): {feedback}")
            }
            Progress::TransportRetry { attempt, error } => format!("transport {attempt}: {error}"),
            Progress::Finished(result) => {
                outcome = Some(result.unwrap());
                "finished".to_string()
            }
            _ => "unknown".to_string(),
        });
    }
    assert_eq!(outcome.unwrap().value, trip());
    assert_eq!(
        seen,
        [
            "attempt 1",
            "ok 1 [Plan] \"See the temples\" (merged: [(\"plan\", 1)])",
            "invalid 1 [Days] \"about a week\" invalid: BadValue { expected: WholeNumber, found: \"about a week\" }",
            "aborted 1 at [Days] after 54 bytes",
            "retry after 1 (Aborted): The [Days] section should be a single whole number; it says 'about a week'.\n\n\
             I stopped reading your answer there. Reply with only the [Days], [Pace] and [Notes] \
             sections, each under its header on a line of its own; I have kept the sections before it.",
            "attempt 2",
            // A patch retry: the merged state has [Plan] from attempt 1.
            "ok 2 [Days] \"3\" (merged: [(\"plan\", 1), (\"days\", 2)])",
            "ok 2 [Pace] \"slow\" (merged: [(\"plan\", 1), (\"days\", 2), (\"pace\", 2)])",
            "ok 2 [Notes] \"Book early.\" (merged: [(\"plan\", 1), (\"days\", 2), (\"pace\", 2), (\"notes\", 2)])",
            "finished",
        ]
    );
}

/// A model whose stream waits a little before each piece, as a server does:
/// a wrapper of the one seam, `call`.
struct Slow(ScriptedModel);

impl ChatModel for Slow {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let response = self.0.call(request).await?;
            Ok(response.map_deltas(|deltas| {
                deltas
                    .then(|delta| async move {
                        tokio::time::sleep(Duration::from_millis(2)).await;
                        delta
                    })
                    .boxed()
            }))
        })
    }

    fn streams(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn dropping_the_progress_stream_stops_the_run() {
    let patch = "[Days]\n3\n[Pace]\nslow\n[Notes]\nBook early.";
    let model = Slow(ScriptedModel::new([BAD_DAYS, patch]).chunk_size(4));
    let think = Think::new(&model).max_attempts(2);
    let mut progress = Box::pin(think.stream::<Trip>(PROMPT));
    while let Some(event) = progress.next().await {
        if matches!(event, Progress::SectionComplete(_)) {
            break;
        }
    }
    drop(progress);
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Nothing runs on in the background: the retry was never asked.
    assert_eq!(model.0.calls(), 1);
    // Polled to its end, the same run asks twice.
    let model = Slow(ScriptedModel::new([BAD_DAYS, patch]).chunk_size(4));
    let think = Think::new(&model).max_attempts(2);
    let events: Vec<Progress<Trip>> = think.stream::<Trip>(PROMPT).collect().await;
    assert!(matches!(events.last(), Some(Progress::Finished(Ok(_)))));
    assert_eq!(model.0.calls(), 2);
}

/// The outcome with the one thing that may differ, latency, zeroed.
fn comparable<T: std::fmt::Debug>(result: Result<Outcome<T>, ThinkError>) -> String {
    fn zeroed(attempts: &[Attempt]) -> Vec<Attempt> {
        attempts
            .iter()
            .cloned()
            .map(|mut attempt| {
                attempt.latency = Duration::ZERO;
                attempt
            })
            .collect()
    }
    match result {
        Ok(outcome) => format!(
            "Ok value={:?} attempts={:?} usage={:?} transcript={:?} ending={:?} sources={:?} final={:?}",
            outcome.value,
            zeroed(&outcome.attempts),
            outcome.usage,
            outcome.transcript,
            outcome.ending,
            outcome.sources,
            outcome.final_reply()
        ),
        Err(error) => format!(
            "Err kind={:?} attempts={:?} usage={:?} failed={:?}",
            error.kind(),
            zeroed(error.attempts()),
            error.usage(),
            error.failed_call().map(|call| (call.number, &call.failures, call.usage)),
        ),
    }
}

fn broken(partial: &str) -> ModelError {
    ModelError::Incomplete {
        partial: Box::new(Reply::text(partial)),
        source: Box::new(ModelError::Interrupted(ErrorDetail::new(
            "connection reset",
        ))),
    }
}

fn stop(text: &str, usage: Usage) -> Result<Reply, ModelError> {
    Ok(Reply::text(text.to_string())
        .with_usage(usage)
        .with_finish_reason(FinishReason::Stop))
}

/// The replies and errors a model is scripted with.
type Script = Vec<Result<Reply, ModelError>>;

/// Scripted conversations: clean; a patch retry; a full retry; a reply cut
/// by the token limit; a stream that breaks mid-reply; a repeated reply;
/// reasoning and usage; exhaustion.
fn conversations() -> Vec<(&'static str, Script, RetryMode)> {
    let cut = Reply::text("[Plan]\nSee the temples\n[Days]\n3\n[Pace]\nsl")
        .with_reasoning("Short trip.")
        .with_usage(Usage::new(30, 12))
        .with_finish_reason(FinishReason::Length);
    vec![
        (
            "clean",
            vec![stop(GOOD, Usage::new(40, 20))],
            RetryMode::Patch,
        ),
        (
            "patch",
            vec![
                stop(BAD_DAYS, Usage::new(40, 30)),
                stop("[Days]\n3", Usage::new(60, 4)),
            ],
            RetryMode::Patch,
        ),
        (
            "full",
            vec![
                stop(BAD_DAYS, Usage::default()),
                stop(GOOD, Usage::default()),
            ],
            RetryMode::Full,
        ),
        (
            "cut",
            vec![
                Ok(cut),
                stop("[Pace]\nslow\n[Notes]\nBook early.", Usage::new(50, 9)),
            ],
            RetryMode::Patch,
        ),
        (
            "broken",
            vec![
                Err(broken("[Plan]\nSee the te")),
                stop(GOOD, Usage::new(40, 20)),
            ],
            RetryMode::Patch,
        ),
        (
            "repeated",
            vec![
                stop("[Plan]\nno days", Usage::default()),
                stop("[Plan]\nno days", Usage::default()),
            ],
            RetryMode::Patch,
        ),
        (
            "exhausted",
            vec![
                stop("[Plan]\nA", Usage::default()),
                stop("[Days]\nmany", Usage::default()),
                stop("[Pace]\nmedium", Usage::default()),
            ],
            RetryMode::Patch,
        ),
        (
            "reasoning",
            vec![Ok(Reply::text("<think>hm</think>\n".to_string() + GOOD)
                .with_reasoning("Weigh it.")
                .with_usage(Usage::new(1, 2))
                .with_finish_reason(FinishReason::Stop))],
            RetryMode::Patch,
        ),
    ]
}

fn script(results: &[Result<Reply, ModelError>]) -> ScriptedModel {
    ScriptedModel::from_results(results.iter().map(|result| match result {
        Ok(reply) => Ok(reply.clone()),
        Err(ModelError::Incomplete { partial, .. }) => Err(broken(&partial.content)),
        Err(_) => unreachable!("only broken streams are scripted"),
    }))
}

#[tokio::test]
async fn a_streamed_run_ends_exactly_as_the_same_replies_read_whole() {
    for (name, results, mode) in conversations() {
        let whole = script(&results);
        let expected = comparable(
            Think::new(&whole)
                .max_attempts(3)
                .retry_mode(mode)
                .retry_policy(twr_runtime::RetryPolicy::default().base_delay(Duration::ZERO))
                .run::<Trip>(PROMPT)
                .await,
        );
        for chunk in [1, 3, 8, 1000] {
            let streamed = script(&results).chunk_size(chunk);
            let got = comparable(
                Think::new(&streamed)
                    .max_attempts(3)
                    .retry_mode(mode)
                    .early_abort(false)
                    .retry_policy(twr_runtime::RetryPolicy::default().base_delay(Duration::ZERO))
                    .run::<Trip>(PROMPT)
                    .await,
            );
            assert_eq!(got, expected, "{name}, chunks of {chunk}");
            assert_eq!(
                streamed.requests(),
                whole.requests(),
                "{name}, chunks of {chunk}"
            );
        }
    }
}

#[tokio::test]
async fn usage_comes_from_the_final_event_and_the_ledger_says_when_there_was_none() {
    let model = ScriptedModel::from_results([
        stop(BAD_DAYS, Usage::new(40, 30)),
        stop("[Days]\nmany", Usage::default()),
        stop(
            "[Days]\n3\n[Pace]\nslow\n[Notes]\nBook early.",
            Usage::new(60, 4),
        ),
    ])
    .chunk_size(5);
    let outcome = Think::new(&model)
        .max_attempts(3)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    let ledger: Vec<(AttemptKind, Usage, bool)> = outcome
        .attempts
        .iter()
        .map(|a| (a.kind, a.usage, a.usage_reported))
        .collect();
    assert_eq!(
        ledger,
        [
            // Stopped early: the final event never came.
            (AttemptKind::Aborted, Usage::default(), false),
            // The server sent none (the final event said zero).
            (AttemptKind::Rejected, Usage::default(), false),
            // [Days] still wrong after a patch: a focused question.
            (AttemptKind::Focused, Usage::new(60, 4), true),
        ]
    );
    assert_eq!(outcome.usage, Usage::new(60, 4));
}
