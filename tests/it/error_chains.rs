//! Error chains say each cause once: `Display` says its own level and
//! `source()` returns the cause (thiserror's and reqwest's convention), so a
//! report that prints an error and then each `source()` (anyhow's `{:#}`, a
//! logger's loop) never repeats a text, and `downcast_ref` reaches every
//! cause.

use std::error::Error;
use std::fmt;

use crate::support::client::refused_origin;
use twr_runtime::model::ErrorDetail;
use twr_runtime::{
    ChatModel, Message, ModelError, OpenAiCompatible, Reply, RetryPolicy, ScriptedModel, Think,
};

/// The error's text and each of its sources', in order.
fn chain(error: &(dyn Error + 'static)) -> Vec<String> {
    let mut texts = Vec::new();
    let mut current = Some(error);
    while let Some(e) = current {
        texts.push(e.to_string());
        current = e.source();
    }
    texts
}

/// Fails when a text of the chain holds a later one: that cause would be
/// printed twice.
fn assert_said_once(texts: &[String]) {
    for (i, earlier) in texts.iter().enumerate() {
        for later in &texts[i + 1..] {
            assert!(
                !earlier.contains(later.as_str()),
                "{later:?} is said twice in {texts:#?}"
            );
        }
    }
}

/// An error with a cause of its own, as a user's or a library's would be.
#[derive(Debug)]
struct Outer(std::io::Error);

impl fmt::Display for Outer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the proxy gave up")
    }
}

impl Error for Outer {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.0)
    }
}

fn reset() -> std::io::Error {
    std::io::Error::other("reset by peer")
}

fn cut_off() -> ModelError {
    ModelError::Incomplete {
        partial: Box::new(Reply::text("[Plan]")),
        source: Box::new(ModelError::Interrupted(ErrorDetail::with_source(
            "the connection failed",
            reset(),
        ))),
    }
}

#[test]
fn an_incomplete_reply_says_its_level_and_its_source_is_the_cause() {
    let error = cut_off();
    let texts = chain(&error);
    assert_eq!(
        texts,
        [
            "the reply was cut off (6 bytes of it had arrived and are kept)",
            "the reply broke off: the connection failed",
            "reset by peer",
        ]
    );
    assert_said_once(&texts);
    let cause = error.source().unwrap().downcast_ref::<ModelError>();
    assert!(
        matches!(cause, Some(ModelError::Interrupted(_))),
        "{cause:?}"
    );
}

#[test]
fn a_named_model_error_says_its_level_and_its_source_is_the_cause() {
    let error = ModelError::Named {
        model: "backup".to_string(),
        source: Box::new(cut_off()),
    };
    let texts = chain(&error);
    assert_eq!(
        texts,
        [
            "the model backup failed",
            "the reply was cut off (6 bytes of it had arrived and are kept)",
            "the reply broke off: the connection failed",
            "reset by peer",
        ]
    );
    assert_said_once(&texts);
    let cause = error.source().unwrap().downcast_ref::<ModelError>();
    assert!(
        matches!(cause, Some(ModelError::Incomplete { .. })),
        "{cause:?}"
    );
}

#[test]
fn an_attachment_error_is_the_source_of_its_model_error() {
    let refused = Message::user("Read this.")
        .with_image(Vec::<u8>::new(), "image/png")
        .check_attachments()
        .unwrap_err();
    let error = ModelError::Attachment(refused);
    let texts = chain(&error);
    assert_eq!(
        texts,
        [
            "an attachment cannot be sent",
            "the image/png attachment has no bytes"
        ]
    );
    let cause = error.source().unwrap();
    assert!(cause
        .downcast_ref::<twr_runtime::model::AttachmentError>()
        .is_some());
}

#[test]
fn a_held_back_call_leaves_the_reason_to_its_source() {
    let error = ModelError::Unavailable {
        retry_after: None,
        source: "the queue is full".into(),
    };
    let texts = chain(&error);
    assert_eq!(
        texts,
        ["the call was held back and not sent", "the queue is full"]
    );
}

#[test]
fn a_detail_made_from_an_error_goes_on_with_that_errors_source() {
    let boxed: Box<dyn Error + Send + Sync> = Box::new(Outer(reset()));
    let error = ModelError::Connect(boxed.into());
    let texts = chain(&error);
    assert_eq!(
        texts,
        [
            "could not connect to the model server: the proxy gave up",
            "reset by peer",
        ]
    );
    // The error it was made from is still there to take out.
    let ModelError::Connect(detail) = error else {
        unreachable!()
    };
    assert!(detail
        .into_source()
        .unwrap()
        .downcast_ref::<Outer>()
        .is_some());
}

#[tokio::test]
async fn a_failed_run_says_the_model_error_once() {
    let model = ScriptedModel::from_results([Err(ModelError::Config(ErrorDetail::with_source(
        "no model name",
        reset(),
    )))]);
    let error = Think::new(&model)
        .run_with("Hi", |raw: &str| {
            Ok::<_, twr_runtime::Feedback>(raw.to_string())
        })
        .await
        .unwrap_err();
    let texts = chain(&error);
    assert_eq!(
        texts,
        [
            "the model call failed",
            "invalid model configuration: no model name",
            "reset by peer",
        ]
    );
    assert_said_once(&texts);
    let cause = error.source().unwrap().downcast_ref::<ModelError>();
    assert!(matches!(cause, Some(ModelError::Config(_))), "{cause:?}");
    // The ledger keeps the whole chain as one text.
    let failures = &error.failed_call().unwrap().failures;
    assert_eq!(
        failures[0].error,
        "invalid model configuration: no model name: reset by peer"
    );
}

#[tokio::test]
async fn a_refused_connection_names_the_url_and_what_to_check_and_leaves_the_reason_to_reqwest() {
    let origin = refused_origin();
    let model = OpenAiCompatible::new(format!("{origin}/v1"), "m");
    let error = model.chat(&[Message::user("Hi")]).await.unwrap_err();
    let texts = chain(&error);
    // The URL with its path, and what to check.
    let hint = "(is a model server running there? check the client's base URL, \
                which from_env() reads from TWR_BASE_URL)";
    assert_eq!(
        texts[0],
        format!("could not connect to the model server: {origin}/v1/chat/completions {hint}")
    );
    assert!(texts.len() > 2, "{texts:#?}");
    assert!(
        texts[1..].iter().any(|t| t.contains("onnection refused")),
        "{texts:#?}"
    );
    assert_said_once(&texts);

    // Through the loop too, and its ledger keeps every cause once.
    let error = Think::new(&model)
        .retry_policy(RetryPolicy::default().max_retries(0))
        .run_with("Hi", |raw: &str| {
            Ok::<_, twr_runtime::Feedback>(raw.to_string())
        })
        .await
        .unwrap_err();
    let texts = chain(&error);
    assert_eq!(texts[0], "the model call failed");
    assert_eq!(
        texts[1],
        format!("could not connect to the model server: {origin}/v1/chat/completions {hint}")
    );
    assert_said_once(&texts);
    let recorded = &error.failed_call().unwrap().failures[0].error;
    assert_eq!(
        *recorded,
        texts.join(": ")["the model call failed: ".len()..]
    );
}

static BRIEF: twr_runtime::phrases::Phrases = twr_runtime::phrases::Phrases {
    missing: "Add {h}: {h} on a line of its own, then {kind}.",
    ..twr_runtime::phrases::Phrases::ENGLISH
};

// Only its failures are read here.
#[allow(dead_code)]
#[derive(Debug, twr_runtime::Sections)]
#[sections(phrases = BRIEF)]
struct Trip {
    days: u32,
}

#[tokio::test]
async fn a_failed_runs_debug_shows_the_replies_not_the_phrase_table() {
    let model = ScriptedModel::new(["Three days.", "Maybe three?"]);
    let error = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>("How long?")
        .await
        .unwrap_err();
    let debug = format!("{error:?}");
    // What matters is there: the replies and what was wrong with them.
    assert!(debug.contains("\"Three days.\""), "{debug}");
    assert!(debug.contains("\"Maybe three?\""), "{debug}");
    assert!(debug.contains("Missing"), "{debug}");
    // The phrase table is not printed (an attempt's own Debug names it).
    assert!(!debug.contains("lang:"), "{debug}");
    assert!(!debug.contains("sentence_gap"), "{debug}");
    assert!(!debug.contains(BRIEF.missing), "{debug}");
    let feedback = format!("{:?}", error.attempts()[0].feedback.as_ref().unwrap());
    assert!(
        feedback.starts_with("Feedback { problems: [Problem {"),
        "{feedback}"
    );
    assert!(feedback.ends_with("lang: Custom(..) }"), "{feedback}");
}

// Only its failures are read here.
#[allow(dead_code)]
#[derive(Debug, twr_runtime::Sections)]
struct Stay {
    days: u32,
    plan: Vec<String>,
}

/// `{:?}` of a failed run (what `main` prints of an error it returns) is a
/// few lines, however long the replies: one entry per attempt, the replies
/// themselves kept whole in the error's data.
#[tokio::test]
async fn the_debug_of_a_failed_run_is_short_and_every_reply_stays_in_its_data() {
    let replies: Vec<String> = (0..3)
        .map(|n| format!("[Days]\n{}\n[Plan]\n- Gion", "many ".repeat(800 + n)))
        .collect();
    let model = twr_runtime::ScriptedModel::new(replies.clone());
    let error = Think::new(&model)
        .max_attempts(3)
        .run::<Stay>("Plan a stay in Kyoto.")
        .await
        .unwrap_err();
    let debug = format!("{error:?}");
    assert!(debug.len() < 1000, "{} bytes: {debug}", debug.len());
    assert!(
        debug.starts_with(
            "ThinkError { kind: Exhausted, attempts: [#1 Rejected by \"scripted\": \
             \"[Days]\\nmany many many many many many many many many many man\"… \
             (4021 bytes); BadValue [Days], #2 Rejected by \"scripted\": "
        ),
        "{debug}"
    );
    assert_eq!(error.raw_replies(), replies);
}
