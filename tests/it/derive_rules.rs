//! Rules across sections: `#[sections(validate = path)]` runs once every
//! section has parsed; its error text goes to the model as written, and
//! `concerns = [...]` names the sections a patch retry asks for again.

use twr_runtime::{feedback::ProblemKind, ScriptedModel, Sections, Think};

#[derive(Debug, PartialEq, Sections)]
#[sections(validate = known_email)]
struct Customer {
    name: String,
    email: String,
}

fn known_email(customer: &Customer) -> Result<(), String> {
    if customer.email.contains('@') {
        Ok(())
    } else {
        Err(format!(
            "{} has no valid e-mail address; write one with an @.",
            customer.name
        ))
    }
}

#[derive(Debug, PartialEq, Sections)]
#[sections(validate = refund_within_total, concerns = [refund, prices])]
#[sections(validate = polite)]
struct Ticket {
    #[section(flatten)]
    customer: Customer,
    /// The price of each item bought, one per line.
    prices: Vec<f64>,
    refund: Option<f64>,
    reply: String,
}

fn refund_within_total(ticket: &Ticket) -> Result<(), String> {
    let total: f64 = ticket.prices.iter().sum();
    match ticket.refund {
        Some(refund) if refund > total => Err(format!(
            "The refund ({refund}) is more than the items' total ({total}): lower the refund or list every item."
        )),
        _ => Ok(()),
    }
}

fn polite(ticket: &Ticket) -> Result<(), &'static str> {
    if ticket.reply.to_lowercase().contains("sorry") {
        Ok(())
    } else {
        Err("Apologise to the customer in your reply.")
    }
}

const TICKET: &str = "[Name]\nAda\n[Email]\nada@example.com\n[Prices]\n- 10\n- 5\n[Refund]\n20\n[Reply]\nSorry about that.";

#[test]
fn a_broken_rule_names_its_sections_and_says_its_own_words() {
    let feedback = Ticket::parse_sections(TICKET).unwrap_err();
    assert_eq!(
        feedback.problems()[0].kind,
        ProblemKind::Rule {
            message: "The refund (20) is more than the items' total (15): lower the refund or list every item.".into(),
            headers: vec!["[Refund]".into(), "[Prices]".into()],
        }
    );
    assert_eq!(feedback.problems()[0].header, "[Refund]");
    assert_eq!(feedback.headers(), ["[Refund]", "[Prices]"]);
    // The rule's words as written, then twr's request.
    assert_eq!(
        feedback.to_string(),
        "The refund (20) is more than the items' total (15): lower the refund or list every item.\n\n\
         Please write those sections again: each header on a line of its own, followed by its content."
    );
    let fixed = TICKET.replace("[Refund]\n20", "[Refund]\n15");
    assert_eq!(Ticket::parse_sections(&fixed).unwrap().refund, Some(15.0));
}

#[test]
fn every_rule_runs_and_one_that_names_no_section_is_about_the_whole_answer() {
    let reply = TICKET.replace("Sorry about that.", "Done.");
    let feedback = Ticket::parse_sections(&reply).unwrap_err();
    let problems: Vec<(&str, String)> = feedback
        .problems()
        .iter()
        .map(|p| (p.header.as_str(), p.to_string()))
        .collect();
    assert_eq!(
        problems,
        [
            ("[Refund]", "The refund (20) is more than the items' total (15): lower the refund or list every item.".to_owned()),
            ("", "Apologise to the customer in your reply.".to_owned()),
        ]
    );
}

#[test]
fn rules_wait_for_every_section_and_a_flattened_types_rules_run_in_place() {
    // A section problem: no rule runs on a value that does not exist.
    let feedback = Ticket::parse_sections(&TICKET.replace("- 5", "- five")).unwrap_err();
    assert_eq!(feedback.headers(), ["[Prices]"]);
    assert!(!matches!(
        feedback.problems()[0].kind,
        ProblemKind::Rule { .. }
    ));
    // The flattened Customer's own rule, with its own words.
    let feedback = Ticket::parse_sections(&TICKET.replace("ada@example.com", "none")).unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "Ada has no valid e-mail address; write one with an @."
    );
    assert_eq!(feedback.headers(), Vec::<&str>::new());
}

#[derive(Debug, PartialEq, Sections)]
#[sections(validate = sane, concerns = [seconds])]
enum Wait {
    For { seconds: u32 },
    Until { time: String },
}

fn sane(wait: &Wait) -> Result<(), String> {
    match wait {
        Wait::For { seconds } if *seconds > 3600 => Err("Wait at most an hour.".into()),
        _ => Ok(()),
    }
}

#[test]
fn an_enum_has_rules_too() {
    assert_eq!(
        Wait::parse_sections("[Seconds]\n60"),
        Ok(Wait::For { seconds: 60 })
    );
    let feedback = Wait::parse_sections("[Seconds]\n7200").unwrap_err();
    assert_eq!(feedback.headers(), ["[Seconds]"]);
    assert_eq!(
        feedback.to_string(),
        "Wait at most an hour.\n\n\
         Please write that section again: the header on a line of its own, followed by its content."
    );
}

#[tokio::test]
async fn a_patch_retry_asks_for_the_sections_the_rule_names_only() {
    let model = ScriptedModel::new([TICKET, "[Prices]\n- 10\n- 5\n- 5\n[Refund]\n20"]);
    let outcome = Think::new(&model)
        .run::<Ticket>("Handle the ticket.")
        .await
        .unwrap();
    assert_eq!(outcome.value.prices, [10.0, 5.0, 5.0]);
    assert_eq!(outcome.value.customer.name, "Ada");
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "The refund (20) is more than the items' total (15): lower the refund or list every item.\n\n\
             Reply with only the corrected [Refund] and [Prices] sections, each under its header on a line of its own; I have kept the rest of your answer."
        )
    );
}

#[tokio::test]
async fn a_rule_that_names_no_section_asks_for_the_whole_answer() {
    let rude = TICKET
        .replace("[Refund]\n20", "[Refund]\n15")
        .replace("Sorry about that.", "Done.");
    let model = ScriptedModel::new([rude, TICKET.replace("[Refund]\n20", "[Refund]\n15")]);
    let outcome = Think::new(&model)
        .run::<Ticket>("Handle the ticket.")
        .await
        .unwrap();
    assert_eq!(outcome.value.reply, "Sorry about that.");
    assert_eq!(
        outcome.attempts[0].sent_back.as_deref(),
        Some(
            "Apologise to the customer in your reply.\n\n\
             Reply with your whole answer again, every section included and each header on a line of its own, with these fixes made."
        )
    );
}
