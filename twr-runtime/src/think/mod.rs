//! The think-with-retry loop: ask, parse, tell the model what to fix, ask
//! again.
//!
//! [`think_with_retry`] is the one-call form; [`Think`] is the builder with
//! every option and returns the full [`Outcome`].
//!
//! How a run goes is told in `run.md`, shown in the docs of [`Think`].

mod attempt;
mod bare;
mod bounded_reply;
mod budget;
mod check;
mod confidence;
mod conversation;
mod demo;
mod error;
mod focus;
mod hook;
mod junk;
mod learn;
mod many;
// Always built, as the other Serialize impls of the crate (`Message`,
// `Usage`, ...): one rule for every type, and serde is a dependency anyway.
mod driver;
mod ledger_serde;
mod messages;
mod outcome;
mod read;
mod samples;
mod stream;
mod trace;
mod transport;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tracing::Instrument;

pub use check::Checked;
pub use error::{BudgetLimit, ThinkError, ThinkErrorKind};
pub use learn::{Learned, DEFAULT_LEARNED};
pub use many::{RunsProgress, DEFAULT_CONCURRENCY};
pub use outcome::{
    Attempt, AttemptKind, Ending, FailedCall, FailedRequest, Outcome, Sample, SectionSource,
};
pub use stream::{Completed, Progress, SectionEvent};

use driver::Run;
use hook::AttemptHook;
use read::{AnswerSpec, Parsed};
use stream::NoteSinks;

use crate::cost::Prices;
use crate::feedback::{Feedback, Wording};
use crate::grammar::Grammar;
use crate::json::JsonProvenance;
use crate::model::{ChatModel, Message};
use crate::parse::typed::TypedSections;
use crate::parse::SectionMap;
use crate::retry::RetryPolicy;
use crate::sections::Sections;
use crate::stored_model::Stores;

/// The environment variable of the seed programs that sets the default
/// number of format attempts; read when [`TWR_MAX_ATTEMPTS_ENV`] is not set.
pub const MAX_ATTEMPTS_ENV: &str = "LLM_MAX_RETRIES";

/// twr's own environment variable for the default number of format
/// attempts. It wins over [`MAX_ATTEMPTS_ENV`] (`LLM_MAX_RETRIES`) when both
/// are set; [`Think::max_attempts`] wins over both.
pub const TWR_MAX_ATTEMPTS_ENV: &str = "TWR_MAX_ATTEMPTS";

/// The number of format attempts when neither [`Think::max_attempts`] nor
/// `TWR_MAX_ATTEMPTS` / `LLM_MAX_RETRIES` says otherwise.
pub const DEFAULT_MAX_ATTEMPTS: usize = 3;

/// The wall-time budget of a run when [`Think::max_duration`] is not set:
/// 15 minutes.
///
/// With every default a run therefore ends within 15 minutes, whatever the
/// server does. A server that streams forever is cut by the client's own
/// timeout (600 s by default); that request took longer than the 5 minutes
/// then left, so it is not retried and the run ends after 600 s with the
/// timeout and the text that arrived (without this bound, 4 requests of
/// 600 s each kept a run for 40 minutes).
pub const DEFAULT_MAX_DURATION: Duration = Duration::from_secs(15 * 60);

/// What a retry asks the model for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RetryMode {
    /// Ask only for the failing sections and merge them with the valid
    /// sections already received (the default).
    #[default]
    Patch,
    /// Ask for the whole answer again; nothing is merged.
    Full,
}

/// Asks `model` for a `T`, re-asking with feedback until the reply parses;
/// the one-call form of [`Think`] with its defaults.
///
/// ```
/// use twr_runtime::{think_with_retry, Feedback, ScriptedModel, SectionSpec, Sections};
/// # use twr_runtime::sections::ValueKind;
///
/// /// A hand-written `Sections` type (usually derived).
/// struct Answer(String);
///
/// impl Sections for Answer {
///     fn specs() -> &'static [SectionSpec] {
///         # const SPECS: &[SectionSpec] =
///         #     &[SectionSpec::new("answer", "[Answer]", "Answer", ValueKind::Text).with_example("42")];
///         SPECS
///     }
///     fn format_guide() -> String {
///         "Write your answer under the header [Answer].".to_string()
///     }
///     fn parse_sections(raw: &str) -> Result<Self, Feedback> {
///         raw.trim()
///             .strip_prefix("[Answer]")
///             .map(|rest| Answer(rest.trim().to_string()))
///             .ok_or_else(|| Feedback::message("Start your reply with the header [Answer]."))
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = ScriptedModel::new(["[Answer]\n42"]);
/// let answer: Answer = think_with_retry::<Answer>(&model, "What is six times seven?").await?;
/// assert_eq!(answer.0, "42");
/// # Ok::<(), twr_runtime::ThinkError>(())
/// # }).unwrap();
/// ```
pub async fn think_with_retry<T: Sections>(
    model: &(impl ChatModel + ?Sized),
    prompt: impl Into<Message>,
) -> Result<T, ThinkError> {
    Think::new(model)
        .run::<T>(prompt)
        .await
        .map(|outcome| outcome.value)
}

/// The think-with-retry loop with its options; how a run goes is told
/// below the example.
///
/// ```
/// use std::time::Duration;
/// use twr_runtime::{Message, RetryMode, RetryPolicy, ScriptedModel, Think};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = ScriptedModel::new(["about six", "6"]);
/// let history = vec![Message::user("Hi"), Message::assistant("Hello!")];
/// let outcome = Think::new(&model)
///     .system("You are precise.")
///     .history(&history)
///     .max_attempts(4)
///     .retry_mode(RetryMode::Full)
///     .max_duration(Duration::from_secs(60))
///     .retry_policy(RetryPolicy::default().max_retries(2))
///     .on_attempt(|attempt| println!("attempt {}: {:?}", attempt.number, attempt.kind))
///     .run_with("How many legs has an insect?", |raw: &str| {
///         raw.trim().parse::<u32>().map_err(|_| format!("Write only the number; you wrote '{raw}'.").into())
///     })
///     .await?;
/// assert_eq!(outcome.value, 6);
/// assert_eq!(outcome.attempts.len(), 2);
/// # Ok::<(), twr_runtime::ThinkError>(())
/// # }).unwrap();
/// ```
///
/// # Holding one in a service
///
/// A `Think` is a value a program keeps: it owns its model (whatever
/// [`Think::new`] was given) and shares it, with its hooks, among its
/// clones, so a clone costs a few reference counts and copies of the
/// options. Build it once with the options every call shares, over an
/// `Arc` of the client (or the client itself) so that it is `'static`, keep
/// it in the service's state, and clone it into each request or task. A
/// run borrows only the `Think`, so a clone moved into `tokio::spawn` runs
/// there. Options of one call go on that call's clone (the builder takes
/// `self`), and never reach the others. Clones share the one model, so a
/// [`Limited`](crate::Limited) or [`CircuitBreaker`](crate::CircuitBreaker)
/// around it counts every request of the service.
///
/// ```
/// use std::sync::Arc;
/// use twr_runtime::{ScriptedModel, Sections, Think};
///
/// #[derive(Debug, Sections)]
/// struct Ticket {
///     id: u32,
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// // Once, at start-up (an `OpenAiCompatible` in a real service):
/// let client = ScriptedModel::new(["[Id]\n7", "[Id]\n8"]);
/// let think = Think::new(Arc::new(client))
///     .system("You extract tickets.")
///     .max_attempts(3);
///
/// // Per request: a clone, with this call's own options, in a task.
/// let this_call = think.clone().max_attempts(2);
/// let task = tokio::spawn(async move { this_call.run::<Ticket>("Ticket #7, please").await });
/// assert_eq!(task.await.unwrap()?.value.id, 7);
/// assert_eq!(think.run::<Ticket>("Ticket #8, please").await?.value.id, 8);
/// # Ok::<(), twr_runtime::ThinkError>(())
/// # }).unwrap();
/// ```
///
#[doc = include_str!("run.md")]
pub struct Think<'a, M> {
    // Shared, so that a `Think` clones for every model (a
    // `Box<dyn ChatModel>` does not clone) and its clones share one model
    // (one `Limited` budget, one `CircuitBreaker` state).
    model: Arc<M>,
    system: Option<String>,
    history: Vec<Message>,
    max_attempts: Option<usize>,
    mode: RetryMode,
    max_total_tokens: Option<u64>,
    max_requests: Option<usize>,
    max_duration: Option<Duration>,
    retry_policy: RetryPolicy,
    hook: Option<AttemptHook<'a>>,
    demonstrations: Vec<(String, String)>,
    auto_demonstration: bool,
    // How many demonstrations are learned from the typed runs of the jobs
    // in `stores`: see think/learn.rs.
    learned: usize,
    focused_questions: bool,
    // How feedback is worded: see feedback::Wording.
    wording: Wording,
    // The constrained attempts: see Run::grammar_for.
    constrain_after: Option<usize>,
    // Whether the attempt spans carry the messages: see think/trace.rs.
    trace_content: bool,
    // How sure the model was of each section: see think/confidence.rs.
    confidence: bool,
    review_below: Option<f64>,
    samples: usize,
    // Streaming: see think/stream/.
    on_section: Option<stream::SectionHook<'a>>,
    early_abort: Option<bool>,
    // Escalation: the stronger model and after how many failed
    // format attempts it takes over; see Run::ask. Held like the model.
    escalate: Option<(Arc<dyn ChatModel + 'a>, usize)>,
    // Many prompts at once: see think/many.rs.
    concurrency: Option<usize>,
    progress: Option<many::ProgressHook<'a>>,
    // Cost: prices by model name; see crate::cost.
    prices: Option<Arc<Prices>>,
    // The journal and the response cache: a layer around the model, see
    // crate::stored.
    stores: Stores,
}

// Written by hand: a derive would ask `M: Clone`, which the model need not
// be (it is shared, not copied).
impl<M> Clone for Think<'_, M> {
    fn clone(&self) -> Self {
        Think {
            model: Arc::clone(&self.model),
            system: self.system.clone(),
            history: self.history.clone(),
            max_attempts: self.max_attempts,
            mode: self.mode,
            max_total_tokens: self.max_total_tokens,
            max_requests: self.max_requests,
            max_duration: self.max_duration,
            retry_policy: self.retry_policy,
            hook: self.hook.clone(),
            demonstrations: self.demonstrations.clone(),
            auto_demonstration: self.auto_demonstration,
            learned: self.learned,
            focused_questions: self.focused_questions,
            wording: self.wording,
            constrain_after: self.constrain_after,
            trace_content: self.trace_content,
            confidence: self.confidence,
            review_below: self.review_below,
            samples: self.samples,
            on_section: self.on_section.clone(),
            early_abort: self.early_abort,
            escalate: self.escalate.clone(),
            concurrency: self.concurrency,
            progress: self.progress.clone(),
            prices: self.prices.clone(),
            stores: self.stores.clone(),
        }
    }
}

impl<'a, M: ChatModel> Think<'a, M> {
    /// A loop over `model` with the default options. The `Think` owns what
    /// it is given: a reference (`&client`, `&dyn ChatModel`; the `Think`
    /// then lives no longer than the model), an `Arc` (`Arc::new(client)`:
    /// the `Think` is `'static`, for state and spawned tasks), a
    /// `Box<dyn ChatModel>`, or a model by value.
    pub fn new(model: M) -> Self {
        Think {
            model: Arc::new(model),
            system: None,
            history: Vec::new(),
            max_attempts: None,
            mode: RetryMode::default(),
            max_total_tokens: None,
            max_requests: None,
            max_duration: None,
            retry_policy: RetryPolicy::default(),
            hook: None,
            demonstrations: Vec::new(),
            auto_demonstration: false,
            learned: DEFAULT_LEARNED,
            focused_questions: true,
            wording: Wording::Listed,
            constrain_after: None,
            trace_content: false,
            confidence: false,
            review_below: None,
            samples: 1,
            on_section: None,
            early_abort: None,
            escalate: None,
            concurrency: None,
            progress: None,
            prices: None,
            stores: Stores::default(),
        }
    }

    /// The model the loop asks, as given to [`Think::new`].
    pub fn model(&self) -> &M {
        &self.model
    }

    /// Records every reply of this `Think`'s runs in `job` as it lands,
    /// and answers a request the job already recorded from the record
    /// instead of asking the model (feature `journal`). Run the same job
    /// again after a crash or a kill and it replays what reached the dead
    /// process, asks only for the rest, and pays nothing twice.
    /// [`run_many`](Self::run_many) also records each run's outcome, and
    /// every run of a [`Sections`] type that ends with a value records its
    /// prompt and answer, for [`learn_from`](Self::learn_from). See
    /// [`journal`](crate::journal) for how, and for the file.
    ///
    /// ```
    /// use twr_runtime::journal::Journal;
    /// use twr_runtime::model::Served;
    /// use twr_runtime::{ScriptedModel, Think};
    ///
    /// # #[derive(twr_runtime::Sections)] struct Answer { number: u32 }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # let dir = std::env::temp_dir().join(format!("twr-doc-journal-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let journal = Journal::open(dir.join("job.twr"))?;
    /// let first = ScriptedModel::new(["[Number]\n4"]);
    /// Think::new(&first).journal(journal.job("sums")).run::<Answer>("2 + 2?").await?;
    /// // Another process, later: the reply comes from the journal.
    /// let second = ScriptedModel::new(Vec::<String>::new());
    /// let outcome = Think::new(&second).journal(journal.job("sums")).run::<Answer>("2 + 2?").await?;
    /// assert_eq!(outcome.value.number, 4);
    /// assert_eq!(outcome.attempts[0].served, Served::Journal);
    /// assert_eq!(second.calls(), 0);
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    #[cfg(feature = "journal")]
    #[cfg_attr(docsrs, doc(cfg(feature = "journal")))]
    pub fn journal(mut self, job: crate::journal::Job) -> Self {
        self.stores.job = Some(job);
        self
    }

    /// Answers a request from `cache` when it holds a reply to exactly
    /// that request (model, options, messages), and caches every new reply
    /// (feature `journal`): for development loops, where a rerun of
    /// unchanged prompts then makes no request. A hit is
    /// [`Served::Cache`](crate::model::Served::Cache) in the ledger and costs nothing.
    /// A request that asks for token log-probabilities
    /// ([`Think::confidence`]) is cached apart, with them: a reply cached
    /// for a run that did not ask has none, so it never answers a run that
    /// does (which buys its own once, then replays it measured).
    #[cfg(feature = "journal")]
    #[cfg_attr(docsrs, doc(cfg(feature = "journal")))]
    pub fn response_cache(mut self, cache: crate::journal::ResponseCache) -> Self {
        self.stores.cache = Some(cache);
        self
    }

    /// Prices per model, so that each attempt's tokens get a cost in the
    /// ledger ([`Attempt::cost`]), summed per run ([`Outcome::cost`],
    /// [`ThinkError::cost`]) and per batch of
    /// [`run_many`](Self::run_many) ([`RunsProgress::cost`]). A model is
    /// looked up by its [`name()`](ChatModel::name); one without a price
    /// has no cost (`None`), never a guessed one.
    ///
    /// ```
    /// use twr_runtime::cost::{Price, Prices};
    /// use twr_runtime::{Reply, ScriptedModel, Think, Usage};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let model = ScriptedModel::from_replies([
    ///     Reply::text("several").with_usage(Usage::new(1_000, 10)),
    ///     Reply::text("8").with_usage(Usage::new(1_100, 2).with_cache(1_000, 0)),
    /// ])
    /// .with_name("small");
    /// let prices = Prices::new().with("small", Price::per_million(1.0, 4.0).cache_read(0.25));
    /// let outcome = Think::new(&model)
    ///     .prices(prices)
    ///     .run_with("How many legs has a spider?", |raw: &str| {
    ///         raw.trim().parse::<u32>().map_err(|_| "Write only the number.".into())
    ///     })
    ///     .await?;
    /// let costs: Vec<Option<f64>> = outcome.attempts.iter().map(|a| a.cost).collect();
    /// // 1,000 in and 10 out; then 100 in, 1,000 read from the cache and 2 out.
    /// assert_eq!(costs, [Some(0.00104), Some(0.000358)]);
    /// assert_eq!(outcome.cost(), Some(0.00104 + 0.000358));
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    pub fn prices(mut self, prices: Prices) -> Self {
        self.prices = Some(Arc::new(prices));
        self
    }

    /// What `usage` of the model named `model` cost, online or (`batch`)
    /// through a batch API, when it has a price.
    fn cost(&self, model: &str, usage: &crate::model::Usage, batch: bool) -> Option<f64> {
        self.prices.as_ref()?.cost(model, usage, batch)
    }

    /// How many runs of [`run_many`](Self::run_many) and
    /// [`run_each`](Self::run_each) go at once (at least 1; default
    /// [`DEFAULT_CONCURRENCY`]).
    pub fn concurrency(mut self, runs: usize) -> Self {
        self.concurrency = Some(runs.max(1));
        self
    }

    /// Calls `hook` each time a run of [`run_many`](Self::run_many) or
    /// [`run_each`](Self::run_each) ends,
    /// with the runs done, the total, the failures and the tokens so far.
    pub fn on_progress(mut self, hook: impl Fn(&RunsProgress) + Send + Sync + 'a) -> Self {
        self.progress = Some(Arc::new(hook));
        self
    }

    /// After `after` failed format attempts on the model the loop started
    /// with, asks `stronger` for the remaining ones, with the same private
    /// conversation: a cheap model first, a strong one only when the cheap
    /// one cannot follow the format. Each [`Attempt::model`] names the
    /// model that answered it. `after` counts attempts, not transport
    /// retries; `0` asks `stronger` from the start. `stronger` is held as
    /// the model is (see [`Think::new`]): `&strong`, an `Arc`, a box or a
    /// model by value.
    ///
    /// ```
    /// use twr_runtime::{ScriptedModel, Think};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let cheap = ScriptedModel::new(["many", "lots"]).with_name("cheap");
    /// let strong = ScriptedModel::new(["8"]).with_name("strong");
    /// let outcome = Think::new(&cheap)
    ///     .escalate_to(&strong, 2)
    ///     .max_attempts(3)
    ///     .run_with("How many legs has a spider?", |raw: &str| {
    ///         raw.trim().parse::<u32>().map_err(|_| "Write only the number.".into())
    ///     })
    ///     .await?;
    /// assert_eq!(outcome.value, 8);
    /// let models: Vec<&str> = outcome.attempts.iter().map(|a| a.model.as_str()).collect();
    /// assert_eq!(models, ["cheap", "cheap", "strong"]);
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    pub fn escalate_to(mut self, stronger: impl ChatModel + 'a, after: usize) -> Self {
        self.escalate = Some((Arc::new(stronger), after));
        self
    }

    /// Shows the model a worked example before the real prompt: `question`
    /// as a user message and `answer`, written in the format, as the
    /// assistant's reply. Call it again for more; they are sent in order,
    /// after the system message and before the history.
    ///
    /// Their place is chosen for prompt caches: every request of a run
    /// starts with the system message, the demonstrations and the history,
    /// in that order, and only what follows the prompt changes from one
    /// attempt to the next, so a provider's cache of the request's start
    /// (Anthropic's prompt caching, `Anthropic::prompt_caching`)
    /// holds them for every retry. Demonstrations learned with
    /// [`learn_from`](Self::learn_from) come after these, so the ones you
    /// write stay the same start for every prompt: each request says where
    /// that start ends ([`Request::shared_prefix`](crate::model::Request#structfield.shared_prefix)),
    /// and `Anthropic` puts a cache breakpoint there, so the next prompt
    /// reads them from the cache too.
    ///
    /// The format guide then goes with the first demonstration's question
    /// (so the demonstrated answer follows it, as the real one will), and
    /// every later demonstration's question and the prompt get a one-line
    /// reminder of the headers, so each turn asks as the last. Small models copy
    /// the shape of an earlier turn far more reliably than they follow a
    /// description; capable models read it as an ordinary few-shot example.
    ///
    /// ```
    /// use twr_runtime::{Message, ScriptedModel, Sections, Think};
    ///
    /// #[derive(Sections)]
    /// struct Answer {
    ///     /// The result, as a number.
    ///     result: u32,
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let model = ScriptedModel::new(["[Result]\n42"]);
    /// let outcome = Think::new(&model)
    ///     .demonstration("What is two plus three?", "[Result]\n5")
    ///     .run::<Answer>("What is six times seven?")
    ///     .await?;
    /// assert_eq!(outcome.value.result, 42);
    /// let sent = &model.requests()[0];
    /// assert!(sent[0].content.starts_with("What is two plus three?\n\n"));
    /// assert_eq!(sent[1], Message::assistant("[Result]\n5"));
    /// assert_eq!(
    ///     sent[2],
    ///     Message::user(
    ///         "What is six times seven?\n\n\
    ///          Answer in the same format, with the sections [Result], each header on a line of its own."
    ///     )
    /// );
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    pub fn demonstration(mut self, question: impl Into<String>, answer: impl Into<String>) -> Self {
        self.demonstrations.push((question.into(), answer.into()));
        self
    }

    /// Shows the model, before each prompt, the earlier prompts most like
    /// it whose runs in `job` ended with a value of the same type, each
    /// with the answer that value was read from, as earlier turns
    /// (feature `journal`). Call it again to learn from several jobs.
    ///
    /// A run given a [`journal`](Self::journal) job records each value it
    /// ends with there: the prompt as written and the answer in the soft
    /// format, only the type's sections under their headers (the merged
    /// sections of a repaired answer, the sections of a JSON answer written
    /// under a grammar, an optional section left out written `N/A` as the
    /// guide asks, so the answer shown has every section), never a reply a
    /// validator or a [`check`](Self::check) refused ([`Job::typed_runs`]
    /// lists them). So a run that was typed only on its constrained attempt
    /// still teaches the next similar prompt the free format, on its first
    /// try.
    ///
    /// Not every typed answer is shown. A grammar holds a reply to the
    /// format, not to the sense, and a model that did not understand the
    /// format fills its sections with what it was told; shown, such an
    /// answer is copied again. So an answer is left out when a section
    /// repeats the format guide (the section's description or slot, or a
    /// line of the guide of 12 characters or more), holds a placeholder (a
    /// line wholly in `<...>`, or in `[...]` outside JSON, table and record
    /// sections), names one of the type's own headers (`the [Stars]
    /// section needs...`: the feedback it was sent), or repeats a line of 8
    /// characters or more. The rules read the answer and the type alone,
    /// whatever the prompts; each line is compared trimmed, without its
    /// list marker, ignoring case.
    ///
    /// For each prompt the run picks [`learned_demonstrations`](Self::learned_demonstrations)
    /// of the answers left (default [`DEFAULT_LEARNED`]): first those typed
    /// without a grammar ([`TypedRun::constrained`] false: the model's own
    /// reply to the format), then the others; in each group the most alike
    /// first, by the similarity of their text (character trigrams: lexical,
    /// linear in the job's runs, nothing sent anywhere), ties going to the
    /// job given first, then to the prompt first in byte order: the same
    /// store and prompt give the same picks. An earlier run of the very same prompt
    /// is not shown. Types that ask for the same sections, with the same
    /// kinds, share their runs; any other type's runs are never shown. The
    /// picks are shown best last, next to the prompt (a small model copies
    /// the nearest turn most), after the [`demonstration`](Self::demonstration)s
    /// you wrote and before the history (see there for the prompt cache),
    /// and are in the ledger in the order shown ([`Outcome::learned`],
    /// [`ThinkError::learned`]).
    ///
    /// A journal holds its users' text: the prompts and answers of
    /// everyone whose runs it recorded. Demonstrations therefore come only
    /// from the jobs a program passes here, never from any other job of
    /// the file: pass only jobs whose text the people this run answers may
    /// see. Learning from the job a run also records into changes its
    /// requests as the job grows, so a resumed job would not replay them:
    /// learn from a finished job.
    ///
    /// ```
    /// use twr_runtime::journal::Journal;
    /// use twr_runtime::{Message, ScriptedModel, Sections, Think};
    ///
    /// #[derive(Debug, Sections)]
    /// struct Trip {
    ///     days: u32,
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # let dir = std::env::temp_dir().join(format!("twr-doc-learn-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let journal = Journal::open(dir.join("trips.twr"))?;
    /// let earlier = journal.job("trips-monday");
    /// // Monday: the reply has words before the section; the answer kept is the section.
    /// let monday = ScriptedModel::new(["Sure! Here is my answer.\n[Days]\n3"]);
    /// Think::new(&monday).journal(earlier.clone()).run::<Trip>("A long weekend in Kyoto").await?;
    ///
    /// // Tuesday: Monday's run is shown as an earlier turn.
    /// let tuesday = ScriptedModel::new(["[Days]\n4"]);
    /// let outcome = Think::new(&tuesday)
    ///     .learn_from(&earlier)
    ///     .run::<Trip>("A long weekend in Osaka")
    ///     .await?;
    /// assert_eq!(outcome.learned[0].prompt, "A long weekend in Kyoto");
    /// let sent = &tuesday.requests()[0];
    /// assert!(sent[0].content.starts_with("A long weekend in Kyoto\n\n"));
    /// assert_eq!(sent[1], Message::assistant("[Days]\n3"));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// [`Job::typed_runs`]: crate::journal::Job::typed_runs
    /// [`TypedRun::constrained`]: crate::journal::TypedRun::constrained
    #[cfg(feature = "journal")]
    #[cfg_attr(docsrs, doc(cfg(feature = "journal")))]
    pub fn learn_from(mut self, job: &crate::journal::Job) -> Self {
        self.stores.learn_from.push(job.clone());
        self
    }

    /// How many demonstrations [`learn_from`](Self::learn_from) shows
    /// before each prompt, at most (default [`DEFAULT_LEARNED`]); `0` shows
    /// none.
    #[cfg(feature = "journal")]
    #[cfg_attr(docsrs, doc(cfg(feature = "journal")))]
    pub fn learned_demonstrations(mut self, k: usize) -> Self {
        self.learned = k;
        self
    }

    /// Whether a section still missing or wrong after a patch retry asked
    /// for it is asked for once more as a plain question of its own, built
    /// from its description and example ("The total budget per person, in
    /// US dollars. Reply with only the number, for example: $600."), with
    /// the reply read as that section ([`AttemptKind::Focused`]). Default
    /// on. With `false`, the same problems twice in a row get the format
    /// guide again instead, as in full retries.
    pub fn focused_questions(mut self, on: bool) -> Self {
        self.focused_questions = on;
        self
    }

    /// How the first feedback of a run is worded ([`Wording`]; default
    /// [`Wording::Listed`]): the problems listed, the same with the
    /// complete example answer, or a focused question about one section.
    /// With a journal ([`Think::journal`]), every feedback is recorded with
    /// its wording and whether the next reply fixed what it named, so that
    /// a program can choose the wording its model follows best
    /// ([`Job::feedback_rates`](crate::journal::Job::feedback_rates)).
    pub fn feedback_wording(mut self, wording: Wording) -> Self {
        self.wording = wording;
        self
    }

    /// Sends every attempt after the `n`-th with a grammar the reply must
    /// follow ([`Request::grammar`](crate::model::Request#structfield.grammar)):
    /// the grammar of only what still fails ([`Grammar::of`] narrowed to the
    /// sections a patch retry asks for, or to one section's value for a
    /// focused question), for a server to enforce while the model writes.
    /// Its reply is merged and judged as any other: values, validators and
    /// cross-section rules still apply. The ledger marks such attempts
    /// ([`Attempt::constrained`]).
    ///
    /// Without it, the last attempt of a run (never the first) is
    /// constrained when the model takes grammars
    /// ([`ChatModel::takes_grammar`]: an HTTP client given a
    /// [`Dialect`](crate::grammar::Dialect)), so a capable model that
    /// answers early never pays for one. With it, every model gets the
    /// grammar after the `n`-th attempt, and one that takes none may ignore
    /// it (the ledger marks an attempt constrained only when its model
    /// takes grammars: what was sent); `constrain_after(0)` constrains
    /// every attempt. Only runs of a [`Sections`] type have a grammar
    /// ([`Think::run`], its streamed and checked forms).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use twr_runtime::grammar::Format;
    /// use twr_runtime::{Sections, ScriptedModel, Think};
    ///
    /// #[derive(Debug, Sections)]
    /// struct Trip {
    ///     days: u32,
    /// }
    ///
    /// // A model that takes GBNF grammars, as a llama.cpp server's client does.
    /// let model = ScriptedModel::new(["Three days.", "[Days]\n3"]).with_grammar_format(Format::Gbnf);
    /// let outcome = Think::new(&model).constrain_after(1).run::<Trip>("How long?").await?;
    /// assert_eq!(outcome.value.days, 3);
    /// assert_eq!(
    ///     outcome.attempts.iter().map(|a| a.constrained).collect::<Vec<_>>(),
    ///     [false, true],
    /// );
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    ///
    /// [`Grammar::of`]: crate::grammar::Grammar::of
    pub fn constrain_after(mut self, n: usize) -> Self {
        self.constrain_after = Some(n);
        self
    }

    /// With `true`, every request asks the model for the log-probability
    /// of each token it writes ([`Request::wants_logprobs`](crate::model::Request::wants_logprobs)),
    /// and each section of the value gets a confidence in `0.0..=1.0` read
    /// from the tokens of its value: [`Outcome::confidence`], per attempt
    /// in [`Attempt::confidence`]. Off by default (the servers send more).
    ///
    /// The OpenAI-compatible client asks with `"logprobs": true` and
    /// `"top_logprobs"` (OpenAI, llama.cpp, llama-cpp-python, vLLM,
    /// SGLang), the Gemini client with `responseLogprobs` and `logprobs`;
    /// Anthropic's API gives none, so its sections get none: a section's
    /// confidence is `None` ("not measured") whenever its reply carried no
    /// log-probabilities, never a made-up number. A
    /// [`ChatModel`] of your own sees the wish in the request and hands
    /// them on with [`Reply::with_logprobs`](crate::Reply::with_logprobs).
    /// How each kind of value is scored: see [`Outcome::confidence`].
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use twr_runtime::model::TokenLogprob;
    /// use twr_runtime::{Reply, ScriptedModel, Sections, Think};
    ///
    /// #[derive(Debug, Sections)]
    /// struct Ticket {
    ///     urgent: bool,
    /// }
    ///
    /// let token = |text: &str, p: f64, top: &[(&str, f64)]| TokenLogprob {
    ///     token: text.into(),
    ///     logprob: p.ln(),
    ///     top: top.iter().map(|&(t, p)| (t.to_string(), p.ln())).collect(),
    /// };
    /// let reply = Reply::text("[Urgent]\nyes").with_logprobs(vec![
    ///     token("[Urgent]", 0.99, &[]),
    ///     token("\n", 0.99, &[]),
    ///     token("yes", 0.6, &[("yes", 0.6), ("no", 0.2), ("maybe", 0.2)]),
    /// ]);
    /// let model = ScriptedModel::from_replies([reply]);
    /// let outcome = Think::new(&model).confidence(true).run::<Ticket>("Server down!").await?;
    /// // "yes" against the other answer listed: 0.6 / (0.6 + 0.2).
    /// let urgent = outcome.confidence("urgent").unwrap();
    /// assert_eq!((urgent * 100.0).round(), 75.0);
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    pub fn confidence(mut self, on: bool) -> Self {
        self.confidence = on;
        self
    }

    /// Asks the first attempt for `k` replies at once (one request with the
    /// server's `n` where the model takes it, else `k` requests,
    /// concurrently) and reads every reply: each section's value is the one most replies
    /// agree on, and its confidence ([`Outcome::confidence`]) the share of
    /// the `k` replies that agreed. For a model whose server gives no
    /// token log-probabilities ([`Think::confidence`]), it is how a run
    /// learns how sure the model was. `1` (the default; `0` counts as
    /// `1`) asks once.
    ///
    /// Values agree as their kind reads them: numbers when they are equal
    /// (`2,300` and `2300`), yes/no when they say the same, and everything
    /// else as text, after trimming, with runs of white space as one space
    /// and case ignored. An optional section most replies leave out is
    /// left out. The agreed answer is read as the first attempt's reply
    /// (and, if it fails, is what the model is shown with the feedback);
    /// later attempts are asked once. With samples, the log-probabilities
    /// are not read: the agreement is the confidence.
    ///
    /// A model that takes the server's own `n`
    /// ([`ChatModel::answers_n`](crate::ChatModel::answers_n): an HTTP client told so with
    /// [`HttpModel::takes_n`](crate::client::HttpModel::takes_n), Gemini's
    /// `candidateCount` by default) is sent one request asking for `k`
    /// replies, so the prompt is read and paid for once; any other model,
    /// `k` requests at once, each with its own seed (the client's seed
    /// plus the sample's number,
    /// [`Request::sample`](crate::model::Request::sample)). A server that
    /// answers fewer replies than the `n` it was sent (one that ignores
    /// it) has the missing ones asked one request each.
    ///
    /// Every reply is in the ledger ([`Attempt::samples`]), and the
    /// attempt's usage and cost are what the calls were billed: `k`
    /// calls, each paid; one call, paid once (its prompt tokens once, the
    /// completion tokens of every reply), its usage and cost on the first
    /// sample and none on the others. The journal and the response cache
    /// keep each sample's reply apart, under the sample's number whether
    /// it came alone or in one response with others, so a resumed run
    /// replays them all without a request. Replies are read whole, not
    /// streamed.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use twr_runtime::{ScriptedModel, Sections, Think};
    ///
    /// #[derive(Debug, Sections)]
    /// struct Event {
    ///     city: String,
    ///     attendees: u32,
    /// }
    ///
    /// let model = ScriptedModel::new([
    ///     "[City]\nOslo\n[Attendees]\n2,300",
    ///     "[City]\noslo\n[Attendees]\n2300",
    ///     "[City]\nBergen\n[Attendees]\n4",
    /// ]);
    /// let outcome = Think::new(&model)
    ///     .samples(3)
    ///     .review_below(0.7)
    ///     .run::<Event>("2,300 fans came to the Oslo concert.")
    ///     .await?;
    /// assert_eq!((outcome.value.city.as_str(), outcome.value.attendees), ("Oslo", 2300));
    /// assert_eq!(outcome.confidence("attendees"), Some(2.0 / 3.0));
    /// assert_eq!(outcome.needs_review(), ["city", "attendees"]);
    /// assert_eq!(outcome.attempts[0].samples.len(), 3);
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    pub fn samples(mut self, k: usize) -> Self {
        self.samples = k.max(1);
        self
    }

    /// The sections whose confidence ([`Think::confidence`]) is below
    /// `threshold` are listed in [`Outcome::needs_review`], by field name,
    /// and said in the trace (a `twr values to review` event): values to
    /// show a person, not an error. A section whose confidence was not
    /// measured is not listed.
    ///
    /// A program routes them (to a review queue, with the value and its
    /// confidence), or asks again about them: a second run whose prompt
    /// quotes the value and asks for that field alone, or a stronger
    /// model ([`Think::escalate_to`]).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use twr_runtime::model::TokenLogprob;
    /// use twr_runtime::{Reply, ScriptedModel, Sections, Think};
    ///
    /// #[derive(Debug, Sections)]
    /// struct Order {
    ///     city: String,
    ///     paid: bool,
    /// }
    ///
    /// let token = |text: &str, p: f64| TokenLogprob { token: text.into(), logprob: p.ln(), top: vec![] };
    /// let reply = Reply::text("[City]\nOslo\n[Paid]\nyes").with_logprobs(vec![
    ///     token("[City]\n", 0.9),
    ///     token("Os", 0.3),
    ///     token("lo", 0.9),
    ///     token("\n[Paid]\n", 0.9),
    ///     token("yes", 0.95),
    /// ]);
    /// let model = ScriptedModel::from_replies([reply]);
    /// let outcome = Think::new(&model)
    ///     .confidence(true)
    ///     .review_below(0.7)
    ///     .run::<Order>("Paid order to Oslo.")
    ///     .await?;
    /// assert_eq!(outcome.needs_review(), ["city"]); // sqrt(0.3 * 0.9) = 0.52
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    pub fn review_below(mut self, threshold: f64) -> Self {
        self.review_below = Some(threshold);
        self
    }

    /// With `true`, each attempt's span carries the conversation sent and
    /// the reply (`gen_ai.input.messages`, `gen_ai.output.messages`, as
    /// OpenTelemetry's GenAI conventions write them). Off by default: they
    /// hold users' text, which a trace backend keeps and shows to whoever
    /// reads traces.
    ///
    /// The run and its attempts are spans either way: a run is one span
    /// (`twr.run`), each attempt a child span (`twr.attempt`, its kind
    /// `first`, `patch`, `focused`, `full`, `constrained` or `escalated`),
    /// with the HTTP client's call below it, and each section judged an
    /// event `gen_ai.evaluation.result` (its header, `pass` or `fail`, and
    /// for a failure the feedback sentence). An OpenTelemetry layer
    /// (`tracing-opentelemetry`) exports them as they are.
    pub fn trace_content(mut self, on: bool) -> Self {
        self.trace_content = on;
        self
    }

    /// With `true`, [`run`](Self::run) shows a demonstration built from the
    /// type's own examples (the guide's example answer) before the real
    /// prompt, as [`demonstration`](Self::demonstration) does with one you
    /// write; it goes after any of yours. Default off.
    pub fn auto_demonstration(mut self, on: bool) -> Self {
        self.auto_demonstration = on;
        self
    }

    /// A system message sent first.
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.system = Some(text.into());
        self
    }

    /// Earlier messages sent before the prompt. They are copied; the
    /// caller's history is never changed (append
    /// [`Outcome::final_exchange`] to it yourself).
    pub fn history(mut self, messages: &[Message]) -> Self {
        self.history = messages.to_vec();
        self
    }

    /// The total number of format attempts (model calls that returned a
    /// reply): `1` makes exactly one call. Default 3, or `TWR_MAX_ATTEMPTS`
    /// when set, else `LLM_MAX_RETRIES` when set (the seeds' name; twr's own
    /// wins when both are). This setting wins over both. Values below 1 are
    /// taken as 1.
    pub fn max_attempts(mut self, attempts: usize) -> Self {
        self.max_attempts = Some(attempts.max(1));
        self
    }

    /// What a retry asks for: only the failing sections ([`RetryMode::Patch`],
    /// the default) or the whole answer ([`RetryMode::Full`]).
    pub fn retry_mode(mut self, mode: RetryMode) -> Self {
        self.mode = mode;
        self
    }

    /// Stops the run once the replies used this many tokens in total.
    pub fn max_total_tokens(mut self, tokens: u64) -> Self {
        self.max_total_tokens = Some(tokens);
        self
    }

    /// Stops the run before the request that would exceed this many
    /// requests (transport retries included).
    pub fn max_requests(mut self, requests: usize) -> Self {
        self.max_requests = Some(requests);
        self
    }

    /// Stops the run after this much wall time, even mid-request. Default
    /// [`DEFAULT_MAX_DURATION`] (15 minutes); `Duration::MAX` for no limit.
    ///
    /// The request under way gets the end of the run as its deadline
    /// ([`Request::deadline`](crate::model::Request::deadline)): the HTTP
    /// clients end it there and the text streamed so far is kept in the
    /// error, like any incomplete reply. A model that ignores the deadline
    /// is dropped 50 ms after it, and what it read is lost.
    ///
    /// Within this budget a transient failure is not retried when the failed
    /// request took longer than the time left (the retry could not finish):
    /// the run ends at once with that failure.
    pub fn max_duration(mut self, duration: Duration) -> Self {
        self.max_duration = Some(duration);
        self
    }

    /// How transient transport failures are retried.
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry_policy = policy;
        self
    }

    /// Calls `hook` after every attempt with its ledger entry.
    pub fn on_attempt(mut self, hook: impl Fn(&Attempt) + Send + Sync + 'a) -> Self {
        self.hook = Some(Arc::new(hook));
        self
    }

    // --- Streaming: on_section, early_abort, stream. The machinery is in
    // think/stream/.

    /// Calls `hook` for every section of a reply the moment it is complete
    /// (the next header line arrived, or the reply ended), with its text,
    /// its typed value and the problem with it, if any: see
    /// [`SectionEvent`]. [`Think::run`] then streams the replies
    /// ([`ChatModel::chat_stream`]); a model that does not stream gives its
    /// whole reply at once, and the events come when it has arrived.
    /// [`Think::run_with`] has no sections and calls no hook.
    pub fn on_section(mut self, hook: impl Fn(&SectionEvent) + Send + Sync + 'a) -> Self {
        self.on_section = Some(Arc::new(hook));
        self
    }

    /// Stops reading a streamed reply as soon as one of its sections is
    /// complete and definitely invalid (a number section with no number, a
    /// Choice value that is none of its words, a failed validator, JSON
    /// that no repair makes fit, an empty section): the stream is dropped,
    /// so the connection closes and the server stops generating, the
    /// attempt is recorded as [`AttemptKind::Aborted`] with the text
    /// received so far, and the feedback goes out at once (in patch mode the sections
    /// received before it are kept). A section that is merely missing so
    /// far never stops a reply.
    ///
    /// Default on for a model that streams ([`ChatModel::streams`]);
    /// `false` turns it off. A model that does not stream has sent its whole
    /// reply anyway, and it is read whole.
    pub fn early_abort(mut self, abort: bool) -> Self {
        self.early_abort = Some(abort);
        self
    }

    /// Runs [`Think::run`] as a [`Stream`](futures_util::Stream) of
    /// [`Progress`] events: each attempt as it starts, each section as it
    /// completes (valid or not), a reply stopped early, each retry with the
    /// feedback sent back, and last [`Progress::Finished`] with the outcome
    /// or the error. The replies are streamed as with
    /// [`Think::on_section`], which is called too. Nothing runs until the
    /// stream is polled; dropping it stops the run.
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use twr_runtime::{Progress, ScriptedModel, Sections, Think};
    ///
    /// #[derive(Debug, Sections)]
    /// struct Trip {
    ///     plan: String,
    ///     days: u32,
    ///     notes: String,
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let model = ScriptedModel::new([
    ///     "[Plan]\nSee the temples\n[Days]\nthree or so\n[Notes]\nBook early, and...",
    ///     "[Days]\n3\n[Notes]\nBook early.",
    /// ])
    /// .chunk_size(4);
    /// let think = Think::new(&model).max_attempts(2);
    /// let mut progress = Box::pin(think.stream::<Trip>("Plan a trip"));
    /// let mut seen = Vec::new();
    /// while let Some(event) = progress.next().await {
    ///     match event {
    ///         Progress::AttemptStarted { attempt } => seen.push(format!("attempt {attempt}")),
    ///         Progress::SectionComplete(s) => seen.push(format!("{} ok", s.header)),
    ///         Progress::SectionInvalid(s) => seen.push(format!("{} invalid", s.header)),
    ///         Progress::Aborted { header, .. } => seen.push(format!("stopped at {header}")),
    ///         Progress::Retry { .. } => seen.push("retry".into()),
    ///         Progress::Finished(result) => seen.push(format!("days = {}", result?.value.days)),
    ///         _ => {}
    ///     }
    /// }
    /// assert_eq!(seen, [
    ///     "attempt 1", "[Plan] ok", "[Days] invalid", "stopped at [Days]", "retry",
    ///     "attempt 2", "[Days] ok", "[Notes] ok", "days = 3",
    /// ]);
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    pub fn stream<'s, T: Sections + Send + 's>(
        &'s self,
        prompt: impl Into<Message>,
    ) -> impl futures_util::Stream<Item = Progress<T>> + Send + 's {
        let prompt = prompt.into();
        let queue = stream::NoteQueue::default();
        let run_queue = queue.clone();
        let run = async move {
            let format = AnswerSpec {
                parse: read::sections_of::<T>,
                guide: Some(T::format_guide()),
                specs: Some(T::specs()),
                ways: T::ways(),
                lang: Some(T::lang()),
                grammar: Some(Grammar::of::<T>),
            };
            let notes = self.notes(Some(&run_queue));
            let watch = stream::watch::<T> as stream::MakeWatch;
            self.drive(prompt, format, Some(watch), notes, None).await
        };
        stream::ProgressStream::new(Box::pin(run), queue)
    }

    /// Where a run's notes go.
    fn notes<'r>(&'r self, queue: Option<&'r stream::NoteQueue>) -> NoteSinks<'r> {
        NoteSinks {
            on_section: self.on_section.as_deref().map(|hook| hook as _),
            queue,
        }
    }

    /// Asks for a `T`: the prompt gets `T::format_guide()` appended, replies
    /// are read with `T::parse_sections`, and patch retries merge sections.
    ///
    /// The prompt is text (a user message) or a [`Message`] with images
    /// and documents: the guide is appended to its text, its attachments
    /// are kept, and every request of the run carries them once, in that
    /// message (see [`Message::with_image`]).
    ///
    /// ```
    /// use twr_runtime::{Message, ScriptedModel, Sections, Think};
    ///
    /// #[derive(Sections)]
    /// struct Receipt {
    ///     total: f64,
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let png = b"\x89PNG\r\n\x1a\n...".to_vec(); // std::fs::read("receipt.png")?
    /// let model = ScriptedModel::new(["[Total]\nabout ten", "[Total]\n9.75"]);
    /// let message = Message::user("Read this receipt.").with_image(png, "image/png");
    /// let outcome = Think::new(&model).run::<Receipt>(&message).await?;
    /// assert_eq!(outcome.value.total, 9.75);
    /// for request in model.requests() {
    ///     // The image went once per request, with the prompt and its guide.
    ///     let sent: Vec<_> = request.iter().flat_map(|m| m.attachments()).collect();
    ///     assert_eq!(sent, [&message.attachments()[0]]);
    ///     assert!(request[0].content.starts_with("Read this receipt.\n\n"));
    /// }
    /// # Ok::<(), twr_runtime::ThinkError>(())
    /// # }).unwrap();
    /// ```
    pub async fn run<T: Sections>(
        &self,
        prompt: impl Into<Message>,
    ) -> Result<Outcome<T>, ThinkError> {
        self.run_checked::<T>(prompt.into(), None).await
    }

    /// [`Think::run`], with the check of [`Think::check`] when there is one.
    async fn run_checked<'r, T: Sections>(
        &'r self,
        prompt: Message,
        check: Option<&'r dyn check::AsyncCheck<T>>,
    ) -> Result<Outcome<T>, ThinkError> {
        let format = AnswerSpec {
            parse: read::sections_of::<T>,
            guide: Some(T::format_guide()),
            specs: Some(T::specs()),
            ways: T::ways(),
            lang: Some(T::lang()),
            grammar: Some(Grammar::of::<T>),
        };
        let notes = self.notes(None);
        let streamed = self.model.streams() || notes.any();
        let watch = streamed.then_some(stream::watch::<T> as stream::MakeWatch);
        self.drive(prompt, format, watch, notes, check).await
    }

    /// Asks with any parser: `parse` turns the raw reply into a value or a
    /// [`Feedback`] for the model. No format guide is appended (say in the
    /// prompt what you expect), and retries ask for a whole new answer. The
    /// closure's captures are the parser's options.
    pub async fn run_with<U, F>(
        &self,
        prompt: impl Into<Message>,
        parse: F,
    ) -> Result<Outcome<U>, ThinkError>
    where
        F: Fn(&str) -> Result<U, Feedback>,
    {
        let format = AnswerSpec {
            parse: |raw: &str, _: Option<SectionMap<'_>>, _: &mut TypedSections| {
                (parse(raw), Vec::new())
            },
            guide: None,
            specs: None,
            ways: &[],
            lang: None,
            grammar: None,
        };
        self.drive(prompt.into(), format, None, NoteSinks::default(), None)
            .await
    }

    /// Asks for a JSON value of type `T`, read from each reply with
    /// [`json::extract_with_report`](crate::json::extract_with_report); the
    /// ledger records the layer and repairs that gave the value
    /// ([`Attempt::json`], with an empty header). No format guide is
    /// appended: say in the prompt what JSON you expect.
    pub async fn run_json<T: serde::de::DeserializeOwned>(
        &self,
        prompt: impl Into<Message>,
    ) -> Result<Outcome<T>, ThinkError> {
        let format = AnswerSpec {
            parse: |raw: &str, _: Option<SectionMap<'_>>, _: &mut TypedSections| {
                match crate::json::extract_with_report::<T>(raw) {
                    Ok(extracted) => {
                        let json = vec![JsonProvenance {
                            header: "",
                            report: extracted.report,
                        }];
                        (Ok(extracted.value), json)
                    }
                    Err(feedback) => (Err(feedback), Vec::new()),
                }
            },
            guide: None,
            specs: None,
            ways: &[],
            lang: None,
            grammar: None,
        };
        self.drive(prompt.into(), format, None, NoteSinks::default(), None)
            .await
    }

    /// The number of format attempts of a run: [`Think::max_attempts`], else
    /// `TWR_MAX_ATTEMPTS`, else `LLM_MAX_RETRIES`, else the default. A
    /// variable that is set but not a whole number is reported and skipped.
    fn attempts_allowed(&self) -> usize {
        if let Some(attempts) = self.max_attempts {
            return attempts;
        }
        [TWR_MAX_ATTEMPTS_ENV, MAX_ATTEMPTS_ENV]
            .into_iter()
            .find_map(attempts_from_env)
            .unwrap_or(DEFAULT_MAX_ATTEMPTS)
    }

    async fn drive<'r, U, F>(
        &'r self,
        prompt: Message,
        format: AnswerSpec<F>,
        watch: Option<stream::MakeWatch>,
        notes: NoteSinks<'r>,
        check: Option<&'r dyn check::AsyncCheck<U>>,
    ) -> Result<Outcome<U>, ThinkError>
    where
        F: for<'p> Fn(&'p str, Option<SectionMap<'p>>, &mut TypedSections) -> Parsed<U>,
    {
        let lessons = match self
            .lessons(
                &prompt,
                format.specs,
                format.ways,
                format.guide.as_deref(),
                format.lang.unwrap_or_default(),
            )
            .await
        {
            Ok(lessons) => lessons,
            Err(error) => return Err(*error),
        };
        let attachments = (!prompt.attachments().is_empty())
            .then(|| crate::model::attachment::Summary(prompt.attachments()).to_string());
        let run = Run::new(self, prompt, format, watch, notes, check, lessons);
        let span = trace::run_span(
            self.model.name(),
            run.max_attempts(),
            &format!("{:?}", self.mode),
        );
        if let Some(shown) = attachments {
            span.record("twr.attachments", tracing::field::display(shown));
        }
        let result = run.go().instrument(span.clone()).await;
        match &result {
            Ok(outcome) => {
                trace::run_ended(&span, outcome.attempts.len(), "typed");
                trace::needs_review(&span, outcome.needs_review());
            }
            Err(error) => {
                let kind = match error.kind() {
                    ThinkErrorKind::Exhausted => "exhausted",
                    ThinkErrorKind::RepeatedReply => "repeated_reply",
                    ThinkErrorKind::Budget { .. } => "budget",
                    ThinkErrorKind::Model { .. } => "model",
                };
                trace::run_ended(&span, error.attempts().len(), kind)
            }
        }
        result
    }

    /// Emits the attempt's event and calls the hook.
    fn record(&self, attempt: &Attempt) {
        tracing::info!(
            attempt = attempt.number,
            kind = ?attempt.kind,
            model = %attempt.model,
            latency_ms = attempt.latency.as_millis() as u64,
            prompt_tokens = attempt.usage.prompt_tokens,
            completion_tokens = attempt.usage.completion_tokens,
            problems = attempt.feedback.as_ref().map_or(0, |p| p.problems().len()),
            transport_retries = attempt.transport_retries.len(),
            json = %JsonSummary(&attempt.json),
            "twr attempt"
        );
        if let Some(hook) = &self.hook {
            hook(attempt);
        }
    }
}

/// The number of attempts the environment variable `name` asks for, when it
/// is set to a whole number (at least 1).
fn attempts_from_env(name: &str) -> Option<usize> {
    let value = std::env::var(name).ok()?;
    match value.trim().parse::<usize>() {
        Ok(attempts) => Some(attempts.max(1)),
        Err(_) => {
            tracing::warn!(value = %value, "{name} is not a whole number; ignoring it");
            None
        }
    }
}

impl<M: ChatModel> fmt::Debug for Think<'_, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Think")
            .field("model", &self.model.name())
            .field("system", &self.system)
            .field("history", &self.history.len())
            .field("max_attempts", &self.max_attempts)
            .field("mode", &self.mode)
            .field("max_total_tokens", &self.max_total_tokens)
            .field("max_requests", &self.max_requests)
            .field("max_duration", &self.max_duration)
            .field("retry_policy", &self.retry_policy)
            .field("on_attempt", &self.hook.is_some())
            .field("demonstrations", &self.demonstrations.len())
            .field("auto_demonstration", &self.auto_demonstration)
            .field("learn_from", &self.stores.learn_names())
            .field("learned_demonstrations", &self.learned)
            .field("focused_questions", &self.focused_questions)
            .field("feedback_wording", &self.wording)
            .field("constrain_after", &self.constrain_after)
            .field("trace_content", &self.trace_content)
            .field("on_section", &self.on_section.is_some())
            .field("early_abort", &self.early_abort)
            .field(
                "escalate_to",
                &self
                    .escalate
                    .as_ref()
                    .map(|(model, after)| (model.name(), after)),
            )
            .field("concurrency", &self.concurrency)
            .field("on_progress", &self.progress.is_some())
            .field("prices", &self.prices)
            .field("stores", &self.stores)
            .finish_non_exhaustive()
    }
}

/// The JSON provenance of an attempt for its tracing event:
/// `[Budget]=repair(trailing_comma,single_quotes) [Meta]=as_is`.
struct JsonSummary<'a>(&'a [JsonProvenance]);

impl fmt::Display for JsonSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, json) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            let header = if json.header.is_empty() {
                "reply"
            } else {
                json.header
            };
            write!(f, "{header}={}", json.report.layer)?;
            if !json.report.repairs.is_empty() {
                let repairs: Vec<&str> = json.report.repairs.iter().map(|r| r.as_str()).collect();
                write!(f, "({})", repairs.join(","))?;
            }
        }
        Ok(())
    }
}
