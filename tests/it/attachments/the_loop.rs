//! The loop with attachments: the format guide goes into the prompt's text
//! and its attachments stay; every request carries them once, in the
//! prompt, sharing the caller's bytes; patch retries, focused questions,
//! streaming, early abort, escalation and fallback work as without them.

use std::sync::Arc;

use futures_util::StreamExt as _;
use twr_runtime::{
    AttemptKind, ChatModel, Fallback, Message, ModelError, Progress, Reply, ScriptedModel,
    Sections, Think,
};

use twr_runtime::run::Ending;

use super::{PDF, PNG};

/// What the receipt says.
#[derive(Debug, Clone, PartialEq, Sections)]
struct Receipt {
    /// The shop's name.
    merchant: String,
    /// How many items were bought.
    items: u32,
    /// The total paid.
    total: f64,
}

const GOOD: &str = "[Merchant]\nBlue Door Cafe\n[Items]\n3\n[Total]\n9.75";
/// `[Items]` in words: the rest is kept, only it is asked for again.
const ITEMS_IN_WORDS: &str = "[Merchant]\nBlue Door Cafe\n[Items]\nthree\n[Total]\n9.75";

fn receipt() -> Receipt {
    Receipt {
        merchant: "Blue Door Cafe".into(),
        items: 3,
        total: 9.75,
    }
}

/// A receipt photo and its PDF: 16 and 14 bytes, in one buffer each.
fn message() -> Message {
    Message::user("Read this receipt.")
        .with_image(PNG, "image/png")
        .with_document(PDF, "application/pdf")
}

/// Checks that `request` carries `sent`'s attachments once, in its first
/// user message, which is `sent`'s text with the guide, sharing `sent`'s
/// buffers; no other message carries any.
fn carries_once(request: &[Message], sent: &Message) {
    let with: Vec<usize> = (0..request.len())
        .filter(|&i| !request[i].attachments().is_empty())
        .collect();
    assert_eq!(with, [0], "attachments only in the prompt: {request:?}");
    let prompt = &request[0];
    assert_eq!(
        prompt.content.as_str(),
        format!("{}\n\n{}", sent.content.as_str(), Receipt::format_guide())
    );
    assert_eq!(prompt.attachments(), sent.attachments());
    for (got, given) in prompt.attachments().iter().zip(sent.attachments()) {
        let (got, given) = (got.data().unwrap(), given.data().unwrap());
        assert_eq!(got.as_ptr(), given.as_ptr(), "a copy of the bytes was made");
    }
}

#[tokio::test]
async fn a_patch_retry_run_sends_the_attachments_once_per_request_sharing_the_bytes() {
    let model = ScriptedModel::new([ITEMS_IN_WORDS, "[Items]\n3"]);
    let sent = message();
    let outcome = Think::new(&model).run::<Receipt>(&sent).await.unwrap();
    assert_eq!(outcome.value, receipt());
    assert_eq!(outcome.ending, Ending::Repaired(1));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].len(), 1);
    // The retry: the prompt (with its attachments), the failed reply and the
    // feedback, which are text.
    assert_eq!(requests[1].len(), 3);
    for request in &requests {
        carries_once(request, &sent);
    }
    // The clean pair for the caller's conversation: the prompt as written,
    // with its attachments, without the guide.
    let [prompt, answer] = outcome.final_exchange();
    assert_eq!(prompt, sent);
    assert_eq!(
        answer.content,
        "[Merchant]\nBlue Door Cafe\n\n[Items]\n3\n\n[Total]\n9.75"
    );
}

#[tokio::test]
async fn a_focused_question_keeps_the_attachments_in_the_prompt() {
    let model = ScriptedModel::new([ITEMS_IN_WORDS, "[Items]\nthree items", "3"]);
    let sent = message();
    let outcome = Think::new(&model).run::<Receipt>(&sent).await.unwrap();
    assert_eq!(outcome.value, receipt());
    let kinds: Vec<AttemptKind> = outcome.attempts.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            AttemptKind::Rejected,
            AttemptKind::Rejected,
            AttemptKind::Focused
        ]
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    requests.iter().for_each(|r| carries_once(r, &sent));
    assert_eq!(
        requests[2].last().unwrap().content,
        "How many items were bought. Reply with only the number."
    );
}

#[tokio::test]
async fn a_streamed_run_with_early_abort_sends_the_attachments_once_per_request() {
    // The first reply stops at its invalid [Items]; the rest is never read,
    // so the retry asks for [Items] and [Total].
    let model = ScriptedModel::new([ITEMS_IN_WORDS, "[Items]\n3\n[Total]\n9.75"]).chunk_size(4);
    let sent = message();
    let think = Think::new(&model).max_attempts(2);
    let progress: Vec<Progress<Receipt>> = think.stream::<Receipt>(&sent).collect().await;
    let aborted = progress
        .iter()
        .filter(|p| {
            matches!(
                p,
                Progress::Aborted {
                    header: "[Items]",
                    ..
                }
            )
        })
        .count();
    assert_eq!(aborted, 1);
    let Some(Progress::Finished(Ok(outcome))) = progress.last() else {
        panic!(
            "the run ends with its outcome: {:?}",
            progress.last().map(describe)
        );
    };
    assert_eq!(outcome.value, receipt());
    assert_eq!(outcome.attempts[0].kind, AttemptKind::Aborted);
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    requests.iter().for_each(|r| carries_once(r, &sent));
}

#[tokio::test]
async fn run_with_and_run_many_take_messages_too() {
    let model = ScriptedModel::new(["twelve", "12"]);
    let sent = Message::user("How many lines?").with_image(PNG, "image/png");
    let outcome = Think::new(&model)
        .run_with(sent.clone(), |raw: &str| {
            raw.trim()
                .parse::<u32>()
                .map_err(|_| twr_runtime::Feedback::message("Reply with a number."))
        })
        .await
        .unwrap();
    assert_eq!(outcome.value, 12);
    for request in model.requests() {
        // run_with appends no guide: the prompt goes as it was written.
        assert_eq!(request[0], sent);
    }
    let model = ScriptedModel::new([GOOD, GOOD]);
    let outcomes = Think::new(&model)
        .concurrency(1)
        .run_many::<Receipt>([message(), Message::user("A receipt with no photo.")])
        .await;
    assert!(outcomes.iter().all(Result::is_ok));
    let requests = model.requests();
    assert_eq!(requests[0][0].attachments().len(), 2);
    assert!(requests[1][0].attachments().is_empty());
}

#[tokio::test]
async fn the_stronger_model_receives_the_same_attachments() {
    let cheap = ScriptedModel::new(["no sections", ITEMS_IN_WORDS]).with_name("cheap");
    let strong = ScriptedModel::new(["[Items]\n3"]).with_name("strong");
    let sent = message();
    let outcome = Think::new(&cheap)
        .escalate_to(&strong, 2)
        .focused_questions(false)
        .run::<Receipt>(&sent)
        .await
        .unwrap();
    assert_eq!(outcome.value, receipt());
    assert_eq!(outcome.attempts[2].model, "strong");
    assert_eq!(strong.requests().len(), 1);
    carries_once(&strong.requests()[0], &sent);
    cheap.requests().iter().for_each(|r| carries_once(r, &sent));
}

#[tokio::test]
async fn a_fallback_model_receives_the_same_attachments() {
    let primary = Arc::new(
        ScriptedModel::from_results([Err(ModelError::Connect("refused".into()))])
            .with_name("primary"),
    );
    let secondary = Arc::new(ScriptedModel::from_results([Ok(Reply::text(GOOD))]));
    let model = Fallback::new(vec![
        Box::new(Arc::clone(&primary)) as Box<dyn ChatModel>,
        Box::new(Arc::clone(&secondary)),
    ]);
    let sent = message();
    let outcome = Think::new(&model).run::<Receipt>(&sent).await.unwrap();
    assert_eq!(outcome.value, receipt());
    assert_eq!(primary.requests().len(), 1);
    assert_eq!(secondary.requests().len(), 1);
    carries_once(&primary.requests()[0], &sent);
    carries_once(&secondary.requests()[0], &sent);
}

#[tokio::test]
async fn a_history_keeps_its_attachments_and_the_caller_s_messages_are_not_changed() {
    let model = ScriptedModel::new([ITEMS_IN_WORDS, "[Items]\n3"]);
    let history = [
        Message::user("Here is last week's receipt.").with_image(PNG, "image/png"),
        Message::assistant("Noted."),
    ];
    let before = history.clone();
    let sent = message();
    Think::new(&model)
        .history(&history)
        .run::<Receipt>(&sent)
        .await
        .unwrap();
    assert_eq!(history, before);
    for request in model.requests() {
        let counts: Vec<usize> = request.iter().map(|m| m.attachments().len()).collect();
        // History image, then the prompt's two; the retry traffic is text.
        assert_eq!(counts[..3], [1, 0, 2]);
        assert!(counts[3..].iter().all(|&n| n == 0));
        let history_image = request[0].attachments()[0].data().unwrap();
        assert_eq!(
            history_image.as_ptr(),
            history[0].attachments()[0].data().unwrap().as_ptr()
        );
    }
}

fn describe(progress: &Progress<Receipt>) -> String {
    match progress {
        Progress::Finished(Err(error)) => format!("{error}"),
        Progress::Finished(Ok(_)) => "ok".into(),
        _ => "not finished".into(),
    }
}
