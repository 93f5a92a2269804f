//! [`Limited`]: shared limits on concurrent requests, requests per minute and
//! tokens per minute, slowed down further by the server's rate-limit headers.

use std::collections::VecDeque;
use std::fmt;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::stream::StreamExt as _;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::Instant;

use crate::model::{BoxFuture, ChatModel, Delta, Message, ModelError, Request, Response, Usage};

/// The window tokens per minute are counted over.
const MINUTE: Duration = Duration::from_secs(60);

/// A [`ChatModel`] wrapper that keeps its model within limits shared by
/// every clone and every run that uses it: at most `n` requests at once
/// ([`max_concurrent`](Self::max_concurrent), a
/// [`tokio::sync::Semaphore`]), requests per minute
/// ([`requests_per_minute`](Self::requests_per_minute), a
/// [`governor`] rate limiter) and tokens per minute
/// ([`tokens_per_minute`](Self::tokens_per_minute)). A call waits for
/// capacity; it never fails because of a limit.
///
/// The server's own rate-limit headers (see [`RateLimits`](crate::model::RateLimits)) slow it down
/// further: when a response says the requests or tokens left are zero, or
/// a failure asks for a pause (`Retry-After` on a 429, 503 or 529), no new
/// call starts until then, so the next call does not meet a 429.
///
/// Set the limits before cloning: clones share them.
///
/// ```
/// use twr_runtime::{CircuitBreaker, Limited, OpenAiCompatible};
///
/// let client = OpenAiCompatible::new("http://127.0.0.1:8088/v1", "local");
/// let model = CircuitBreaker::new(
///     Limited::new(client)
///         .max_concurrent(8)
///         .requests_per_minute(500)
///         .tokens_per_minute(200_000),
/// );
/// ```
pub struct Limited<M> {
    model: Arc<M>,
    concurrency: Option<Arc<Semaphore>>,
    requests: Option<Arc<DefaultDirectRateLimiter>>,
    tokens: Option<Arc<Mutex<TokenWindow>>>,
    /// No call starts before this instant (the server asked for a pause).
    paused_until: Arc<Mutex<Option<Instant>>>,
    limits: Settings,
}

/// The limits as set, for `Debug`.
#[derive(Debug, Clone, Copy, Default)]
struct Settings {
    max_concurrent: Option<usize>,
    requests_per_minute: Option<u32>,
    tokens_per_minute: Option<u64>,
}

impl<M> Clone for Limited<M> {
    fn clone(&self) -> Self {
        Limited {
            model: Arc::clone(&self.model),
            concurrency: self.concurrency.clone(),
            requests: self.requests.clone(),
            tokens: self.tokens.clone(),
            paused_until: Arc::clone(&self.paused_until),
            limits: self.limits,
        }
    }
}

impl<M: ChatModel> Limited<M> {
    /// Wraps `model` with no limits of its own yet: only the server's
    /// rate-limit headers slow it down.
    pub fn new(model: M) -> Self {
        Limited {
            model: Arc::new(model),
            concurrency: None,
            requests: None,
            tokens: None,
            paused_until: Arc::new(Mutex::new(None)),
            limits: Settings::default(),
        }
    }

    /// At most `n` requests in flight at once (at least 1).
    pub fn max_concurrent(mut self, n: usize) -> Self {
        let n = n.max(1);
        self.concurrency = Some(Arc::new(Semaphore::new(n)));
        self.limits.max_concurrent = Some(n);
        self
    }

    /// At most `n` requests started per minute (at least 1), spread evenly:
    /// one every `60 s / n`, the first at once. (No burst: a burst of `n`
    /// followed by the steady rate would start up to `2n` requests in the
    /// first minute, which is what a server's per-minute limit refuses.)
    pub fn requests_per_minute(mut self, n: u32) -> Self {
        let n = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::per_minute(n).allow_burst(NonZeroU32::MIN);
        self.requests = Some(Arc::new(RateLimiter::direct(quota)));
        self.limits.requests_per_minute = Some(n.get());
        self
    }

    /// At most `n` tokens (prompt and completion, as the server reports
    /// them) per rolling minute (at least 1). A call starts only while the
    /// tokens of the last minute, plus an estimate for the calls in flight
    /// (their prompt's bytes / 4), are under `n`.
    pub fn tokens_per_minute(mut self, n: u64) -> Self {
        let n = n.max(1);
        self.tokens = Some(Arc::new(Mutex::new(TokenWindow::new(n))));
        self.limits.tokens_per_minute = Some(n);
        self
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.model
    }

    /// Waits until a call may start: a free slot (held by the returned
    /// admission until it is dropped, also when a call's future is), the
    /// end of any pause the server asked for, its turn in the requests per
    /// minute, and room for its estimated tokens.
    async fn admit(&self, messages: &[Message]) -> Admission<'_> {
        let permit = match &self.concurrency {
            // The semaphore is never closed, so acquiring cannot fail.
            Some(semaphore) => semaphore.acquire().await.ok(),
            None => None,
        };
        self.wait_for_server().await;
        if let Some(requests) = &self.requests {
            requests.until_ready().await;
        }
        let reserved = match &self.tokens {
            Some(window) => Some(reserve(window, estimate(messages)).await),
            None => None,
        };
        Admission {
            _permit: permit,
            reserved,
        }
    }

    /// A call ended with a reply: its tokens replace the estimate.
    fn finished(&self, admission: &Admission<'_>, usage: Usage) {
        self.settle(admission, usage.total_tokens);
    }

    /// A call failed: it used no tokens we know of, and a transient failure
    /// may ask for a pause (`Retry-After`).
    fn failed(&self, admission: &Admission<'_>, error: &ModelError) {
        self.settle(admission, 0);
        if let Some(pause) = error.retry_after().filter(|_| error.is_transient()) {
            self.pause_for(pause);
        }
    }

    fn settle(&self, admission: &Admission<'_>, tokens: u64) {
        if let (Some(window), Some(id)) = (&self.tokens, admission.reserved) {
            lock(window).settle(id, tokens);
        }
    }

    /// Holds back new calls for `pause` (never shortening a longer pause).
    fn pause_for(&self, pause: Duration) {
        let until = Instant::now() + pause;
        let mut paused = lock(&self.paused_until);
        if paused.is_none_or(|at| at < until) {
            tracing::debug!(
                model = self.model.name(),
                pause_ms = pause.as_millis() as u64,
                "rate limit: holding back new calls"
            );
            *paused = Some(until);
        }
    }

    /// Sleeps while a pause the server asked for lasts.
    async fn wait_for_server(&self) {
        loop {
            let until = *lock(&self.paused_until);
            match until {
                Some(at) if at > Instant::now() => tokio::time::sleep_until(at).await,
                _ => return,
            }
        }
    }
}

/// A call let through: its concurrency slot and its token reservation.
struct Admission<'a> {
    _permit: Option<SemaphorePermit<'a>>,
    reserved: Option<u64>,
}

/// Locks a mutex whose data a panic elsewhere cannot leave inconsistent
/// (plain values, each update one assignment).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A call's tokens before the server counts them: its prompt's bytes / 4.
fn estimate(messages: &[Message]) -> u64 {
    let bytes: usize = messages.iter().map(|m| m.content.len()).sum();
    (bytes / 4).max(1) as u64
}

/// Waits until the window has room for `tokens`, then reserves them.
async fn reserve(window: &Mutex<TokenWindow>, tokens: u64) -> u64 {
    loop {
        let wait = {
            let mut window = lock(window);
            match window.try_reserve(Instant::now(), tokens) {
                Ok(id) => return id,
                Err(wait) => wait,
            }
        };
        tokio::time::sleep(wait).await;
    }
}

/// The tokens of the last minute, by call.
///
/// Written by hand rather than with `governor`: a rate limiter must be told
/// a call's cost before it starts, but a call's tokens are known only when
/// the reply reports them. So each call reserves an estimate, and its entry
/// is settled to the real count when it ends; entries older than a minute
/// drop out.
struct TokenWindow {
    per_minute: u64,
    /// (id, when it started, tokens), oldest first.
    entries: VecDeque<(u64, Instant, u64)>,
    next_id: u64,
}

impl TokenWindow {
    fn new(per_minute: u64) -> Self {
        TokenWindow {
            per_minute,
            entries: VecDeque::new(),
            next_id: 0,
        }
    }

    /// Reserves `tokens` now, or says how long to wait before trying again.
    /// A call larger than the whole limit goes through once the window is
    /// empty, rather than never.
    fn try_reserve(&mut self, now: Instant, tokens: u64) -> Result<u64, Duration> {
        while let Some(&(_, at, _)) = self.entries.front() {
            if now.duration_since(at) >= MINUTE {
                self.entries.pop_front();
            } else {
                break;
            }
        }
        let used: u64 = self.entries.iter().map(|&(_, _, n)| n).sum();
        if self.entries.is_empty() || used + tokens <= self.per_minute {
            let id = self.next_id;
            self.next_id += 1;
            self.entries.push_back((id, now, tokens));
            return Ok(id);
        }
        // Room comes when the oldest entry leaves the window.
        let (_, oldest, _) = self.entries[0];
        Err((oldest + MINUTE).saturating_duration_since(now))
    }

    /// The call `id` used `tokens` in all (its estimate is replaced).
    fn settle(&mut self, id: u64, tokens: u64) {
        if let Ok(at) = self.entries.binary_search_by_key(&id, |&(id, _, _)| id) {
            self.entries[at].2 = tokens;
        }
    }
}

impl<M: ChatModel> ChatModel for Limited<M> {
    /// The model's own response, started once the limits allow, holding its
    /// concurrency slot until the reply ends or is dropped; the tokens of
    /// its `Done` are counted. The pause the response's rate limits ask for
    /// starts when the response opens (the server counted the request
    /// then), so it holds back the next calls even while this reply is
    /// still streaming, or when it is dropped before its end.
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        Box::pin(async move {
            let admission = self.admit(request.messages).await;
            let response = match self.model.call(request).await {
                Ok(response) => response,
                Err(error) => {
                    self.failed(&admission, &error);
                    return Err(error);
                }
            };
            if let Some(pause) = response.rate_limits.pause() {
                self.pause_for(pause);
            }
            Ok(response.map_deltas(|deltas| {
                // A response of several replies has a `Done` for each, the
                // call's tokens on the first: that one settles the call.
                let mut settled = false;
                let watched = deltas.inspect(move |item| match item {
                    Ok(Delta::Done { usage, .. }) if !settled => {
                        settled = true;
                        self.finished(&admission, *usage);
                    }
                    Ok(_) => {}
                    Err(error) => self.failed(&admission, error),
                });
                watched.boxed()
            }))
        })
    }

    fn streams(&self) -> bool {
        self.model.streams()
    }

    fn takes_grammar(&self) -> Option<crate::grammar::Format> {
        self.model.takes_grammar()
    }

    fn answers_n(&self) -> bool {
        self.model.answers_n()
    }

    fn reply_token_limit(&self) -> Option<u32> {
        self.model.reply_token_limit()
    }

    fn name(&self) -> &str {
        self.model.name()
    }

    fn request_options(&self) -> Option<serde_json::Value> {
        self.model.request_options()
    }
}

impl<M: fmt::Debug> fmt::Debug for Limited<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Limited")
            .field("model", &self.model)
            .field("max_concurrent", &self.limits.max_concurrent)
            .field("requests_per_minute", &self.limits.requests_per_minute)
            .field("tokens_per_minute", &self.limits.tokens_per_minute)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_window_waits_for_the_oldest_call_to_leave_it() {
        let start = Instant::now();
        let mut window = TokenWindow::new(100);
        let a = window.try_reserve(start, 30).unwrap();
        let b = window
            .try_reserve(start + Duration::from_secs(10), 30)
            .unwrap();
        // The first call really used 60: only 10 tokens are left.
        window.settle(a, 60);
        let at = start + Duration::from_secs(20);
        assert_eq!(window.try_reserve(at, 20), Err(Duration::from_secs(40)));
        // A minute after the first call its 60 tokens are gone.
        let later = start + Duration::from_secs(60);
        assert!(window.try_reserve(later, 20).is_ok());
        window.settle(b, 30);
        assert_eq!(window.entries.len(), 2);
        // A call over the whole limit waits for an empty window, then goes.
        let huge = start + Duration::from_secs(61);
        assert_eq!(window.try_reserve(huge, 500), Err(Duration::from_secs(9)));
        assert!(window
            .try_reserve(start + Duration::from_secs(121), 500)
            .is_ok());
    }
}
