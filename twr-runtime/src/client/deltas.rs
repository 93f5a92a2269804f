//! A streamed [`ChatModel::call`](crate::ChatModel::call) of
//! [`HttpModel`]: the reply handed out as [`Delta`]s while the server sends
//! it, event by event, read by the same [`DecodedReader`] as `chat`'s reply.

use std::time::Instant;

use futures_util::stream::{self, StreamExt as _};
use tracing::Instrument as _;

use super::http_model::{HttpModel, Source};
use super::otel;
use super::provider::Provider;
use super::reply::DecodedReader;
use crate::model::{BoxFuture, Delta, ModelError, Request, Response};

/// Where a streamed call is.
enum State<'a, P: Provider> {
    /// Reading the response.
    Reading(Box<Reading<'a, P>>),
    /// Done: the stream has ended.
    Over,
}

/// A response being read, and what it said so far.
struct Reading<'a, P: Provider> {
    source: Source<'a, P>,
    reader: DecodedReader,
}

/// The streamed call of `model` for `request`'s messages (with its
/// grammar, as the client's dialect says), once the response has started:
/// content and reasoning as they arrive, then [`Delta::Done`] with the
/// usage and finish reason, or an error; and the rate limits the
/// response's headers gave. A failure to start is the future's error. The
/// caller's deadline, when it comes before the client's timeout, is the
/// call's.
/// Dropping the stream drops the response, which closes the connection: the
/// server stops generating.
pub(crate) fn deltas<'a, P: Provider>(
    model: &'a HttpModel<P>,
    request: Request<'a>,
) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
    let messages = request.messages;
    let span = otel::call_span::<P>(
        &model.base_url,
        &model.model,
        &model.options,
        messages.len(),
        true,
    );
    let started = Instant::now();
    let reading_span = span.clone();
    let open = async move {
        let (source, limits) = match model.open_with_limits(request).await {
            Ok(opened) => opened,
            Err(error) => {
                trace_failure(&error, started);
                otel::record(&tracing::Span::current(), otel::Ended::Failed(&error));
                return Err(error);
            }
        };
        let reader = match source {
            // A server that ignored the request to stream sent one
            // document: its reply is handed out whole, as `chat` reads it.
            Source::Whole { .. } => DecodedReader::default(),
            Source::Events(_) => DecodedReader::streaming(),
        }
        .scrubbing(source.secrets());
        let reading = State::Reading(Box::new(Reading { source, reader }));
        let batches = stream::unfold(reading, move |state| {
            let span = reading_span.clone();
            async move {
                let (batch, next) = step(state, started).await?;
                Some((stream::iter(batch), next))
            }
            .instrument(span)
        });
        Ok(Response::new(batches.flatten().boxed()).with_rate_limits(limits))
    };
    Box::pin(open.instrument(span))
}

/// One step: the deltas the next item of the response gave, and the state
/// after it; `None` once the stream has ended.
async fn step<'a, P: Provider>(
    state: State<'a, P>,
    started: Instant,
) -> Option<(Vec<Result<Delta, ModelError>>, State<'a, P>)> {
    let (mut source, mut reader) = match state {
        State::Over => return None,
        State::Reading(reading) => (reading.source, reading.reader),
    };
    let mut decoded = Vec::new();
    let more = source.next(&mut decoded).await;
    decoded.into_iter().for_each(|item| reader.add(item));
    match more {
        Ok(true) => {
            let batch = reader.take_deltas().into_iter().map(Ok).collect();
            let reading = Reading { source, reader };
            Some((batch, State::Reading(Box::new(reading))))
        }
        Ok(false) => {
            let response_model = reader.response_model().map(str::to_string);
            let batch = reader.finish_stream();
            match batch.last() {
                Some(Ok(Delta::Done {
                    usage,
                    finish_reason,
                })) => tracing::debug!(
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    prompt_tokens = usage.prompt_tokens,
                    completion_tokens = usage.completion_tokens,
                    finish_reason = ?finish_reason,
                    "model replied"
                ),
                Some(Err(error)) => trace_failure(error, started),
                _ => {}
            }
            let ended = match batch.last() {
                Some(Ok(Delta::Done {
                    usage,
                    finish_reason,
                })) => Some(otel::Ended::Reply {
                    usage: *usage,
                    finish_reason: finish_reason.as_ref(),
                    response_model: response_model.as_deref(),
                }),
                Some(Err(error)) => Some(otel::Ended::Failed(error)),
                _ => None,
            };
            if let Some(ended) = ended {
                otel::record(&tracing::Span::current(), ended);
            }
            Some((batch, State::Over))
        }
        Err(error) => {
            trace_failure(&error, started);
            otel::record(&tracing::Span::current(), otel::Ended::Failed(&error));
            let mut batch: Vec<_> = reader.take_deltas().into_iter().map(Ok).collect();
            batch.push(Err(error));
            Some((batch, State::Over))
        }
    }
}

/// The call's failure, as `chat` reports it (server text already scrubbed).
fn trace_failure(error: &ModelError, started: Instant) {
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        transient = error.is_transient(),
        error = %error,
        "model call failed"
    );
}
