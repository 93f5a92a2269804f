//! The parts of a run of [`Think`](crate::Think) you reach for now and then.
//!
//! What a program names day to day ([`Think`](crate::Think),
//! [`Outcome`](crate::Outcome), [`Attempt`](crate::Attempt),
//! [`ThinkError`](crate::ThinkError), [`Progress`](crate::Progress), ...)
//! is at the crate root. Here are the details of the ledger ([`Ending`],
//! [`SectionSource`], [`FailedRequest`], [`FailedCall`], [`Sample`]), the budget that
//! stopped a run ([`BudgetLimit`]), the sections a streamed run completed so
//! far ([`Completed`]), a `Think` with an asynchronous check
//! ([`Checked`], from [`Think::check`](crate::Think::check)), the progress of
//! [`Think::run_many`](crate::Think::run_many) ([`RunsProgress`]), and the
//! loop's defaults and environment variables ([`DEFAULT_MAX_ATTEMPTS`],
//! [`DEFAULT_MAX_DURATION`], [`DEFAULT_CONCURRENCY`],
//! [`TWR_MAX_ATTEMPTS_ENV`], [`MAX_ATTEMPTS_ENV`]).
//!
//! ```
//! use twr_runtime::run::{Ending, DEFAULT_MAX_ATTEMPTS};
//! use twr_runtime::{ScriptedModel, Sections, Think};
//!
//! #[derive(Sections)]
//! struct Answer {
//!     answer: u32,
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let model = ScriptedModel::new(["[Answer]\n42"]);
//! let outcome = Think::new(&model).run::<Answer>("What is 6 times 7?").await?;
//! assert_eq!(outcome.ending, Ending::FirstTry);
//! assert_eq!(DEFAULT_MAX_ATTEMPTS, 3);
//! # Ok::<(), twr_runtime::ThinkError>(())
//! # }).unwrap();
//! ```

pub use crate::think::{
    BudgetLimit, Checked, Completed, Ending, FailedCall, FailedRequest, Learned, RunsProgress,
    Sample, SectionSource, DEFAULT_CONCURRENCY, DEFAULT_LEARNED, DEFAULT_MAX_ATTEMPTS,
    DEFAULT_MAX_DURATION, MAX_ATTEMPTS_ENV, TWR_MAX_ATTEMPTS_ENV,
};
