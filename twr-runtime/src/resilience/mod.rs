//! Staying up when model servers do not: [`ChatModel`](crate::ChatModel)
//! wrappers that compose with every client and with each other.
//!
//! - [`Fallback`](crate::Fallback): tries its models in order; a transient failure (after a
//!   model's own retries) moves to the next, a request that cannot succeed
//!   (401, 400) is reported at once with the failing model's name.
//! - [`CircuitBreaker`](crate::CircuitBreaker): after `k` transient failures in a row, stops
//!   calling a model for a cooldown (or the server's `Retry-After`, whichever
//!   is longer) and fails fast with [`ModelError::Unavailable`](crate::ModelError::Unavailable),
//!   whose source is a [`CircuitOpen`];
//!   then one probe call decides whether it closes. Inside a [`Fallback`](crate::Fallback),
//!   an open breaker sends traffic straight to the next model.
//! - [`Limited`](crate::Limited): concurrent requests, requests per minute and tokens per
//!   minute shared by every run, waiting for capacity rather than failing,
//!   and slowed down by the server's rate-limit headers ([`RateLimits`](crate::model::RateLimits)).
//!
//! Each wrapper implements the one seam of a model,
//! [`ChatModel::call`](crate::ChatModel::call), so one method serves whole
//! and streamed calls alike; a wrapper of your own does the same (see
//! [`crate::model`]).
//!
//! ```no_run
//! # #[cfg(feature = "__client")]
//! # fn main() {
//! use twr_runtime::{Anthropic, ChatModel, CircuitBreaker, Fallback, Limited, OpenAiCompatible};
//!
//! let primary = CircuitBreaker::new(Limited::new(Anthropic::new("sk-ant-...", "claude-haiku-4-5")).max_concurrent(8));
//! let backup = OpenAiCompatible::new("http://127.0.0.1:8088/v1", "local");
//! let model = Fallback::new(vec![Box::new(primary) as Box<dyn ChatModel>, Box::new(backup)]);
//! # }
//! # #[cfg(not(feature = "__client"))]
//! # fn main() {}
//! ```

pub(crate) mod breaker;
pub(crate) mod fallback;
#[cfg(feature = "limits")]
pub(crate) mod limited;

// The wrappers themselves ([`Fallback`](crate::Fallback),
// [`CircuitBreaker`](crate::CircuitBreaker), [`Limited`](crate::Limited))
// live at the crate root, and only there ([`RateLimits`](crate::model::RateLimits),
// which `Limited` reads, is the model's: `model::RateLimits`); this module
// holds their defaults and the breaker's error.
pub use breaker::{CircuitOpen, DEFAULT_COOLDOWN, DEFAULT_THRESHOLD};
