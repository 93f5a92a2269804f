//! Requests a small model can follow: demonstrations, a bare
//! answer to a request for one section, a focused question as the last
//! resort, and replies that only acknowledge a request.

use twr_runtime::run::Ending;
use twr_runtime::{
    Attempt, AttemptKind, FinishReason, Message, Reply, ScriptedModel, Sections, Think,
    ThinkErrorKind, Usage,
};

/// A three-part trip plan, as a user would derive it.
#[derive(Debug, PartialEq, Sections)]
struct Trip {
    /// What to see, one item per line.
    #[section(example = "1. Fushimi Inari\n2. Gion")]
    plan: Vec<String>,
    /// How many days the trip takes.
    days: u32,
    /// The total budget per person, in US dollars.
    #[section(example = "$600")]
    budget: u32,
}

fn trip(days: u32) -> Trip {
    Trip {
        plan: vec!["Temples".to_string()],
        days,
        budget: 500,
    }
}

/// The kind of each attempt, in order.
fn kinds(attempts: &[Attempt]) -> Vec<AttemptKind> {
    attempts.iter().map(|a| a.kind).collect()
}

const PROMPT: &str = "Plan a trip to Kyoto.";
/// A complete answer but for `[Days]`, written in words.
const DAYS_IN_WORDS: &str = "[Plan]\n- Temples\n[Days]\nthree\n[Budget]\n$500";

fn prompt_with_guide() -> Message {
    Message::user(format!("{PROMPT}\n\n{}", Trip::format_guide()))
}

#[tokio::test]
async fn a_demonstration_goes_first_and_carries_the_guide() {
    let model = ScriptedModel::new(["[Plan]\n- Temples\n[Days]\n3\n[Budget]\n$500"]);
    let history = [Message::user("Hi"), Message::assistant("Hello!")];
    let outcome = Think::new(&model)
        .system("You plan trips.")
        .history(&history)
        .demonstration(
            "Plan a day in Osaka.",
            "[Plan]\n- Castle\n[Days]\n1\n[Budget]\n$150",
        )
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(outcome.value, trip(3));
    assert_eq!(
        model.requests()[0],
        vec![
            Message::system("You plan trips."),
            Message::user(format!("Plan a day in Osaka.\n\n{}", Trip::format_guide())),
            Message::assistant("[Plan]\n- Castle\n[Days]\n1\n[Budget]\n$150"),
            Message::user("Hi"),
            Message::assistant("Hello!"),
            Message::user(format!(
                "{PROMPT}\n\nAnswer in the same format, with the sections [Plan], [Days] and \
                 [Budget], each header on a line of its own."
            )),
        ]
    );
    // The clean pair for the caller's conversation is the prompt as written.
    assert_eq!(outcome.final_exchange()[0], Message::user(PROMPT));
}

#[tokio::test]
async fn every_later_demonstration_asks_as_the_prompt_does() {
    let model = ScriptedModel::new(["[Plan]\n- Temples\n[Days]\n3\n[Budget]\n$500"]);
    Think::new(&model)
        .demonstration(
            "Plan a day in Osaka.",
            "[Plan]\n- Castle\n[Days]\n1\n[Budget]\n$150",
        )
        .demonstration(
            "Plan a week in Crete.",
            "[Plan]\n- Beaches\n[Days]\n7\n[Budget]\n$900",
        )
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    let reminder = "Answer in the same format, with the sections [Plan], [Days] and [Budget], \
                    each header on a line of its own.";
    assert_eq!(
        model.requests()[0],
        vec![
            Message::user(format!("Plan a day in Osaka.\n\n{}", Trip::format_guide())),
            Message::assistant("[Plan]\n- Castle\n[Days]\n1\n[Budget]\n$150"),
            Message::user(format!("Plan a week in Crete.\n\n{reminder}")),
            Message::assistant("[Plan]\n- Beaches\n[Days]\n7\n[Budget]\n$900"),
            Message::user(format!("{PROMPT}\n\n{reminder}")),
        ]
    );
}

#[tokio::test]
async fn demonstrations_for_a_free_parser_are_plain_pairs() {
    let model = ScriptedModel::new(["6"]);
    let outcome = Think::new(&model)
        .demonstration("How many legs has a spider?", "8")
        .run_with("How many legs has an insect?", |raw: &str| {
            raw.trim()
                .parse::<u32>()
                .map_err(|_| "Write only the number.".into())
        })
        .await
        .unwrap();
    assert_eq!(outcome.value, 6);
    assert_eq!(
        model.requests()[0],
        vec![
            Message::user("How many legs has a spider?"),
            Message::assistant("8"),
            Message::user("How many legs has an insect?"),
        ]
    );
}

#[tokio::test]
async fn the_automatic_demonstration_shows_the_example_answer() {
    let model = ScriptedModel::new(["[Plan]\n- Temples\n[Days]\n3\n[Budget]\n$500"]);
    Think::new(&model)
        .auto_demonstration(true)
        .run::<Trip>(PROMPT)
        .await
        .unwrap();
    assert_eq!(
        model.requests()[0][..2],
        [
            Message::user(format!(
                "Show me an example answer in this format.\n\n{}",
                Trip::format_guide()
            )),
            Message::assistant(
                "[Plan]\n1. Fushimi Inari\n2. Gion\n[Days]\n<a single whole number>\n[Budget]\n$600"
            ),
        ]
    );
}

#[tokio::test]
async fn a_bare_answer_to_a_request_for_one_section_is_that_section() {
    let model = ScriptedModel::new([DAYS_IN_WORDS, "Sure! Here it is:\n3"]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, trip(3));
    assert_eq!(outcome.ending, Ending::Repaired(1));
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
    assert_eq!(
        outcome.final_reply(),
        "[Plan]\n- Temples\n\n[Days]\n3\n\n[Budget]\n$500"
    );
}

/// A capable model's patch reply, with its header, reads exactly as before
/// bare answers were read.
#[tokio::test]
async fn a_patch_reply_with_its_header_reads_as_before() {
    for reply in ["[Days]\n3", "Here is the corrected section:\n\n[Days]\n3"] {
        let model = ScriptedModel::new([DAYS_IN_WORDS, reply]);
        let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
        assert_eq!(outcome.value, trip(3));
        assert_eq!(outcome.ending, Ending::Repaired(1));
        assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
        assert_eq!(
            outcome.final_reply(),
            "[Plan]\n- Temples\n\n[Days]\n3\n\n[Budget]\n$500"
        );
    }
}

#[tokio::test]
async fn a_bare_answer_is_not_read_when_several_sections_were_asked() {
    let first = "[Plan]\n- Temples\n[Days]\nthree\n[Budget]\nfive hundred";
    let model = ScriptedModel::new([first, "3\n$500"]);
    let error = Think::new(&model)
        .max_attempts(2)
        .run::<Trip>(PROMPT)
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    let problems = error.attempts()[1].feedback.as_ref().unwrap();
    let headers: Vec<&str> = problems
        .problems()
        .iter()
        .map(|p| p.header.as_str())
        .collect();
    assert_eq!(headers, ["[Days]", "[Budget]"]);
}

#[tokio::test]
async fn a_section_still_wrong_after_its_patch_gets_a_focused_question() {
    let model = ScriptedModel::new([DAYS_IN_WORDS, "[Days]\nthree days", "3"]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, trip(3));
    assert_eq!(outcome.ending, Ending::Repaired(2));
    assert_eq!(
        kinds(&outcome.attempts),
        [
            AttemptKind::Rejected,
            AttemptKind::Rejected,
            AttemptKind::Focused
        ]
    );
    let question = "How many days the trip takes. Reply with only the number.";
    assert_eq!(outcome.attempts[1].sent_back.as_deref(), Some(question));
    // The model sees its answer so far, not the reply that failed again.
    assert_eq!(
        model.requests()[2],
        vec![
            prompt_with_guide(),
            Message::assistant("[Plan]\n- Temples\n\n[Budget]\n$500"),
            Message::user(question),
        ]
    );
    assert_eq!(outcome.attempts[1].raw, "[Days]\nthree days");
}

#[tokio::test]
async fn a_focused_question_names_the_example_when_there_is_one() {
    let first = "[Plan]\n- Temples\n[Days]\n3\n[Budget]\nfive hundred";
    let model = ScriptedModel::new([first, "[Budget]\nabout five hundred", "$500 in all"]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, trip(3));
    assert_eq!(
        outcome.attempts[1].sent_back.as_deref(),
        Some(
            "The total budget per person, in US dollars. Reply with only the number, \
             for example: $600."
        )
    );
    assert_eq!(outcome.attempts[2].kind, AttemptKind::Focused);
}

#[tokio::test]
async fn a_focused_reply_that_still_fails_keeps_its_kind_and_problems() {
    let model = ScriptedModel::new([DAYS_IN_WORDS, "[Days]\nthree days", "a few"]);
    let error = Think::new(&model).run::<Trip>(PROMPT).await.unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::Exhausted));
    let last = &error.attempts()[2];
    assert_eq!(last.kind, AttemptKind::Focused);
    assert_eq!(last.feedback.as_ref().unwrap().headers(), ["[Days]"]);
}

#[tokio::test]
async fn an_acknowledgement_gets_the_request_again() {
    let model = ScriptedModel::new([
        "Sure, I'll do that.",
        "[Plan]\n- Temples\n[Days]\n3\n[Budget]\n$500",
    ]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, trip(3));
    assert_eq!(outcome.ending, Ending::Reasked(1));
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "Please write it now, each header on a line of its own followed by its content, \
             like this:\n\n\
             [Plan]\n1. Fushimi Inari\n2. Gion\n[Days]\n<a single whole number>\n[Budget]\n$600"
        )
    );
}

#[tokio::test]
async fn an_acknowledged_patch_request_is_restated_for_its_sections() {
    let model = ScriptedModel::new([DAYS_IN_WORDS, "Okay, I will fix it.", "[Days]\n3"]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, trip(3));
    assert_eq!(
        outcome.attempts[1].sent_back.as_deref(),
        Some(
            "Please write it now, each header on a line of its own followed by its content, \
             like this:\n\n[Days]\n<a single whole number>"
        )
    );
    assert_eq!(outcome.attempts[2].kind, AttemptKind::Merged);
}

#[tokio::test]
async fn the_same_acknowledgement_twice_still_ends_the_run() {
    let model = ScriptedModel::new(["Sure, I'll do that.", "Sure, I'll do that."]);
    let error = Think::new(&model).run::<Trip>(PROMPT).await.unwrap_err();
    assert!(matches!(error.kind(), ThinkErrorKind::RepeatedReply));
    assert_eq!(error.attempts().len(), 2);
}

#[tokio::test]
async fn after_a_cut_off_reply_the_request_ends_on_the_first_header_to_write() {
    let cut = Reply::text("Kyoto is lovely in spring, and the temples")
        .with_usage(Usage::new(10, 512))
        .with_finish_reason(FinishReason::Length);
    let good = Reply::text("[Plan]\n- Temples\n[Days]\n3\n[Budget]\n$500")
        .with_finish_reason(FinishReason::Stop);
    let model = ScriptedModel::from_replies([cut, good]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, trip(3));
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "Your answer was cut off by the length limit before it was finished. Please write \
             only the [Plan], [Days] and [Budget] sections, each under its header on a line of \
             its own, and keep it short so that it fits. Start with the header [Plan] on a line \
             of its own."
        )
    );
}

#[tokio::test]
async fn a_copied_slot_is_not_a_value() {
    let copied = "[Plan]\n- Temples\n[Days]\n<a single whole number>\n[Budget]\n$500";
    let model = ScriptedModel::new([copied, "[Days]\n3"]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, trip(3));
    let problems = outcome.attempts[0].feedback.as_ref().unwrap();
    assert_eq!(
        problems.to_string(),
        "The [Days] section is empty. Please write a single whole number under its header.\n\
         For example:\n[Days]\n<a single whole number>\n\n\
         Please write that section again: the header on a line of its own, followed by its content."
    );
}

#[tokio::test]
async fn a_model_that_copies_the_guide_gets_focused_questions_at_once() {
    // [Days] repeats its description: the model copies the guide, so a
    // patch retry would be fumbled too. Each failing section is asked for
    // on its own, without the patch retry first.
    let first = "[Plan]\n- Temples\n[Days]\nHow many days the trip takes.\n[Budget]\nfive hundred";
    let model = ScriptedModel::new([first, "3", "$500"]);
    let outcome = Think::new(&model).run::<Trip>(PROMPT).await.unwrap();
    assert_eq!(outcome.value, trip(3));
    assert_eq!(
        kinds(&outcome.attempts),
        [
            AttemptKind::Rejected,
            AttemptKind::Focused,
            AttemptKind::Focused
        ]
    );
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some("How many days the trip takes. Reply with only the number.")
    );
    assert_eq!(
        outcome.attempts[1].sent_back.as_deref(),
        Some(
            "The total budget per person, in US dollars. Reply with only the number, \
             for example: $600."
        )
    );
}

#[tokio::test]
async fn a_second_reply_without_any_header_gets_a_focused_question() {
    let model = ScriptedModel::new([
        "Kyoto is lovely in spring.",
        "Kyoto has many temples and gardens.",
        "- Temples",
    ]);
    let error = Think::new(&model).run::<Trip>(PROMPT).await.unwrap_err();
    // The first reply gets the problem list and the whole answer asked again.
    let first = outcome_message(&error, 0);
    assert!(first.ends_with("with these fixes made."), "{first}");
    // The second is asked for its first section as a plain question, with
    // the reply itself in view (there is no answer so far to show instead).
    assert_eq!(
        outcome_message(&error, 1),
        "What to see, one item per line. Reply with only the list, one item per line."
    );
    assert_eq!(
        model.requests()[2][1],
        Message::assistant("Kyoto has many temples and gardens.")
    );
    assert_eq!(error.attempts()[2].kind, AttemptKind::Focused);
}

fn outcome_message(error: &twr_runtime::ThinkError, attempt: usize) -> &str {
    error.attempts()[attempt].sent_back.as_deref().unwrap()
}

/// A contact with an optional part.
#[derive(Debug, PartialEq, Sections)]
struct Contact {
    /// The person's full name.
    name: String,
    /// Their age in years, if the text gives it.
    age: Option<u32>,
}

#[tokio::test]
async fn required_sections_are_asked_first_and_an_optional_one_may_be_n_a() {
    // [Name] is the guide's slot copied; [Age] cannot be read.
    let first = "[Name]\n<free text>\n[Age]\nforty-one";
    let model = ScriptedModel::new([first, "Lena Berg", "N/A"]);
    let outcome = Think::new(&model)
        .run::<Contact>("Extract the contact: 'Signed, Lena Berg, Stockholm.'")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Contact {
            name: "Lena Berg".to_string(),
            age: None
        }
    );
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some("The person's full name. Reply with only the answer.")
    );
    assert_eq!(
        outcome.attempts[1].sent_back.as_deref(),
        Some(
            "Their age in years, if the text gives it. Reply with only the number. \
             If it does not apply, reply N/A."
        )
    );
}

#[tokio::test]
async fn a_patch_reply_keeps_the_optional_sections_of_earlier_replies() {
    // The patch reply alone would parse (the age is optional) and lose the
    // age given in the first reply; it is read merged instead.
    let model = ScriptedModel::new(["[Name]\n\n[Age]\n41", "[Name]\nLena Berg"]);
    let outcome = Think::new(&model)
        .run::<Contact>("Extract the contact: 'Signed, Lena Berg, 41.'")
        .await
        .unwrap();
    assert_eq!(
        outcome.value,
        Contact {
            name: "Lena Berg".to_string(),
            age: Some(41)
        }
    );
    assert_eq!(outcome.attempts[1].kind, AttemptKind::Merged);
}

/// A recommendation.
#[derive(Debug, PartialEq, Sections)]
struct Verdict {
    /// Whether you recommend it.
    recommend: bool,
    /// How many stars it deserves.
    stars: u8,
}

/// The verdict both scripts below end with.
const RECOMMENDED: Verdict = Verdict {
    recommend: true,
    stars: 4,
};

#[tokio::test]
async fn focused_answers_written_before_an_empty_header_or_introduced_are_read() {
    // The first reply copies the description, so focused questions follow;
    // the answers come as "Yes" before an empty header, and as "The answer
    // is 4 out of 5."
    let model = ScriptedModel::new([
        "[Recommend]\nWhether you recommend it.\n[Stars]\nmany",
        "Yes\n[Recommend]",
        "The answer is 4 out of 5.",
    ]);
    let outcome = Think::new(&model)
        .run::<Verdict>("Should I visit Kyoto?")
        .await
        .unwrap();
    assert_eq!(outcome.value, RECOMMENDED);
    assert_eq!(
        kinds(&outcome.attempts),
        [
            AttemptKind::Rejected,
            AttemptKind::Focused,
            AttemptKind::Focused
        ]
    );
}

#[tokio::test]
async fn a_bare_yes_answers_a_yes_no_question() {
    let model = ScriptedModel::new(["[Recommend]\nWhether you recommend it.\n[Stars]\n4", "Yes."]);
    let outcome = Think::new(&model)
        .run::<Verdict>("Should I visit Kyoto?")
        .await
        .unwrap();
    assert_eq!(outcome.value, RECOMMENDED);
}
