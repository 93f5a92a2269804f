//! Quickstart: ask for a typed trip plan, let the loop fix what is wrong.
//!
//! ```text
//! cargo run --example quickstart
//! ```
//!
//! With `TWR_BASE_URL` set (and `TWR_MODEL`, `TWR_API_KEY` if your server
//! needs them) it asks a real OpenAI-compatible server. Without it, a
//! built-in `ScriptedModel` replays a recorded imperfect conversation: the
//! first reply writes the number of days in words and forgets the budget;
//! the loop asks for just those two sections and merges the fix.

use std::error::Error;
use std::process::ExitCode;

use twr_runtime::{
    ChatModel, FinishReason, OpenAiCompatible, Reply, ScriptedModel, Sections, Think, Usage,
};

/// A three-part trip plan.
#[derive(Debug, Sections)]
struct TripPlan {
    /// What to see and do, one item per line.
    #[section(example = "1. Fushimi Inari at dawn\n2. Kiyomizu-dera and Gion at dusk")]
    plan: Vec<String>,
    /// How many days the trip takes.
    days: u32,
    /// The total budget per person, in US dollars.
    #[section(example = "$600")]
    budget: u32,
}

/// The recorded conversation replayed offline: a natural first answer with
/// two problems, then the model's patch.
const OFFLINE_REPLIES: [&str; 2] = [
    "Kyoto rewards an early start, so each day begins before the crowds.\n\n\
     [Plan]\n\
     1. Fushimi Inari at dawn, then Tofuku-ji\n\
     2. Arashiyama bamboo grove and Tenryu-ji\n\
     3. Kiyomizu-dera, Sannenzaka and Gion at dusk\n\n\
     [Days]\n\
     three\n",
    "[Days]\n3\n\n[Budget]\nAbout $650 per person, excluding flights.",
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
        let usage = [Usage::new(212, 96), Usage::new(431, 24)];
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
        .system("You are a careful travel planner.")
        .on_attempt(|attempt| {
            println!("\n--- attempt {} ({:?}) ---", attempt.number, attempt.kind);
            println!("{}", attempt.raw.trim_end());
            if let Some(sent) = &attempt.sent_back {
                println!("\n>>> feedback sent to the model:\n{sent}");
            }
        })
        .run::<TripPlan>("Plan a 3-day trip to Kyoto.")
        .await?;

    let trip = &outcome.value;
    println!("\n=== typed result ({:?}) ===", outcome.ending);
    println!("{} days, about ${} per person:", trip.days, trip.budget);
    for (n, item) in trip.plan.iter().enumerate() {
        println!("  {}. {item}", n + 1);
    }
    println!(
        "{} model calls, {} tokens",
        outcome.attempts.len(),
        outcome.usage.total_tokens
    );
    Ok(())
}
