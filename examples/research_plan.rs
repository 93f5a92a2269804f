//! A larger struct: a list, a choice, a JSON section, a validator, an
//! optional section and an alias.
//!
//! ```text
//! cargo run --example research_plan
//! ```
//!
//! With `TWR_BASE_URL` set it asks a real OpenAI-compatible server; without
//! it a built-in `ScriptedModel` replays a recorded imperfect conversation.

use std::error::Error;
use std::process::ExitCode;

use serde::Deserialize;
use twr_runtime::{
    ChatModel, Choice, FinishReason, OpenAiCompatible, Reply, ScriptedModel, Sections, Think, Usage,
};

/// How urgent the study is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Choice)]
enum Priority {
    Low,
    Medium,
    High,
}

/// The budget, as a JSON object.
#[derive(Debug, Deserialize)]
struct Budget {
    total: u32,
    currency: String,
    items: Vec<BudgetItem>,
}

/// One line of the budget.
#[derive(Debug, Deserialize)]
struct BudgetItem {
    name: String,
    amount: u32,
}

/// A research plan for a small user study.
#[derive(Debug, Sections)]
struct ResearchPlan {
    /// The question the study answers, in one sentence.
    #[section(header = "[Research Question]")]
    question: String,
    /// The steps of the study, in order.
    #[section(
        header = "[Research Plan]",
        example = "1. Literature review\n2. Interviews"
    )]
    steps: Vec<String>,
    /// What happens when.
    #[section(aliases = ["Schedule"], example = "Weeks 1-2: literature review")]
    timeline: String,
    /// How many weeks the study takes, between 1 and 52.
    #[section(validate = check_weeks, example = "12")]
    weeks: u32,
    /// How urgent it is.
    priority: Priority,
    /// The budget as JSON.
    #[section(
        json,
        example = r#"{"total": 5000, "currency": "EUR", "items": [{"name": "Participant fees", "amount": 3000}]}"#
    )]
    budget: Budget,
    /// Anything else worth knowing.
    notes: Option<String>,
}

fn check_weeks(weeks: &u32) -> Result<(), String> {
    if (1..=52).contains(weeks) {
        Ok(())
    } else {
        Err(format!(
            "a study of {weeks} weeks does not fit in a year; give a number from 1 to 52"
        ))
    }
}

const OFFLINE_REPLIES: [&str; 3] = [
    "<think>Remote work and sleep: interviews first, then a diary study.</think>\n\
     ## Research Question\n\
     Does working from home change how long software engineers sleep?\n\n\
     **[Research Plan]**\n\
     1. Literature review on remote work and sleep\n\
     2. Twelve semi-structured interviews\n\
     3. A four-week sleep diary study with 40 participants\n\n\
     [Schedule]\n\
     Weeks 1-2: literature review. Weeks 3-5: interviews. Weeks 6-9: diary study. Weeks 10-12: analysis.\n\n\
     [Weeks]\n\
     twelve\n\n\
     [Priority]\n\
     Medium-ish\n\n\
     [Budget]\n\
     ```json\n\
     {\"total\": 6400, \"currency\": \"EUR\", \"items\": [\n  {\"name\": \"Participant fees\", \"amount\": 4000},\n  {\"name\": \"Transcription\", \"amount\": 2400},\n]}\n\
     ```\n",
    "[Weeks]\n60\n\n[Priority]\nMedium",
    "[Weeks]\n12",
];

fn model() -> Result<Box<dyn ChatModel>, Box<dyn Error>> {
    if std::env::var_os("TWR_BASE_URL").is_some() {
        let client = OpenAiCompatible::from_env()?.temperature(0.2);
        println!(
            "Online: asking {} at {}.",
            client.model(),
            client.base_url()
        );
        Ok(Box::new(client))
    } else {
        println!(
            "Offline demo: TWR_BASE_URL is not set, so a built-in ScriptedModel replays a recorded, imperfect conversation."
        );
        // Token counts as a small chat model would report them.
        let usage = [
            Usage::new(388, 241),
            Usage::new(702, 18),
            Usage::new(744, 9),
        ];
        let replies = OFFLINE_REPLIES.iter().zip(usage).map(|(text, usage)| {
            Reply::text(*text)
                .with_usage(usage)
                .with_finish_reason(FinishReason::Stop)
        });
        Ok(Box::new(ScriptedModel::from_replies(replies)))
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Each level says its own part: the error, then each cause.
            eprint!("error: {error}");
            let mut cause = error.source();
            while let Some(next) = cause {
                eprint!(": {next}");
                cause = next.source();
            }
            eprintln!();
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn Error>> {
    let model = model()?;
    let outcome = Think::new(&model)
        .system("You are an experienced user researcher.")
        .max_attempts(4)
        .on_attempt(|attempt| {
            println!("\n--- attempt {} ({:?}) ---", attempt.number, attempt.kind);
            println!("{}", attempt.raw.trim_end());
            if let Some(sent) = &attempt.sent_back {
                println!("\n>>> feedback sent to the model:\n{sent}");
            }
        })
        .run::<ResearchPlan>(
            "Plan a small study of how remote work affects the sleep of software engineers.",
        )
        .await?;

    let plan = &outcome.value;
    println!("\n=== typed result ({:?}) ===", outcome.ending);
    println!("Question: {}", plan.question);
    println!(
        "Priority {:?}, {} weeks: {}",
        plan.priority, plan.weeks, plan.timeline
    );
    for (n, step) in plan.steps.iter().enumerate() {
        println!("  {}. {step}", n + 1);
    }
    println!("Budget: {} {}", plan.budget.total, plan.budget.currency);
    for item in &plan.budget.items {
        println!("  {}: {}", item.name, item.amount);
    }
    println!("Notes: {}", plan.notes.as_deref().unwrap_or("(none)"));
    println!("Merged from:");
    for source in &outcome.sources {
        println!("  {} from attempt {}", source.header, source.attempt);
    }
    println!(
        "{} model calls, {} tokens",
        outcome.attempts.len(),
        outcome.usage.total_tokens
    );
    Ok(())
}
