//! The yield benchmark: how often does the loop end with a typed value?
//!
//! ```text
//! cargo run -p twr-tests --release --example yield -- --temperature 0.7 --attempts 3
//! ```
//!
//! It runs 35 prompts of its own (25 to tune on, 10 held out) over five
//! derived structs (lists, whole and fractional numbers, choices, yes/no,
//! optional sections, bounded numbers) against the OpenAI-compatible server at
//! `TWR_BASE_URL` (`TWR_MODEL` names the model, default
//! `smollm2-135m-instruct`; `TWR_API_KEY` is sent when set), once per
//! strategy, and prints for each strategy: the runs typed on the first
//! try, the runs typed within the attempts allowed, the tokens spent per
//! typed value (every token of every run, failed runs included, divided by
//! the typed values), the share of sections valid in the first replies,
//! the typed values that copied a placeholder of the guide, those that
//! repeat a line of a demonstration they were shown word for word, and how
//! the other runs failed. The `constrained` strategy tells the client its
//! server's dialect (`OpenAiCompatible::grammar(Dialect::LlamaCpp)`, for
//! llama.cpp's server), so the loop constrains the last attempt of a run;
//! the details give the time and tokens of a free reply and of a
//! constrained one, measured in the same run. `TWR_BASE_URL` may list several servers of the same
//! model, comma-separated: they share the runs, one at a time each.
//!
//! The `learned` strategy learns from the model's own typed replies
//! (`Think::learn_from`): before it, the tuning prompts run once each with
//! the defaults and the client told its dialect (so a run the free
//! attempts could not type is typed under the grammar), recorded in a job
//! of a journal (`--journal FILE`, else a temporary file); then each of its
//! prompts is shown the `--learned K` tuning prompts most like it, with the
//! answers that were typed, as earlier turns. Its own runs are free: the
//! client is not told a dialect, so it pairs with `baseline` and `demo`.
//! The held-out prompts never reach the job it learns from. Every strategy's
//! runs are recorded in the journal too (a job per model and strategy), so
//! a run repeated with the same file and seeds replays them without asking
//! the model. With a journal, the report ends with which wording of the
//! feedback was followed by a fixed section (`Job::feedback_rates`, over the
//! strategies run); `with-example` and `focused` word the first feedback of
//! every run so (`Think::feedback_wording`).
//!
//! Each run gets its own sampling seed (`--seed` plus the run's index),
//! the same for every strategy, so strategies that send the same first
//! request see the same first reply and differences are paired.
//!
//! Without `TWR_BASE_URL` it runs offline: real SmolLM2-135M replies,
//! recorded from the model and copied into this file, are replayed through the
//! loop (the same replies whatever a strategy asks, so only the way
//! replies are read differs), which shows the report and checks the
//! benchmark itself in well under a second. Options (`--help`):
//!
//! ```text
//! --temperature T   sampling temperature (default 0.7)
//! --attempts N      format attempts per run (default 3)
//! --max-tokens N    max_tokens of each request (default 512)
//! --seed N          first sampling seed (default 1000)
//! --repeat N        run every prompt N times, with other seeds (default 1)
//! --set S           tune | heldout | all (default all)
//! --limit N         only the first N prompts of the set
//! --strategies A,B  strategies to run, by name (default all)
//! --dump DIR        write every run's ledger to DIR/<strategy>.md
//! --journal FILE    record every run in this journal file (SQLite; made if absent)
//! --truth           typed and right: the held-out texts with known answers (yield_truth.rs)
//! --truth-strategies A,B  with --truth, only these of defaults, constrained, learned
//! --learned K       demonstrations a `learned` run is shown (default 2)
//! --tune-limit N    only the first N tuning prompts fill the job `learned` learns from
//! --tune-rounds N   tuning rounds (default 1): rounds after the first run the tuning
//!                   prompts again with other seeds, shown what the earlier rounds typed
//!                   for the other tuning prompts (the default number of demonstrations),
//!                   each in a job of its own that `learned` learns from too
//! ```
//!
//! It is an example of the `twr-tests` package, which builds twr-runtime
//! with its journal: `cargo run -p twr-tests --release --example yield`.

#[path = "yield_truth.rs"]
mod truth;

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::error::Error;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use twr_runtime::grammar::{Dialect, Format};
use twr_runtime::journal::{Job, Journal};
use twr_runtime::model::{BoxFuture, Request, Response};
use twr_runtime::parse::split_sections;
use twr_runtime::{
    feedback::{ProblemKind, Wording},
    sections::ValueKind,
    Attempt, AttemptKind, ChatModel, Choice, FinishReason, Learned, Message, ModelError,
    OpenAiCompatible, Outcome, Reply, Role, ScriptedModel, SectionSpec, Sections, Think,
    ThinkError, ThinkErrorKind, Usage,
};

// ---------------------------------------------------------------------------
// The structs asked for. Only `Trip` gives examples; the others show what
// the guide does with none.

/// A short trip plan.
#[derive(Debug, Sections)]
#[allow(dead_code)] // read through Debug, in the dump
struct Trip {
    /// What to see and do, one item per line.
    #[section(example = "1. Fushimi Inari at dawn\n2. Kiyomizu-dera and Gion at dusk")]
    plan: Vec<String>,
    /// How many days the trip takes.
    #[section(example = "3")]
    days: u32,
    /// The total budget per person, in US dollars.
    #[section(example = "$600")]
    budget: u32,
}

/// How hard a recipe is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Choice)]
enum Difficulty {
    Easy,
    Medium,
    Hard,
}

/// A recipe.
#[derive(Debug, Sections)]
#[allow(dead_code)] // read through Debug, in the dump
struct Recipe {
    /// The ingredients with their amounts.
    ingredients: Vec<String>,
    /// How many people it serves.
    servings: u32,
    /// How hard it is to make.
    difficulty: Difficulty,
    /// A tip for the cook.
    tip: Option<String>,
}

/// The overall tone of a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Choice)]
enum Sentiment {
    Positive,
    Negative,
    Mixed,
}

/// A classified review.
#[derive(Debug, Sections)]
#[allow(dead_code)] // read through Debug, in the dump
struct Review {
    /// The overall tone of the review.
    sentiment: Sentiment,
    /// The rating the review deserves, from 1 to 5 stars.
    #[section(min = 1, max = 5)]
    stars: u8,
    /// The review summed up in one sentence.
    summary: String,
}

/// A person's contact details taken from a text.
#[derive(Debug, Sections)]
#[allow(dead_code)] // read through Debug, in the dump
struct Contact {
    /// The person's full name.
    name: String,
    /// Their email address, if the text gives one.
    email: Option<String>,
    /// Their age in years, if the text gives it.
    age: Option<u32>,
    /// The city they live or work in, if the text says.
    city: Option<String>,
}

/// A recommendation with its reasons.
#[derive(Debug, Sections)]
#[allow(dead_code)] // read through Debug, in the dump
struct Decision {
    /// Whether you recommend it.
    recommend: bool,
    /// The main reasons for your answer.
    reasons: Vec<String>,
    /// How sure you are, from 0 (a guess) to 1 (certain).
    #[section(min = 0, max = 1)]
    confidence: f64,
}

// ---------------------------------------------------------------------------
// The prompts.

/// Which struct a prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Task {
    Trip,
    Recipe,
    Review,
    Contact,
    Decision,
}

/// One prompt of the benchmark.
struct Prompt {
    task: Task,
    text: &'static str,
    /// Held out: never looked at while tuning the loop's wording.
    heldout: bool,
}

const fn tune(task: Task, text: &'static str) -> Prompt {
    Prompt {
        task,
        text,
        heldout: false,
    }
}

const fn held(task: Task, text: &'static str) -> Prompt {
    Prompt {
        task,
        text,
        heldout: true,
    }
}

const PROMPTS: &[Prompt] = &[
    tune(Task::Trip, "Plan a 3-day trip to Kyoto."),
    tune(Task::Recipe, "Give me a recipe for a simple tomato pasta."),
    tune(
        Task::Review,
        "Classify this product review: 'The headphones sound great, but the battery died after two weeks.'",
    ),
    tune(
        Task::Contact,
        "Extract the contact details: 'Hi, I'm Maria Lopez, 34, you can write to maria.lopez@example.com.'",
    ),
    tune(
        Task::Decision,
        "Should a small bakery switch to a four-day work week?",
    ),
    tune(
        Task::Trip,
        "Plan a weekend in Lisbon for two friends on a tight budget.",
    ),
    tune(Task::Recipe, "How do I make pancakes for four people?"),
    tune(
        Task::Review,
        "Review: 'Best pizza in town. Friendly staff, fast service. Will come back!' Classify it.",
    ),
    tune(
        Task::Contact,
        "Extract the contact details from this note: 'Call back John Smith from Leeds about the invoice.'",
    ),
    tune(
        Task::Decision,
        "Should I learn Rust or Go as my first systems language? Would you recommend Rust?",
    ),
    tune(
        Task::Trip,
        "Plan a 5-day family holiday in the Scottish Highlands.",
    ),
    tune(
        Task::Recipe,
        "Suggest a vegetarian curry I can cook on a weeknight.",
    ),
    tune(
        Task::Review,
        "Analyse this hotel review: 'The room was dirty and the staff ignored our complaints.'",
    ),
    tune(
        Task::Contact,
        "Who wrote this, and how can we reach them? 'Regards, Dr. Aiko Tanaka (aiko@tanaka-lab.jp), Osaka'",
    ),
    tune(
        Task::Decision,
        "Is it worth buying an electric car for a 10 km daily commute?",
    ),
    tune(Task::Trip, "Plan a one-week rail trip through northern Italy."),
    tune(Task::Recipe, "Write a recipe for chocolate chip cookies."),
    tune(
        Task::Review,
        "Analyse this app review: 'It does what it says. Nothing special, a bit slow to start.'",
    ),
    tune(
        Task::Contact,
        "Extract the person's details: 'My grandson Tom Baker turned 12 last week and lives in Boston.'",
    ),
    tune(
        Task::Decision,
        "Should a student take a gap year before university?",
    ),
    tune(Task::Trip, "Plan a 2-day city break in Prague in winter."),
    tune(Task::Recipe, "How do I make a Greek salad?"),
    tune(
        Task::Review,
        "Classify this book review: 'A gripping plot, though the ending felt rushed.'",
    ),
    tune(
        Task::Contact,
        "Extract the contact details: 'Please send the contract to Peter Novak, peter.novak@example.org.'",
    ),
    tune(
        Task::Decision,
        "Should our team require a code review for every change?",
    ),
    held(Task::Trip, "Plan a 4-day hiking trip in the Swiss Alps."),
    held(Task::Recipe, "Give me a recipe for French onion soup."),
    held(
        Task::Review,
        "Classify this review: 'Arrived broken, and the refund took a month.'",
    ),
    held(
        Task::Contact,
        "Extract the contact: 'Signed, Lena Berg, 41, Stockholm.'",
    ),
    held(
        Task::Decision,
        "Should I rent or buy a flat in a city I may leave in two years? Would you recommend buying?",
    ),
    held(Task::Trip, "Plan a 3-day food tour of Mexico City."),
    held(Task::Recipe, "How do I bake banana bread?"),
    held(
        Task::Review,
        "Classify this cafe review: 'Lovely little place, the cake was divine.'",
    ),
    held(
        Task::Contact,
        "Extract the contact details: 'Contact our agent Sam Lee at sam@lee.example, based in Toronto.'",
    ),
    held(
        Task::Decision,
        "Should a startup open-source its main product?",
    ),
];

// ---------------------------------------------------------------------------
// The strategies compared.

/// The model every run talks to.
type Model = dyn ChatModel;

/// One way of configuring the loop.
#[derive(Debug)]
struct Strategy {
    name: &'static str,
    about: &'static str,
    configure: for<'a> fn(Think<'a, &'a Model>, Task) -> Think<'a, &'a Model>,
    /// Whether the client is told its server's dialect (llama.cpp's GBNF):
    /// the loop then constrains the last attempt of a run.
    grammar: bool,
    /// Whether runs are shown demonstrations learned from the tuning job
    /// (`Think::learn_from`).
    learn: bool,
}

const STRATEGIES: &[Strategy] = &[
    Strategy {
        name: "baseline",
        about: "the defaults: Think::new(&model).run::<T>(prompt)",
        configure: |think, _| think,
        grammar: false,
        learn: false,
    },
    Strategy {
        name: "demo",
        about: "Think::demonstration with a hand-written question and answer in the format",
        configure: |think, task| {
            let (question, answer) = demonstration(task);
            think.demonstration(question, answer)
        },
        grammar: false,
        learn: false,
    },
    Strategy {
        name: "auto-demo",
        about: "Think::auto_demonstration(true): a demonstration built from the struct's examples",
        configure: |think, _| think.auto_demonstration(true),
        grammar: false,
        learn: false,
    },
    Strategy {
        name: "no-focused",
        about: "the defaults without focused questions: Think::focused_questions(false)",
        configure: |think, _| think.focused_questions(false),
        grammar: false,
        learn: false,
    },
    Strategy {
        name: "demo-history",
        about: "a hand-written demonstration as history: one question and its answer in the format",
        configure: |think, task| {
            let (question, answer) = demonstration(task);
            think.history(&[Message::user(question), Message::assistant(answer)])
        },
        grammar: false,
        learn: false,
    },
    Strategy {
        name: "constrained",
        about: "the defaults, the client told its server's dialect: \
                OpenAiCompatible::grammar(Dialect::LlamaCpp) (the last attempt constrained)",
        configure: |think, _| think,
        grammar: true,
        learn: false,
    },
    Strategy {
        name: "with-example",
        about: "Think::feedback_wording(Wording::WithExample): the first feedback shows the \
                complete example answer",
        configure: |think, _| think.feedback_wording(Wording::WithExample),
        grammar: false,
        learn: false,
    },
    Strategy {
        name: "focused",
        about: "Think::feedback_wording(Wording::Focused): a focused question about one section \
                from the first feedback on",
        configure: |think, _| think.feedback_wording(Wording::Focused),
        grammar: false,
        learn: false,
    },
    Strategy {
        name: "demos",
        about: "Think::demonstration three times: demo's hand-written question and answer last, \
                after two more of the same task (what the best learned store could show)",
        configure: |mut think, task| {
            for (question, answer) in extra_demonstrations(task) {
                think = think.demonstration(*question, *answer);
            }
            let (question, answer) = demonstration(task);
            think.demonstration(question, answer)
        },
        grammar: false,
        learn: false,
    },
    Strategy {
        name: "learned",
        about:
            "Think::learn_from(&job): the --learned K tuning prompts most like the prompt, with \
                the answers typed for them (by the defaults, the last attempt constrained), \
                as earlier turns; the run itself free",
        configure: |think, _| think,
        grammar: false,
        learn: true,
    },
];

/// The runs that fill the job `learned` learns from: the tuning prompts,
/// with the defaults and the client told its server's dialect.
static TUNE: Strategy = Strategy {
    name: "tune",
    about: "the tuning prompts that fill the job `learned` learns from: the defaults, \
            the client told its server's dialect (the last attempt constrained)",
    configure: |think, _| think,
    grammar: true,
    learn: false,
};

/// The tuning rounds after the first (`--tune-rounds N`): the tuning
/// prompts again, with other seeds, each shown what the earlier rounds
/// typed for the other tuning prompts, the last attempt constrained.
static TUNE_AGAIN: Strategy = Strategy {
    name: "tune-again",
    about: "the tuning prompts again, with other seeds, learning from the earlier rounds \
            (Think::learn_from), the client told its server's dialect",
    configure: |think, _| think,
    grammar: true,
    learn: true,
};

/// Two more hand-written questions like the task's, with their answers,
/// shown before `demonstration`'s by the `demos` strategy: a store of three
/// clean, sensible answers, the best a `learned` run could be shown.
fn extra_demonstrations(task: Task) -> &'static [(&'static str, &'static str)] {
    match task {
        Task::Trip => &[
            ("Plan a 2-day trip to Paris.", "[Plan]\n1. The Louvre and the Tuileries\n2. Montmartre and Sacre-Coeur\n[Days]\n2\n[Budget]\n$400"),
            ("Plan a week of beaches in Crete.", "[Plan]\n1. Elafonissi beach\n2. Chania old town\n3. Balos lagoon by boat\n[Days]\n7\n[Budget]\n$900"),
        ],
        Task::Recipe => &[
            ("How do I make guacamole?", "[Ingredients]\n- 2 ripe avocados\n- 1 lime\n- 1 small onion\n- salt\n[Servings]\n2\n[Difficulty]\nEasy\n[Tip]\nMash with a fork, not a blender."),
            ("Give me a recipe for beef stew.", "[Ingredients]\n- 800 g beef\n- 3 carrots\n- 2 onions\n- 500 ml stock\n[Servings]\n4\n[Difficulty]\nMedium\n[Tip]\nBrown the meat in small batches."),
        ],
        Task::Review => &[
            ("Classify this review: 'Terrible service, cold food, never again.'", "[Sentiment]\nNegative\n[Stars]\n1\n[Summary]\nBad service and cold food."),
            ("Classify this review: 'Fast delivery and the shoes fit perfectly.'", "[Sentiment]\nPositive\n[Stars]\n5\n[Summary]\nQuick delivery and a perfect fit."),
        ],
        Task::Contact => &[
            ("Extract the contact details: 'Best, Omar Haddad, 29, Cairo.'", "[Name]\nOmar Haddad\n[Email]\nN/A\n[Age]\n29\n[City]\nCairo"),
            ("Extract the contact: 'Write to Julia Kim at julia@kim.example.'", "[Name]\nJulia Kim\n[Email]\njulia@kim.example\n[Age]\nN/A\n[City]\nN/A"),
        ],
        Task::Decision => &[
            ("Should a library open on Sundays?", "[Recommend]\nyes\n[Reasons]\n- Many people are free on Sundays\n- Students need a quiet place\n[Confidence]\n0.7"),
            ("Should I buy a car I cannot afford?", "[Recommend]\nno\n[Reasons]\n- The debt would last for years\n- A cheaper car does the same job\n[Confidence]\n0.9"),
        ],
    }
}

/// A question like the task's and its answer in the format, as a user of
/// `Think::demonstration` would write it.
fn demonstration(task: Task) -> (&'static str, &'static str) {
    match task {
        Task::Trip => (
            "Plan a 1-day trip to Osaka.",
            "[Plan]\n1. Osaka Castle in the morning\n2. Street food in Dotonbori at night\n[Days]\n1\n[Budget]\n$150",
        ),
        Task::Recipe => (
            "How do I make a cheese omelette?",
            "[Ingredients]\n- 3 eggs\n- 40 g grated cheese\n- 1 knob of butter\n[Servings]\n1\n[Difficulty]\nEasy\n[Tip]\nTake it off the heat while the top is still soft.",
        ),
        Task::Review => (
            "Classify this review: 'Great screen, but the speakers crackle at high volume.'",
            "[Sentiment]\nMixed\n[Stars]\n3\n[Summary]\nA good screen let down by poor speakers.",
        ),
        Task::Contact => (
            "Extract the contact details: 'This is Anna Weber from Berlin, anna@weber.example.'",
            "[Name]\nAnna Weber\n[Email]\nanna@weber.example\n[Age]\nN/A\n[City]\nBerlin",
        ),
        Task::Decision => (
            "Should a cafe offer oat milk?",
            "[Recommend]\nyes\n[Reasons]\n- Many customers ask for it\n- It keeps well and costs little more\n[Confidence]\n0.8",
        ),
    }
}

// ---------------------------------------------------------------------------
// Options.

/// The command line.
struct Options {
    temperature: f32,
    attempts: usize,
    max_tokens: u32,
    seed: u64,
    repeat: usize,
    set: Set,
    limit: Option<usize>,
    strategies: Vec<&'static Strategy>,
    dump: Option<std::path::PathBuf>,
    journal: Option<std::path::PathBuf>,
    learned: usize,
    tune_limit: Option<usize>,
    tune_rounds: usize,
    truth: bool,
    /// With `--truth`, the strategies run, by name (default all three).
    truth_strategies: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Set {
    Tune,
    Heldout,
    All,
}

const USAGE: &str = "usage: cargo run -p twr-tests --release --example yield -- [--temperature T] [--attempts N] \
[--max-tokens N] [--seed N] [--repeat N] [--set tune|heldout|all] [--limit N] [--strategies A,B] [--dump DIR] \
[--journal FILE] [--learned K] [--tune-limit N] [--tune-rounds N] [--truth] \
[--truth-strategies defaults,constrained,learned]";

fn options() -> Result<Options, String> {
    let mut options = Options {
        temperature: 0.7,
        attempts: 3,
        max_tokens: 512,
        seed: 1000,
        repeat: 1,
        set: Set::All,
        limit: None,
        strategies: STRATEGIES.iter().collect(),
        dump: None,
        journal: None,
        learned: 2,
        tune_limit: None,
        tune_rounds: 1,
        truth: false,
        truth_strategies: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Err(String::new());
        }
        if flag == "--truth" {
            options.truth = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = |what: &str| format!("{flag} needs {what}, not '{value}'");
        match flag.as_str() {
            "--temperature" => options.temperature = value.parse().map_err(|_| bad("a number"))?,
            "--attempts" => {
                options.attempts = value
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| bad("a whole number from 1"))?
            }
            "--max-tokens" => options.max_tokens = value.parse().map_err(|_| bad("a number"))?,
            "--seed" => options.seed = value.parse().map_err(|_| bad("a whole number"))?,
            "--repeat" => {
                options.repeat = value
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| bad("a whole number from 1"))?
            }
            "--limit" => options.limit = Some(value.parse().map_err(|_| bad("a whole number"))?),
            "--set" => {
                options.set = match value.as_str() {
                    "tune" => Set::Tune,
                    "heldout" => Set::Heldout,
                    "all" => Set::All,
                    _ => return Err(bad("tune, heldout or all")),
                }
            }
            "--strategies" => {
                options.strategies = value
                    .split(',')
                    .map(|name| {
                        STRATEGIES
                            .iter()
                            .find(|s| s.name == name.trim())
                            .ok_or_else(|| {
                                let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name).collect();
                                format!("no strategy named '{name}'; known: {}", known.join(", "))
                            })
                    })
                    .collect::<Result<_, _>>()?
            }
            "--truth-strategies" => {
                options.truth_strategies = Some(
                    value
                        .split(',')
                        .map(|name| name.trim().to_string())
                        .collect(),
                )
            }
            "--dump" => options.dump = Some(value.into()),
            "--journal" => options.journal = Some(value.into()),
            "--learned" => options.learned = value.parse().map_err(|_| bad("a whole number"))?,
            "--tune-rounds" => {
                options.tune_rounds = value.parse().map_err(|_| bad("a whole number"))?
            }
            "--tune-limit" => {
                options.tune_limit = Some(value.parse().map_err(|_| bad("a whole number"))?)
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

// ---------------------------------------------------------------------------
// One run and its result.

/// What became of one run.
struct Run {
    prompt: &'static Prompt,
    /// The attempt that gave the typed value, if any.
    typed_at: Option<usize>,
    usage: Usage,
    /// How the run failed, when it did.
    failure: Option<&'static str>,
    attempts: Vec<Attempt>,
    /// The typed value, for the dump.
    value: Option<String>,
    elapsed: Duration,
    /// How many sections the struct has.
    sections: usize,
    /// The typed value has a section copied from the guide: its example
    /// text or a placeholder (`...`, `<...>`).
    copied: bool,
    /// The typed value repeats a line of a demonstration it was shown, word
    /// for word: the model copied an earlier answer instead of answering.
    echoed: bool,
    /// The learned demonstrations it was shown: their prompts and how alike
    /// each was to its own.
    learned: Vec<(String, f64)>,
}

async fn run_typed<T: Sections + std::fmt::Debug>(
    think: &Think<'_, &Model>,
    prompt: &'static Prompt,
) -> Run {
    let start = Instant::now();
    let result: Result<Outcome<T>, ThinkError> = think.run::<T>(prompt.text).await;
    let elapsed = start.elapsed();
    let sections = T::specs().len();
    match result {
        Ok(outcome) => Run {
            learned: learned_of(&outcome.learned),
            prompt,
            typed_at: Some(outcome.attempts.len()),
            usage: outcome.usage,
            failure: None,
            value: Some(format!("{:#?}", outcome.value)),
            copied: copies_the_guide(outcome.final_reply(), T::specs()),
            echoed: echoes_a_demonstration(&outcome, T::specs()),
            attempts: outcome.attempts,
            elapsed,
            sections,
        },
        Err(error) => Run {
            learned: learned_of(error.learned()),
            prompt,
            typed_at: None,
            usage: error.usage(),
            failure: Some(failure_kind(&error)),
            attempts: error.attempts().to_vec(),
            value: None,
            elapsed,
            sections,
            copied: false,
            echoed: false,
        },
    }
}

fn learned_of(learned: &[Learned]) -> Vec<(String, f64)> {
    learned
        .iter()
        .map(|l| (l.prompt.clone(), l.similarity))
        .collect()
}

/// True when a section of `answer` is a copy of the guide rather than an
/// answer: a placeholder (`...`, `- ...`, `<...>`, `A | B | C`) or, for a
/// text or list section, its example word for word.
fn copies_the_guide(answer: &str, specs: &[SectionSpec]) -> bool {
    let map = split_sections(answer, specs);
    specs.iter().any(|spec| {
        let Some(content) = map.get(spec.header) else {
            return false;
        };
        let content = content.trim();
        let placeholder = content
            .lines()
            .all(|line| matches!(line.trim(), "..." | "- ..." | "…" | "- …"))
            || (content.starts_with('<') && content.ends_with('>'))
            || (matches!(spec.kind, ValueKind::Choice(_)) && content.contains(" | "));
        let example = matches!(spec.kind, ValueKind::Text | ValueKind::List(_))
            && !spec.example.trim().is_empty()
            && content == spec.example.trim();
        placeholder || example
    })
}

/// How long a line must be to count as copied from a demonstration: a
/// short one (`3`, `Easy`, `- salt`) may well be the answer again.
const ECHO_CHARS: usize = 16;

/// True when a text or list section of the typed answer holds a line of at
/// least [`ECHO_CHARS`] characters that a demonstration's answer holds too
/// (compared trimmed, without a list marker, ignoring case). The
/// demonstrations are the assistant turns of the transcript before the
/// prompt (sent with the format guide or the reminder after it).
fn echoes_a_demonstration<T>(outcome: &Outcome<T>, specs: &[SectionSpec]) -> bool {
    let [prompt, _] = outcome.final_exchange();
    let Some(at) = outcome
        .transcript
        .iter()
        .position(|m| m.role == Role::User && m.content.starts_with(prompt.content.as_str()))
    else {
        return false;
    };
    // Without its marker: `-`, `*`, `+`, `•`, or a number and `.` or `)`.
    let normal = |line: &str| {
        let line = line.trim();
        let numbered = line
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .strip_prefix(['.', ')'])
            .filter(|_| line.starts_with(|c: char| c.is_ascii_digit()));
        numbered
            .unwrap_or_else(|| line.trim_start_matches(['-', '*', '+', '•']))
            .trim()
            .to_lowercase()
    };
    let shown: HashSet<String> = outcome.transcript[..at]
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.content.lines().map(normal).collect::<Vec<_>>())
        .filter(|line| line.chars().count() >= ECHO_CHARS)
        .collect();
    let map = split_sections(outcome.final_reply(), specs);
    specs
        .iter()
        .filter(|spec| matches!(spec.kind, ValueKind::Text | ValueKind::List(_)))
        .filter_map(|spec| map.get(spec.header))
        .flat_map(str::lines)
        .any(|line| shown.contains(&normal(line)))
}

async fn run_prompt(think: &Think<'_, &Model>, prompt: &'static Prompt) -> Run {
    match prompt.task {
        Task::Trip => run_typed::<Trip>(think, prompt).await,
        Task::Recipe => run_typed::<Recipe>(think, prompt).await,
        Task::Review => run_typed::<Review>(think, prompt).await,
        Task::Contact => run_typed::<Contact>(think, prompt).await,
        Task::Decision => run_typed::<Decision>(think, prompt).await,
    }
}

/// A failed run in a word or two: how the loop ended, and for a run that
/// used its attempts, what was still wrong with the last reply.
fn failure_kind(error: &ThinkError) -> &'static str {
    match error.kind() {
        ThinkErrorKind::Exhausted => match error.attempts().last() {
            Some(last) if last.kind == AttemptKind::Truncated => "cut off",
            Some(last) => match last.feedback.as_ref().and_then(|p| p.problems().first()) {
                Some(problem) => match problem.kind {
                    ProblemKind::Missing
                    | ProblemKind::NoneOf { .. }
                    | ProblemKind::NearMiss { .. }
                    | ProblemKind::UnreadHeader { .. }
                    | ProblemKind::NotOnOwnLine { .. } => "missing section",
                    ProblemKind::Empty => "empty section",
                    ProblemKind::Invalid { .. } => "invalid value",
                    _ => "bad value",
                },
                None => "exhausted",
            },
            None => "exhausted",
        },
        ThinkErrorKind::RepeatedReply => "repeated reply",
        ThinkErrorKind::Budget { .. } => "budget",
        ThinkErrorKind::Model { .. } => "model error",
        _ => "other",
    }
}

// ---------------------------------------------------------------------------
// The model: a real server, or recorded replies offline.

/// Where replies come from.
#[derive(Clone)]
enum Source {
    /// Boxed: a client is far larger than the offline variant.
    Server(Box<OpenAiCompatible>),
    /// Recorded replies, one script per run.
    Offline,
}

impl Source {
    fn model_for(&self, run: usize, seed: u64, grammar: bool) -> Box<Model> {
        match self {
            Source::Server(client) => {
                let mut client = (**client).clone();
                if grammar {
                    client = client.grammar(Dialect::LlamaCpp);
                }
                Box::new(SeedPerCall {
                    client,
                    seed,
                    calls: AtomicU64::new(0),
                })
            }
            Source::Offline => {
                let script = &OFFLINE[run % OFFLINE.len()];
                Box::new(ScriptedModel::from_replies(script.iter().map(
                    |(text, truncated, prompt, completion)| {
                        Reply::text(*text)
                            .with_usage(Usage::new(*prompt, *completion))
                            .with_finish_reason(if *truncated {
                                FinishReason::Length
                            } else {
                                FinishReason::Stop
                            })
                    },
                )))
            }
        }
    }
}

/// The server's client with a seed of its own for every call: the first
/// call of a run gets the run's seed (the same for every strategy, so first
/// replies pair up), later calls get other seeds, as a client that sends
/// no seed would (one seed for every call of a run makes a repeated reply
/// likelier than it is for users).
struct SeedPerCall {
    client: OpenAiCompatible,
    seed: u64,
    calls: AtomicU64,
}

impl ChatModel for SeedPerCall {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        let client = self
            .client
            .clone()
            .seed(self.seed.wrapping_add(call.wrapping_mul(1_000_003)));
        // The client is this call's own: the reply is read whole here. The
        // request goes on as it came, its grammar with it.
        Box::pin(async move {
            let reply = client.call(request).await?.into_reply().await?;
            Ok(Response::from_reply(reply))
        })
    }

    fn name(&self) -> &str {
        self.client.model()
    }

    /// The client's options, which the journal keys its records by: a run
    /// at another temperature or token limit is asked, not replayed. The
    /// seed is the run's (each call's own follows from it), and the server's
    /// address is left out: the servers are replicas of one model, and a
    /// run goes to whichever is free.
    fn request_options(&self) -> Option<serde_json::Value> {
        let mut options = self.client.request_options()?;
        if let Some(fields) = options.as_object_mut() {
            fields.remove("base_url");
            fields.insert("seed".into(), self.seed.into());
        }
        Some(options)
    }

    fn takes_grammar(&self) -> Option<Format> {
        self.client.takes_grammar()
    }
}

/// A struct with the sections of the recorded replies.
#[derive(Debug, Sections)]
#[allow(dead_code)] // read through Debug, in the dump
struct KyotoTrip {
    /// What to do.
    plan: String,
    /// When to do it.
    timeline: String,
    /// The total cost.
    budget: u32,
}

/// The prompt of the recorded replies.
const OFFLINE_PROMPT: Prompt = tune(Task::Trip, "Plan a 3-day trip to Kyoto.");

/// Real SmolLM2-135M-Instruct replies (six recorded samples, verbatim,
/// kept here so the example needs nothing outside the repository): each script is one run's
/// first reply and its reply to the feedback, as (text, cut off by the
/// token limit, prompt tokens, completion tokens).
type Script = &'static [(&'static str, bool, u64, u64)];

const OFFLINE: &[Script] = &[
    &[
        ("Visit temples\n[Timeline]\nDay 2: Kyoto\n...\n[Budget]\n$1500", false, 100, 26),
        ("Visit temples\n[Timeline]\nDay 3: Kyoto\n...\n[Budget]\n$2000", false, 156, 26),
    ],
    &[(
        "Visit temples\n\n[Plan]\nImmerse yourself in traditional Japanese culture\n[Timeline]\nDay 2: Kyoto\n\n\
At the Tsukiji Fish Market, try a delicious sushi roll\nDowel and a mokuba (a type of sashimi)\n\
Sakura no Kagiri [Joyous Shining Sky]\nReflect on Japanese culture at the Tsukiji Fish Market\n[Budget]\n$500",
        false,
        100,
        99,
    )],
    &[(
        "[Plan]\nDay 1: Kinkaku-ji Temple (Otemochi) and Nijo Castle\n\
Day 2: Shibuya Crossing, Ikebukudai, and Tokyo's Fashion Week (Kyoto Fashion Week)\n\
Day 3: Aruko-ji Temple and the Tokyo Tower\n[Timeline]\nMorning: Fushimi-inari Shrine\n\
Evening: Gion-no-miyakura and Ise Palace\n[Budget]\n$205",
        false,
        122,
        114,
    )],
    &[
        ("Visit temples\n2 days\n[Budget]\n$300", false, 100, 15),
        ("Visit temples\nDay 2: [Budget]\n$500", false, 149, 16),
    ],
    &[
        (
            "...\n[Timeline]\nVisit temples in Kyoto\nSakura Kiyomune\nMikoro, 5:30am-6.2pm, Sakura Kiyomune Tokyo\n\
This is the top of Kyoto's famous Tokyo Tower and it is located at the foot of Shibuya Crossing. \
It's a popular spot for tourists to spend their days visiting temples in this beautiful city.\n[Budget]\n$450\n\
Sakura Kiyomune 12:36am-9pm, Shibuya Crossing Tokyo\n\
This is the top of Kyoto's famous Tokyo Tower and it is located at the foot of Shibuya Crossing. \
It's a popular spot for tourists to visit temples in this beautiful city.\n\
Sakura Kiyomune 3:02am-7pm, Kabukido Kyoto\nThis is the top of Kyoto's famous Tokyo Tower and it is located",
            true,
            100,
            512,
        ),
        (
            "The [Budget] section has been added. Please make sure to include the [Plan] in your answer, \
which is exactly what you requested.",
            false,
            642,
            30,
        ),
    ],
    &[
        ("[Plan]\nMorning: Kiyomizu-dera\nEvening: Shirokura\n[Budget]\n$180", false, 122, 32),
        ("[Timeline]\nMorning: Nara\nEvening: Todosai-bozu\n[Budget]\n$210", false, 185, 31),
    ],
];

async fn run_offline(think: &Think<'_, &Model>) -> Run {
    run_typed::<KyotoTrip>(think, &OFFLINE_PROMPT).await
}

// ---------------------------------------------------------------------------
// The report.

/// The figures of one strategy.
struct Tally<'r> {
    runs: &'r [Run],
}

impl Tally<'_> {
    fn typed_within(&self, attempts: usize) -> usize {
        self.runs
            .iter()
            .filter(|r| r.typed_at.is_some_and(|n| n <= attempts))
            .count()
    }

    fn typed(&self) -> usize {
        self.runs.iter().filter(|r| r.typed_at.is_some()).count()
    }

    fn tokens(&self) -> u64 {
        self.runs.iter().map(|r| r.usage.total_tokens).sum()
    }

    /// The share of sections valid in the first replies: all of an accepted
    /// reply's; of a rejected one, those no problem names (none when a
    /// problem is about the whole reply); none of a cut-off one.
    fn first_sections(&self) -> String {
        let mut valid = 0;
        let mut all = 0;
        for run in self.runs {
            all += run.sections;
            let Some(first) = run.attempts.first() else {
                continue;
            };
            valid += match (&first.kind, &first.feedback) {
                (AttemptKind::Accepted, _) => run.sections,
                (_, Some(problems)) => {
                    let mut headers: Vec<&str> = problems
                        .problems()
                        .iter()
                        .map(|p| p.header.as_str())
                        .collect();
                    headers.sort_unstable();
                    headers.dedup();
                    if headers.contains(&"") {
                        0
                    } else {
                        run.sections.saturating_sub(headers.len())
                    }
                }
                _ => 0,
            };
        }
        percent(valid, all)
    }

    fn copied(&self) -> usize {
        self.runs.iter().filter(|r| r.copied).count()
    }

    /// The typed values repeating a demonstration's line, and how many of
    /// them were typed on the first try.
    fn echoed(&self) -> String {
        let echoed = self.runs.iter().filter(|r| r.echoed);
        let first = echoed.clone().filter(|r| r.typed_at == Some(1)).count();
        format!("{} ({first} on the first try)", echoed.count())
    }

    fn failures(&self) -> String {
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for failure in self.runs.iter().filter_map(|r| r.failure) {
            *kinds.entry(failure).or_default() += 1;
        }
        let mut kinds: Vec<(&str, usize)> = kinds.into_iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let parts: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// The replies written free and those written under a grammar: how
    /// many, and per reply the mean time and completion tokens:
    /// `free replies: 40, 21.3 s and 180 tokens each (8.4 tokens/s)`.
    fn reply_costs(&self) -> Vec<String> {
        [(false, "free"), (true, "constrained")]
            .into_iter()
            .filter_map(|(constrained, label)| {
                let replies: Vec<&Attempt> = self
                    .runs
                    .iter()
                    .flat_map(|r| &r.attempts)
                    .filter(|a| a.constrained == constrained)
                    .collect();
                if replies.is_empty() {
                    return None;
                }
                let n = replies.len() as f64;
                let seconds: f64 = replies.iter().map(|a| a.latency.as_secs_f64()).sum();
                let tokens: u64 = replies.iter().map(|a| a.usage.completion_tokens).sum();
                // Replayed replies take no time: no rate to speak of.
                let rate = if seconds / n >= 0.001 {
                    format!(" ({:.1} tokens/s)", tokens as f64 / seconds)
                } else {
                    String::new()
                };
                Some(format!(
                    "{label} replies: {}, {:.1} s and {:.0} tokens each{rate}",
                    replies.len(),
                    seconds / n,
                    tokens as f64 / n,
                ))
            })
            .collect()
    }

    /// What became of each attempt number: `1: 3 accepted, 20 rejected, 2 truncated`.
    fn attempt_kinds(&self) -> Vec<String> {
        let mut by_number: BTreeMap<usize, BTreeMap<String, usize>> = BTreeMap::new();
        for attempt in self.runs.iter().flat_map(|r| &r.attempts) {
            let kind = format!("{:?}", attempt.kind).to_lowercase();
            *by_number
                .entry(attempt.number)
                .or_default()
                .entry(kind)
                .or_default() += 1;
        }
        by_number
            .into_iter()
            .map(|(number, kinds)| {
                let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
                format!("attempt {number}: {}", kinds.join(", "))
            })
            .collect()
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!(
            "{part}/{whole} ({:.0}%)",
            100.0 * part as f64 / whole as f64
        )
    }
}

fn report(strategy: &Strategy, runs: &[Run], attempts: usize) {
    let tally = Tally { runs };
    let typed = tally.typed();
    let tokens_per_typed = if typed == 0 {
        "-".to_string()
    } else {
        format!("{:.0}", tally.tokens() as f64 / typed as f64)
    };
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} |",
        strategy.name,
        percent(tally.typed_within(1), runs.len()),
        percent(tally.typed_within(attempts.min(3)), runs.len()),
        tokens_per_typed,
        tally.first_sections(),
        tally.copied(),
        tally.echoed(),
        tally.failures()
    );
}

fn details(strategy: &Strategy, runs: &[Run]) {
    let tally = Tally { runs };
    println!("\n{} ({}):", strategy.name, strategy.about);
    for line in tally.attempt_kinds() {
        println!("  {line}");
    }
    for line in tally.reply_costs() {
        println!("  {line}");
    }
    let mut by_task: BTreeMap<(Task, bool), (usize, usize)> = BTreeMap::new();
    for run in runs {
        let entry = by_task
            .entry((run.prompt.task, run.prompt.heldout))
            .or_default();
        entry.1 += 1;
        if run.typed_at.is_some() {
            entry.0 += 1;
        }
    }
    let parts: Vec<String> = by_task
        .iter()
        .map(|((task, heldout), (typed, all))| {
            format!(
                "{task:?}{} {typed}/{all}",
                if *heldout { " (held out)" } else { "" }
            )
        })
        .collect();
    println!("  typed by struct: {}", parts.join(", "));
    let shown: Vec<f64> = runs
        .iter()
        .flat_map(|r| r.learned.iter().map(|(_, similarity)| *similarity))
        .collect();
    if !shown.is_empty() {
        println!(
            "  learned demonstrations: {} shown in {} runs, mean similarity {:.2}",
            shown.len(),
            runs.len(),
            shown.iter().sum::<f64>() / shown.len() as f64
        );
    }
    let seconds: f64 = runs.iter().map(|r| r.elapsed.as_secs_f64()).sum();
    println!(
        "  {} tokens in {} runs, {seconds:.0} s",
        tally.tokens(),
        runs.len()
    );
}

/// Every run's ledger as markdown, to read what the model did.
fn dump(strategy: &Strategy, runs: &[&Run]) -> String {
    let mut text = format!("# {}: {}\n", strategy.name, strategy.about);
    for (name, guide) in [
        ("Trip", Trip::format_guide()),
        ("Recipe", Recipe::format_guide()),
        ("Review", Review::format_guide()),
        ("Contact", Contact::format_guide()),
        ("Decision", Decision::format_guide()),
    ] {
        let _ = write!(text, "\n## the guide of {name}\n\n~~~~\n{guide}\n~~~~\n");
    }
    for (index, run) in runs.iter().enumerate() {
        let _ = write!(
            text,
            "\n## run {index}: {:?}: {}\n\n{}\n",
            run.prompt.task,
            run.prompt.text,
            match (run.typed_at, run.failure) {
                (Some(n), _) => format!("typed at attempt {n}"),
                (None, failure) => format!("failed: {}", failure.unwrap_or("?")),
            }
        );
        for (prompt, similarity) in &run.learned {
            let _ = writeln!(
                text,
                "\nshown, learned: {prompt} (similarity {similarity:.2})"
            );
        }
        for attempt in &run.attempts {
            let _ = write!(
                text,
                "\n### attempt {} ({:?}, {} completion tokens)\n\n~~~~\n{}\n~~~~\n",
                attempt.number, attempt.kind, attempt.usage.completion_tokens, attempt.raw
            );
            if let Some(sent) = &attempt.sent_back {
                let _ = write!(text, "\nsent back:\n\n~~~~\n{sent}\n~~~~\n");
            }
        }
        if let Some(value) = &run.value {
            let _ = write!(text, "\nvalue:\n\n~~~~\n{value}\n~~~~\n");
        }
    }
    text
}

// ---------------------------------------------------------------------------

#[tokio::main]
async fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("error: {message}");
            }
            eprintln!("{USAGE}");
            let names: Vec<&str> = STRATEGIES.iter().map(|s| s.name).collect();
            eprintln!("strategies: {}", names.join(", "));
            return if message.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
    };
    match run(options).await {
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

async fn run(options: Options) -> Result<(), Box<dyn Error>> {
    let sources = match std::env::var("TWR_BASE_URL") {
        Ok(base_urls) if !base_urls.trim().is_empty() => {
            let model = std::env::var("TWR_MODEL")
                .ok()
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| "smollm2-135m-instruct".to_string());
            let key = std::env::var("TWR_API_KEY")
                .ok()
                .or_else(|| std::env::var("OPENAI_API_KEY").ok());
            // Several servers of the same model, comma-separated, share the
            // runs: one run at a time on each.
            let clients: Vec<Source> = base_urls
                .split(',')
                .filter(|url| !url.trim().is_empty())
                .map(|url| {
                    let mut client = OpenAiCompatible::new(url.trim(), model.clone())
                        .temperature(options.temperature)
                        .max_tokens(options.max_tokens);
                    if let Some(key) = &key {
                        client = client.api_key(key.clone());
                    }
                    Source::Server(Box::new(client))
                })
                .collect();
            println!(
                "Asking {model} at {}: temperature {}, max_tokens {}, {} attempts, seeds from {}.",
                base_urls.trim(),
                options.temperature,
                options.max_tokens,
                options.attempts,
                options.seed
            );
            clients
        }
        _ => {
            println!(
                "Offline: TWR_BASE_URL is not set, so {} runs replay real SmolLM2-135M replies \
                 recorded in this example (the same replies whatever a strategy asks: only the \
                 reading differs; a replayed reply takes no grammar, so `constrained` reads as \
                 `baseline`). To measure a model, point it at a server, e.g.\n  \
                 bash scripts/local-llm.sh start\n  \
                 TWR_BASE_URL=http://127.0.0.1:8088/v1 cargo run -p twr-tests --release --example yield",
                OFFLINE.len()
            );
            vec![Source::Offline]
        }
    };

    if options.truth {
        let Source::Server(base) = &sources[0] else {
            return Err("--truth asks a model: set TWR_BASE_URL".into());
        };
        return run_truth(base, &options).await;
    }

    let prompts: Vec<&'static Prompt> = match sources[0] {
        Source::Offline => vec![&OFFLINE_PROMPT; OFFLINE.len()],
        Source::Server(_) => {
            let chosen = PROMPTS.iter().filter(|p| match options.set {
                Set::Tune => !p.heldout,
                Set::Heldout => p.heldout,
                Set::All => true,
            });
            chosen.take(options.limit.unwrap_or(usize::MAX)).collect()
        }
    };
    let jobs: Vec<(usize, &'static Prompt)> = (0..options.repeat)
        .flat_map(|repeat| {
            let prompts = &prompts;
            prompts
                .iter()
                .enumerate()
                .map(move |(index, prompt)| (repeat * prompts.len() + index, *prompt))
        })
        .collect();

    // The journal: every run is recorded in a job of its model and
    // strategy; `learned` learns from the job of the tuning runs.
    let learns = options.strategies.iter().any(|s| s.learn);
    let model_name = match &sources[0] {
        Source::Server(client) => client.model().to_string(),
        Source::Offline => "offline".to_string(),
    };
    let journal = match (&options.journal, learns) {
        (Some(path), _) => Some(Journal::open(path)?),
        (None, true) => {
            let path = std::env::temp_dir().join(format!("twr-yield-{}.twr", std::process::id()));
            println!("Recording the runs in {}.", path.display());
            Some(Journal::open(path)?)
        }
        (None, false) => None,
    };
    let job_of = |strategy: &Strategy| {
        journal
            .as_ref()
            .map(|journal| journal.job(format!("{model_name}/{}", strategy.name)))
    };

    let mut results: Vec<(&Strategy, Vec<Run>)> = Vec::new();
    let tuned = match (learns, &sources[0]) {
        (false, _) => None,
        (true, source) => {
            let tuning: Vec<(usize, &'static Prompt)> = match source {
                Source::Offline => vec![&OFFLINE_PROMPT; OFFLINE.len()],
                Source::Server(_) => PROMPTS
                    .iter()
                    .filter(|p| !p.heldout)
                    .take(options.tune_limit.unwrap_or(usize::MAX))
                    .collect(),
            }
            .into_iter()
            .enumerate()
            .collect();
            let mut rounds: Vec<Job> = Vec::new();
            for round in 0..options.tune_rounds.max(1) {
                let started = Instant::now();
                let strategy = if round == 0 { &TUNE } else { &TUNE_AGAIN };
                let stores = Stores {
                    record: match round {
                        0 => job_of(&TUNE),
                        _ => journal.as_ref().map(|journal| {
                            journal.job(format!("{model_name}/{}-{}", TUNE.name, round + 1))
                        }),
                    },
                    learn: rounds.clone(),
                    // Fixed, so that `--learned K` changes what the held-out
                    // runs are shown, not the store they are shown it from.
                    k: twr_runtime::run::DEFAULT_LEARNED,
                };
                // Other seeds each round, past the tuning prompts' own.
                let numbered: Vec<(usize, &'static Prompt)> = tuning
                    .iter()
                    .map(|&(number, prompt)| (round * tuning.len() + number, prompt))
                    .collect();
                let runs = run_strategy(strategy, &sources, &numbered, &options, &stores).await?;
                eprintln!(
                    "{} (round {}): {} runs in {:.0} s",
                    strategy.name,
                    round + 1,
                    runs.len(),
                    started.elapsed().as_secs_f64()
                );
                results.push((strategy, runs));
                rounds.extend(stores.record);
            }
            Some(rounds)
        }
    };
    for &strategy in &options.strategies {
        let started = Instant::now();
        let stores = Stores {
            record: job_of(strategy),
            learn: tuned.clone().filter(|_| strategy.learn).unwrap_or_default(),
            k: options.learned,
        };
        let runs = run_strategy(strategy, &sources, &jobs, &options, &stores).await?;
        eprintln!(
            "{}: {} runs in {:.0} s",
            strategy.name,
            runs.len(),
            started.elapsed().as_secs_f64()
        );
        results.push((strategy, runs));
    }

    let within = options.attempts.min(3);
    println!(
        "\n| strategy | typed on the first try | typed within {within} attempts | tokens per typed value | sections valid in first replies | typed with a copied placeholder | typed repeating a demonstration's line | failures |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (strategy, runs) in &results {
        report(strategy, runs, options.attempts);
    }
    for (strategy, runs) in &results {
        details(strategy, runs);
    }
    if journal.is_some() {
        feedback_rates(&results, &job_of).await?;
    }
    Ok(())
}

/// Which wording of the feedback was followed by a fixed section, from the
/// journal jobs of the strategies run (`Job::feedback_rates`): per kind of
/// problem and wording, over the strategies' replies written free (a
/// constrained reply is held to the format by the server, not by the
/// words), then the constrained ones in one line.
async fn feedback_rates(
    results: &[(&Strategy, Vec<Run>)],
    job_of: &dyn Fn(&Strategy) -> Option<Job>,
) -> Result<(), Box<dyn Error>> {
    let mut free: BTreeMap<(String, Wording), (u64, u64)> = BTreeMap::new();
    let mut constrained = (0, 0);
    for (strategy, _) in results {
        let Some(job) = job_of(strategy) else {
            continue;
        };
        for rate in job.feedback_rates().await? {
            let entry = if rate.constrained {
                &mut constrained
            } else {
                free.entry((rate.problem.clone(), rate.wording))
                    .or_default()
            };
            entry.0 += rate.sent;
            entry.1 += rate.fixed;
        }
    }
    if free.is_empty() && constrained.0 == 0 {
        return Ok(());
    }
    println!("\nfeedback followed by a fixed section (Job::feedback_rates), free next replies:\n");
    println!("| problem | wording | fixed on the next reply |");
    println!("| --- | --- | --- |");
    for ((problem, wording), (sent, fixed)) in &free {
        println!(
            "| {problem} | {wording} | {} |",
            percent(*fixed as usize, *sent as usize)
        );
    }
    if constrained.0 > 0 {
        println!(
            "\nconstrained next replies, any problem and wording: {}",
            percent(constrained.1 as usize, constrained.0 as usize)
        );
    }
    Ok(())
}

/// Runs every job of `strategy`, one at a time on each source, and returns
/// the runs in job order.
/// The journal jobs of a strategy's runs.
struct Stores {
    /// The job every run is recorded in.
    record: Option<Job>,
    /// The jobs a `learned` run learns from.
    learn: Vec<Job>,
    /// How many learned demonstrations a run is shown.
    k: usize,
}

async fn run_strategy(
    strategy: &'static Strategy,
    sources: &[Source],
    jobs: &[(usize, &'static Prompt)],
    options: &Options,
    stores: &Stores,
) -> Result<Vec<Run>, Box<dyn Error>> {
    let total = jobs.len();
    let queue = Arc::new(Mutex::new(VecDeque::from(jobs.to_vec())));
    let done: Arc<Mutex<Vec<(usize, Run)>>> = Arc::new(Mutex::new(Vec::new()));
    let mut workers = Vec::new();
    for source in sources {
        let source = source.clone();
        let queue = Arc::clone(&queue);
        let done = Arc::clone(&done);
        let (attempts, seed, dump_dir) = (options.attempts, options.seed, options.dump.clone());
        let (record, learn, k) = (stores.record.clone(), stores.learn.clone(), stores.k);
        workers.push(tokio::spawn(async move {
            loop {
                let Some((number, prompt)) = lock(&queue).pop_front() else {
                    return Ok::<(), std::io::Error>(());
                };
                let model = source.model_for(number, seed + number as u64, strategy.grammar);
                let max_attempts = match source {
                    // A recorded script has its own length.
                    Source::Offline => OFFLINE[number % OFFLINE.len()].len(),
                    Source::Server(_) => attempts,
                };
                let mut think = Think::new(&*model).max_attempts(max_attempts);
                if let Some(job) = &record {
                    think = think.journal(job.clone());
                }
                for job in &learn {
                    think = think.learn_from(job);
                }
                if !learn.is_empty() {
                    think = think.learned_demonstrations(k);
                }
                let think = (strategy.configure)(think, prompt.task);
                let run = match source {
                    Source::Offline => run_offline(&think).await,
                    Source::Server(_) => run_prompt(&think, prompt).await,
                };
                if let Source::Server(_) = source {
                    eprintln!(
                        "{} {:>3}/{total}: {:<8} {:<16} {:>5} tokens {:>5.1} s",
                        strategy.name,
                        number % total + 1,
                        format!("{:?}", prompt.task),
                        match run.typed_at {
                            Some(n) => format!("typed at {n}"),
                            None => run.failure.unwrap_or("?").to_string(),
                        },
                        run.usage.total_tokens,
                        run.elapsed.as_secs_f64()
                    );
                }
                let mut done = lock(&done);
                done.push((number, run));
                // Written after every run, to read while the rest runs.
                if let Some(dir) = &dump_dir {
                    done.sort_by_key(|(number, _)| *number);
                    let runs: Vec<&Run> = done.iter().map(|(_, run)| run).collect();
                    std::fs::create_dir_all(dir)?;
                    std::fs::write(
                        dir.join(format!("{}.md", strategy.name)),
                        dump(strategy, &runs),
                    )?;
                }
            }
        }));
    }
    for worker in workers {
        worker.await??;
    }
    let mut done = std::mem::take(&mut *lock(&done));
    done.sort_by_key(|(number, _)| *number);
    Ok(done.into_iter().map(|(_, run)| run).collect())
}

/// The lock's data, also after a panic elsewhere (the data is only ever
/// appended to, so it stays consistent).
/// `--truth`: typed and right (see `yield_truth.rs`), per strategy.
async fn run_truth(base: &OpenAiCompatible, options: &Options) -> Result<(), Box<dyn Error>> {
    // `learned` learns from the answers typed for the tuning texts, by
    // the defaults with the last attempt constrained, kept in a journal.
    let path = match &options.journal {
        Some(path) => path.clone(),
        None => std::env::temp_dir().join(format!("twr-truth-{}.twr", std::process::id())),
    };
    let journal = Journal::open(&path)?;
    let tuned = journal.job("truth/tune");
    let chosen = |name: &str| {
        options
            .truth_strategies
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    };
    // Only `learned` needs the tuning job.
    if chosen("learned") {
        let client = truth::client(base, true).seed(options.seed);
        let think = Think::new(&client)
            .max_attempts(options.attempts)
            .journal(tuned.clone());
        let mut typed = 0;
        for text in truth::TUNING {
            typed += usize::from(think.run::<truth::Event>(truth::prompt(text)).await.is_ok());
        }
        eprintln!(
            "tuning: {typed}/{} typed, in {}",
            truth::TUNING.len(),
            path.display()
        );
    }
    let mut rows = String::new();
    for (name, constrained, learns) in [
        ("defaults", false, false),
        ("constrained", true, false),
        ("learned", false, true),
    ] {
        if !chosen(name) {
            continue;
        }
        let client = truth::client(base, constrained).seed(options.seed);
        // Each strategy's runs in a job of their own: a measurement cut
        // short resumes where it stopped, replaying what it bought.
        let mut think = Think::new(&client)
            .max_attempts(options.attempts)
            .confidence(true)
            .journal(journal.job(format!("truth/{name}")));
        if learns {
            think = think
                .learn_from(&tuned)
                .learned_demonstrations(options.learned);
        }
        let tally = truth::run_all(&think, options.limit).await;
        println!("{name}: {}", truth::thresholds(&tally));
        // Each strategy's rows as soon as it ends, for a run cut short.
        let report = truth::report(name, &tally);
        eprint!("{report}");
        rows.push_str(&report);
    }
    println!(
        "\n| strategy | typed | fields right | all right | AUROC | wrong flagged at {} | right flagged at {} | measured |",
        truth::THRESHOLD,
        truth::THRESHOLD
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    print!("{rows}");
    Ok(())
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
