//! An agent loop: each step is a shared [Thought] followed by the sections
//! of one action: two ways to answer, searching or answering now.
//!
//! ```text
//! cargo run --example agent
//! ```
//!
//! With `TWR_BASE_URL` set (and `TWR_MODEL`, `TWR_API_KEY` if your server
//! needs them) the steps are asked of a real OpenAI-compatible server.
//! Without it, a built-in `ScriptedModel` replays a recorded agent: it
//! searches twice, then answers; its second step mixes a search with an
//! answer, and the feedback that names the enum gets one way back.
//! The search tool is a small table in this file, so the example runs
//! offline.

use std::error::Error;
use std::process::ExitCode;

use twr_runtime::{ChatModel, Message, OpenAiCompatible, ScriptedModel, Sections, Think};

/// The final answer, with how sure the agent is.
#[derive(Debug, Sections)]
struct FinalAnswer {
    /// The answer to the question, in one or two sentences.
    #[section(example = "Paris is the capital of France.")]
    answer: String,
    /// How sure you are, from 1 (a guess) to 5 (certain).
    confidence: u8,
}

/// What the agent does next.
#[derive(Debug, Sections)]
enum Action {
    /// Search the web when you need a fact you do not have.
    Search {
        /// The words to search for.
        #[section(example = "height of the Eiffel Tower")]
        query: String,
    },
    /// Answer when the search results are enough.
    Answer(FinalAnswer),
}

/// One step of the agent: a thought, then one action.
#[derive(Debug, Sections)]
struct Step {
    /// What you know so far and what you still need.
    thought: String,
    #[section(flatten)]
    next: Action,
}

const QUESTION: &str = "Which is taller, the Eiffel Tower or the Tokyo Tower, and by how much?";

/// The search tool: a few pages, found by a word of the query.
fn search(query: &str) -> &'static str {
    let query = query.to_lowercase();
    if query.contains("eiffel") {
        "The Eiffel Tower is 330 metres tall, antennas included (2022)."
    } else if query.contains("tokyo") {
        "Tokyo Tower is 333 metres tall."
    } else {
        "No results."
    }
}

/// The recorded agent replayed offline: a search, a reply that mixes a
/// search with an answer (sent back), the second search, the answer.
const OFFLINE_REPLIES: [&str; 4] = [
    "[Thought]\nI need both heights. First the Eiffel Tower.\n[Query]\nEiffel Tower height",
    "[Thought]\nNow Tokyo Tower; I think it is 333 m.\n[Query]\nTokyo Tower height\n\
     [Answer]\nTokyo Tower is taller by 3 metres.\n[Confidence]\n3",
    "[Thought]\nI should check before answering.\n[Query]\nTokyo Tower height",
    "[Thought]\nEiffel 330 m, Tokyo 333 m.\n[Answer]\nTokyo Tower is taller, by 3 metres \
     (333 m against 330 m).\n[Confidence]\n5",
];

fn model() -> Result<Box<dyn ChatModel>, Box<dyn Error>> {
    if std::env::var_os("TWR_BASE_URL").is_some() {
        let client = OpenAiCompatible::from_env()?.temperature(0.2);
        println!("Online: {} at {}.", client.model(), client.base_url());
        Ok(Box::new(client))
    } else {
        println!(
            "Offline demo: TWR_BASE_URL is not set, so a built-in ScriptedModel replays a \
             recorded agent."
        );
        Ok(Box::new(ScriptedModel::new(OFFLINE_REPLIES)))
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
    let think = Think::new(model()?)
        .system("You answer questions step by step, searching when you need a fact.")
        .max_attempts(3);
    // The agent's memory: each step's prompt and final reply, without the
    // retries that got it there.
    let mut history: Vec<Message> = Vec::new();
    let mut prompt = format!("Question: {QUESTION}");
    println!("Question: {QUESTION}");
    for number in 1..=6 {
        let outcome = think
            .clone()
            .history(&history)
            .run::<Step>(prompt.as_str())
            .await?;
        let calls = outcome.attempts.len();
        let plural = if calls == 1 { "" } else { "s" };
        println!("\nStep {number} ({calls} model call{plural})");
        for attempt in &outcome.attempts {
            if let Some(feedback) = &attempt.sent_back {
                let first = feedback.lines().next().unwrap_or_default();
                println!("  sent back: {first}");
            }
        }
        let step = &outcome.value;
        println!("  thought: {}", step.thought);
        history.extend(outcome.final_exchange());
        match &step.next {
            Action::Search { query } => {
                let found = search(query);
                println!("  search:  {query}\n  found:   {found}");
                prompt = format!("Search results for \"{query}\": {found}");
            }
            Action::Answer(answer) => {
                println!(
                    "  answer:  {} (confidence {}/5)",
                    answer.answer, answer.confidence
                );
                return Ok(());
            }
        }
    }
    Err("the agent did not answer in 6 steps".into())
}
