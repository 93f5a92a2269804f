//! A request's deadline ([`Request::deadline`](super::Request::deadline))
//! kept by a model that cannot pass it on: a model over a client of its
//! own (an adapter) ends its reply there, keeping what arrived, as the
//! built-in HTTP clients do.

use std::future::Future;

use futures_util::{Stream, StreamExt as _};
use tokio::time::Instant;

use super::chat::{BoxStream, Delta};
use super::error::ModelError;

/// `future`'s output, or [`ModelError::Timeout`] (the time since
/// `started`) once `deadline` passes first; `future` alone without a
/// deadline. For the start of a call: sending the request, waiting for the
/// first byte.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::time::Duration;
/// use tokio::time::Instant;
/// use twr_runtime::model::within_deadline;
/// use twr_runtime::ModelError;
///
/// let started = Instant::now();
/// let deadline = Some(started + Duration::from_millis(20));
/// let slow = tokio::time::sleep(Duration::from_secs(60));
/// let result = within_deadline(deadline, started, slow).await;
/// assert!(matches!(result, Err(ModelError::Timeout(waited)) if waited == Duration::from_millis(20)));
/// let quick = within_deadline(deadline, started, async { 7 }).await;
/// assert!(matches!(quick, Ok(7)));
/// # });
/// ```
pub async fn within_deadline<T>(
    deadline: Option<Instant>,
    started: Instant,
    future: impl Future<Output = T>,
) -> Result<T, ModelError> {
    match deadline {
        None => Ok(future.await),
        Some(deadline) => tokio::time::timeout_at(deadline, future)
            .await
            .map_err(|_| ModelError::Timeout(deadline.saturating_duration_since(started))),
    }
}

/// `deltas`, ended by a [`ModelError::Timeout`] item when `deadline`
/// passes before the next piece: the caller keeps the pieces that arrived
/// (the loop then has them as [`ModelError::Incomplete`]). Without a
/// deadline, `deltas` as they are.
pub fn until_deadline(
    deadline: Option<Instant>,
    started: Instant,
    deltas: impl Stream<Item = Result<Delta, ModelError>> + Send + 'static,
) -> BoxStream<'static, Result<Delta, ModelError>> {
    let deltas = Box::pin(deltas);
    futures_util::stream::unfold(Some(deltas), move |state| async move {
        let mut deltas = state?;
        match within_deadline(deadline, started, deltas.next()).await {
            Ok(Some(item)) => Some((item, Some(deltas))),
            Ok(None) => None,
            Err(timeout) => Some((Err(timeout), None)),
        }
    })
    .boxed()
}
