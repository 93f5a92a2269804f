//! Streaming: each section typed the moment it is complete, and a reply
//! stopped as soon as one of its sections is already wrong.
//!
//! ```text
//! cargo run --example streaming
//! ```
//!
//! With `TWR_BASE_URL` set (and `TWR_MODEL`, `TWR_API_KEY` if your server
//! needs them) it streams from a real OpenAI-compatible server. Without it,
//! a built-in `ScriptedModel` replays a recorded conversation in pieces of
//! 6 characters, as a server streams tokens: the first reply gives the
//! number of days in words, so the loop stops reading it right there (a
//! real server stops generating the rest), keeps the plan, and asks only for
//! what is still missing.
//!
//! On a terminal, a progress bar on stderr follows the run: its position
//! counts the sections done (a section written again replaces the earlier
//! one and is not counted twice), and between sections its message counts
//! the bytes received so far.

use std::error::Error;
use std::process::ExitCode;

use futures_util::StreamExt as _;
use indicatif::{ProgressBar, ProgressStyle};
use twr_runtime::{ChatModel, OpenAiCompatible, Progress, ScriptedModel, Sections, Think};

/// A trip plan, streamed.
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
    /// Practical advice.
    tips: String,
}

/// The recorded conversation replayed offline.
const OFFLINE_REPLIES: [&str; 2] = [
    "[Plan]\n\
     1. Fushimi Inari at dawn, then Tofuku-ji\n\
     2. Arashiyama bamboo grove and Tenryu-ji\n\
     3. Kiyomizu-dera, Sannenzaka and Gion at dusk\n\n\
     [Days]\n\
     three, or four if you are not in a hurry\n\n\
     [Budget]\n\
     About $650 per person, excluding flights.\n\n\
     [Tips]\n\
     Buy an ICOCA card at the airport; it works on every train and bus in Kyoto, \
     and in most convenience stores too. Book the ryokan early in spring and autumn...",
    "[Days]\n3\n\n[Budget]\n$650\n\n[Tips]\nBuy an ICOCA card at the airport and book early.",
];

fn model() -> Result<Box<dyn ChatModel>, Box<dyn Error>> {
    if std::env::var_os("TWR_BASE_URL").is_some() {
        let client = OpenAiCompatible::from_env()?.stream(true).temperature(0.2);
        println!(
            "Online: streaming from {} at {}.",
            client.model(),
            client.base_url()
        );
        Ok(Box::new(client))
    } else {
        println!(
            "Offline demo: TWR_BASE_URL is not set, so a built-in ScriptedModel streams a \
             recorded conversation in 6-character pieces."
        );
        Ok(Box::new(ScriptedModel::new(OFFLINE_REPLIES).chunk_size(6)))
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
    let think = Think::new(&model)
        .system("You are a careful travel planner.")
        .max_attempts(3);
    let mut progress = Box::pin(think.stream::<TripPlan>("Plan a 3-day trip to Kyoto."));
    // Drawn on stderr, and only on a terminal; the lines below go to stdout
    // through `suspend`, which clears the bar while they are written.
    let bar = ProgressBar::new(TripPlan::specs().len() as u64);
    bar.set_style(ProgressStyle::with_template(
        "{spinner} sections {pos}/{len} [{bar:20}] {msg}",
    )?);
    let say = |line: String| bar.suspend(|| println!("{line}"));
    let (mut events, mut replaced) = (0, 0);
    while let Some(event) = progress.next().await {
        if let Progress::SectionComplete(section) | Progress::SectionInvalid(section) = &event {
            events += 1;
            if section.replaces.is_some() {
                replaced += 1;
            }
            // The sections done of those the value needs: an optional
            // section never written is not waited for, so the last event
            // leaves the bar full; a section written again replaces the
            // earlier text and is not counted twice.
            bar.set_length(section.completed.total() as u64);
            bar.set_position(section.completed.len() as u64);
        }
        match event {
            Progress::Receiving {
                attempt, received, ..
            } => bar.set_message(format!("attempt {attempt}: {received} bytes")),
            Progress::AttemptStarted { attempt } => say(format!("\n--- attempt {attempt} ---")),
            Progress::SectionComplete(section) => {
                // Typed as soon as it is complete, before the reply ends.
                let typed = match section.field {
                    "plan" => format!("{} stops", section.value::<Vec<String>>()?.len()),
                    "days" => format!("{} days", section.value::<u32>()?),
                    "budget" => format!("${}", section.value::<u32>()?),
                    _ => format!("{} characters", section.text.chars().count()),
                };
                say(format!("{} complete: {typed}", section.header));
            }
            Progress::SectionInvalid(section) => {
                say(format!(
                    "{} complete but invalid: {:?}",
                    section.header, section.text
                ));
            }
            Progress::Aborted {
                header, received, ..
            } => say(format!(
                "stopped reading at {header}, after {received} bytes"
            )),
            Progress::TransportRetry { error, .. } => say(format!("transport retry: {error}")),
            Progress::Retry { feedback, .. } => {
                say(format!("\n>>> feedback sent to the model:\n{feedback}"))
            }
            Progress::Finished(result) => {
                bar.finish_and_clear();
                println!(
                    "\n{} of {} sections done ({events} section events, {replaced} written again)",
                    events - replaced,
                    TripPlan::specs().len()
                );
                let outcome = result?;
                let trip = &outcome.value;
                println!("\n=== typed result ({:?}) ===", outcome.ending);
                println!("{} days, about ${} per person:", trip.days, trip.budget);
                for (n, item) in trip.plan.iter().enumerate() {
                    println!("  {}. {item}", n + 1);
                }
                println!("Tip: {}", trip.tips);
                let kinds: Vec<String> = outcome
                    .attempts
                    .iter()
                    .map(|attempt| format!("{:?}", attempt.kind))
                    .collect();
                println!("attempts: {}", kinds.join(", "));
            }
            _ => {}
        }
    }
    Ok(())
}
