//! [`Think::run_many`](super::Think::run_many): many prompts with bounded
//! concurrency, one result per prompt in input order, and a progress hook.

use futures_util::stream::{self, StreamExt as _};

use super::error::ThinkError;
use super::outcome::Outcome;
use super::Think;
use crate::model::{ChatModel, Message, Usage};
use crate::sections::Sections;

/// Runs at once in [`Think::run_many`] unless
/// [`Think::concurrency`] says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// Where a batch of [`Think::run_many`] stands, after each run ends.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct BatchProgress {
    /// Runs ended so far (with a value or an error).
    pub done: usize,
    /// Runs in the batch.
    pub total: usize,
    /// Runs ended without a value so far.
    pub failed: usize,
    /// Tokens used so far by the ended runs, failed ones included.
    pub usage: Usage,
    /// What the ended runs cost so far, failed ones included, when
    /// [`Think::prices`](super::Think::prices) priced their models (`None`
    /// while no run had a priced model).
    pub cost: Option<f64>,
}

/// The callback of [`Think::on_progress`].
pub(super) type ProgressHook<'a> = std::sync::Arc<dyn Fn(&BatchProgress) + Send + Sync + 'a>;

impl<M: ChatModel> Think<'_, M> {
    /// Runs [`run`](Self::run) for every prompt, at most
    /// [`concurrency`](Self::concurrency) at a time (default
    /// [`DEFAULT_CONCURRENCY`]), and returns one result per prompt, in the
    /// order of `prompts`. A failed run never stops the others. Every run
    /// shares this `Think`'s options and model (so a
    /// [`Limited`](crate::Limited) or [`CircuitBreaker`](crate::CircuitBreaker)
    /// model is shared by the whole batch); the
    /// [`on_progress`](Self::on_progress) hook hears of each run as it ends.
    ///
    /// All runs are driven by the returned future itself, on the caller's
    /// task: dropping it stops every run and leaves no task behind.
    ///
    /// ```
    /// use twr_runtime::{ScriptedModel, Think};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # #[derive(Debug, twr_runtime::Sections)] struct Answer { number: u32 }
    /// let model = ScriptedModel::new(["[Number]\n4", "[Number]\n4", "[Number]\n4"]);
    /// let results = Think::new(&model)
    ///     .concurrency(2)
    ///     .on_progress(|p| eprintln!("{}/{} done, {} failed", p.done, p.total, p.failed))
    ///     .run_many::<Answer>(["2 + 2?", "3 + 1?", "5 - 1?"])
    ///     .await;
    /// assert_eq!(results.len(), 3);
    /// assert!(results.iter().all(|r| r.as_ref().is_ok_and(|o| o.value.number == 4)));
    /// # });
    /// ```
    pub async fn run_many<T: Sections>(
        &self,
        prompts: impl IntoIterator<Item = impl Into<Message>>,
    ) -> Vec<Result<Outcome<T>, ThinkError>> {
        let prompts: Vec<Message> = prompts.into_iter().map(Into::into).collect();
        let total = prompts.len();
        let limit = self.concurrency.unwrap_or(DEFAULT_CONCURRENCY).max(1);
        let mut results: Vec<Option<Result<Outcome<T>, ThinkError>>> =
            (0..total).map(|_| None).collect();
        let mut progress = BatchProgress {
            done: 0,
            total,
            failed: 0,
            usage: Usage::default(),
            cost: None,
        };
        let mut runs = stream::iter(prompts.into_iter().enumerate())
            .map(|(index, prompt)| async move { (index, self.run::<T>(prompt).await) })
            .buffer_unordered(limit);
        while let Some((index, result)) = runs.next().await {
            progress.done += 1;
            let cost = match &result {
                Ok(outcome) => {
                    progress.usage += outcome.usage;
                    outcome.cost()
                }
                Err(error) => {
                    progress.failed += 1;
                    progress.usage += error.usage();
                    error.cost()
                }
            };
            progress.cost = crate::cost::sum_known([progress.cost, cost]);
            #[cfg(feature = "journal")]
            if let Some(job) = &self.stores.job {
                let record = crate::journal::RecordedOutcome::of(index, &result);
                if let Err(error) = job.record_outcome(&record) {
                    // The replies are recorded already: a resumption still
                    // replays this run, so the batch goes on.
                    tracing::warn!(index, %error, "twr could not record a run's outcome");
                }
            }
            if let Some(hook) = &self.progress {
                hook(&progress);
            }
            results[index] = Some(result);
        }
        // Every slot is filled: the stream yields each run once.
        results.into_iter().flatten().collect()
    }
}
