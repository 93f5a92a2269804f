//! Batch: typed values from three dozen order notes, eight at a time, with
//! a progress bar and a summary table.
//!
//! ```text
//! cargo run --example batch
//! ```
//!
//! With `TWR_BASE_URL` set (and `TWR_MODEL`, `TWR_API_KEY` if your server
//! needs them) it asks a real OpenAI-compatible server. Without it, a
//! built-in offline clerk answers from the notes themselves, with the
//! mistakes small models make: some notes get their count in words first,
//! some lose a section, and a few cannot be read at all. The loop re-asks
//! for what is wrong; the batch goes on whatever one note does.

use std::error::Error;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::run::Ending;
use twr_runtime::{
    ChatModel, Message, ModelError, OpenAiCompatible, Reply, Role, Sections, Think, ThinkErrorKind,
    Usage,
};

/// What an order note says.
#[derive(Debug, Sections)]
struct Order {
    /// The city the order ships to.
    #[section(example = "Lyon")]
    city: String,
    /// How many items were ordered, a whole number.
    #[section(example = "3")]
    items: u32,
    /// The order's total in euros, a whole number.
    #[section(example = "€45")]
    total: u32,
}

const CITIES: [&str; 6] = ["Lyon", "Porto", "Ghent", "Turin", "Bergen", "Brno"];

/// The notes: note `n` ships `n % 7 + 1` items at `12 + n` euros each.
fn notes() -> Vec<String> {
    (0..36)
        .map(|n| {
            let city = CITIES[n % CITIES.len()];
            let items = n % 7 + 1;
            let price = 12 + n;
            format!(
                "Note {n}: customer called, wants {items} item(s) at €{price} each, \
                 shipped to {city}. Paid in full: €{}.",
                items * price
            )
        })
        .collect()
}

/// The offline model: reads the note in the prompt and answers in the
/// format, with a small model's habits.
struct OfflineClerk;

const WORDS: [&str; 8] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven",
];

impl OfflineClerk {
    fn answer(&self, messages: &[Message]) -> String {
        // The note is in the first user message; earlier replies tell which
        // attempt this is.
        let note = messages
            .iter()
            .find(|m| m.role == Role::User)
            .map_or("", |m| m.content.as_str());
        let retry = messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count();
        let n: usize = note
            .strip_prefix("Note ")
            .and_then(|rest| rest.split(':').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let (city, items, total) = (CITIES[n % CITIES.len()], n % 7 + 1, (n % 7 + 1) * (12 + n));
        match (n % 12, retry) {
            // Unreadable handwriting: never an answer in the format.
            (11, _) => "Sorry, I cannot make out this note.".to_string(),
            // The count in words, then fixed when asked.
            (2 | 7, 0) => format!(
                "Looking at the note:\n[City]\n{city}\n[Items]\n{}\n[Total]\n€{total}",
                WORDS[items]
            ),
            // The total forgotten, then given alone when asked.
            (4 | 9, 0) => format!("[City]\n{city}\n[Items]\n{items}"),
            (4 | 9, _) => format!("[Total]\n€{total}"),
            _ => format!("[City]\n{city}\n[Items]\n{items}\n[Total]\n€{total}"),
        }
    }
}

impl ChatModel for OfflineClerk {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let messages = request.messages;
        Box::pin(async move {
            // A little latency, as a model has.
            tokio::time::sleep(std::time::Duration::from_millis(40)).await;
            let text = self.answer(messages);
            let read: usize = messages.iter().map(|m| m.content.len()).sum();
            let mut reply = Reply::text(text);
            // Token counts as a tokenizer of ~4 bytes a token would give.
            reply.usage = Usage::new((read / 4) as u64, (reply.content.len() / 4) as u64);
            Ok(Response::from_reply(reply))
        })
    }

    fn name(&self) -> &str {
        "offline-clerk"
    }
}

fn model() -> Result<Box<dyn ChatModel>, Box<dyn Error>> {
    if std::env::var_os("TWR_BASE_URL").is_some() {
        let client = OpenAiCompatible::from_env()?.temperature(0.0);
        println!(
            "Online: asking {} at {}.",
            client.model(),
            client.base_url()
        );
        Ok(Box::new(client))
    } else {
        println!("Offline demo: TWR_BASE_URL is not set, so a built-in clerk answers.");
        Ok(Box::new(OfflineClerk))
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
    let notes = notes();
    // Drawn on the terminal only: piped output gets the summary alone.
    let bar = ProgressBar::new(notes.len() as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:30} {pos}/{len} notes  {msg}",
    )?);
    let results = Think::new(&model)
        .system("You read order notes and report exactly what they say.")
        .max_attempts(3)
        .concurrency(8)
        .on_progress(|p| {
            bar.set_position(p.done as u64);
            bar.set_message(format!(
                "{} failed, {} tokens",
                p.failed, p.usage.total_tokens
            ));
        })
        .run_many::<Order>(
            notes
                .iter()
                .map(|note| format!("{note}\n\nWhat does this order say?")),
        )
        .await;
    bar.finish_and_clear();

    let (mut first_try, mut reasked, mut failed) = (0, 0, 0);
    let mut tokens = Usage::default();
    for (note, result) in notes.iter().zip(&results) {
        match result {
            Ok(outcome) => {
                tokens += outcome.usage;
                if outcome.ending == Ending::FirstTry {
                    first_try += 1;
                } else {
                    reasked += 1;
                }
            }
            Err(error) => {
                tokens += error.usage();
                failed += 1;
                let label = note.split(':').next().unwrap_or(note);
                let why = match error.kind() {
                    ThinkErrorKind::Exhausted => "no reply in the format after 3 attempts",
                    ThinkErrorKind::RepeatedReply => "the same reply twice",
                    ThinkErrorKind::Model { .. } => "the model call failed",
                    _ => "stopped",
                };
                println!("{label}: no value ({why})");
            }
        }
    }
    let first = results.iter().find_map(|r| r.as_ref().ok());
    if let Some(outcome) = first {
        let order = &outcome.value;
        println!(
            "First note: {} item(s) to {}, €{} in all.",
            order.items, order.city, order.total
        );
    }
    println!();
    println!("| outcome                  | notes |");
    println!("|--------------------------|-------|");
    println!("| typed on the first try   | {first_try:>5} |");
    println!("| typed after re-asks      | {reasked:>5} |");
    println!("| failed                   | {failed:>5} |");
    println!("| tokens (prompt + reply)  | {:>5} |", tokens.total_tokens);
    Ok(())
}
