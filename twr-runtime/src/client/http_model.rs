//! [`HttpModel`]: the one HTTP chat model. It carries everything providers
//! share (options and their builder, sending, reading, errors, tracing) and
//! a small [`Provider`] adapter for what differs.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use serde_json::Value;
use tracing::Instrument;

use super::body::BodyReader;
use super::fault::{self, Subject};
use super::http::{self, Deadline};
use super::options::Options;
use super::otel;
use super::provider::{Decoded, Flow, Provider, QueryValue, RequestHead, RequestSpec};
use super::rate_limits::ResponseHeaders;
use super::reply::{ChoiceReaders, DecodedReader};
use super::secret::{redact_url, ApiKey, Secrets};
use super::sse::{SseDecoder, SseEvent};
use crate::grammar::{Dialect, Format, Grammar};
use crate::model::{
    BoxFuture, ChatModel, Message, ModelError, RateLimits, Reply, Request, Response,
};

/// A chat model behind an HTTP API, for the provider `P`.
///
/// Use it through its provider's name: [`OpenAiCompatible`](crate::OpenAiCompatible),
/// [`Gemini`](crate::Gemini) or [`Anthropic`](crate::Anthropic); or with a
/// [`Provider`] of your own, through [`with_provider`](Self::with_provider)
/// (see [the module documentation](super#your-own-provider)). Every provider
/// has the same builder for the shared options below, streams or not, moves
/// reasoning out of the visible answer, caps the response size, enforces a
/// whole-request time limit, and turns every failure into a [`ModelError`]
/// whose [`is_transient`](ModelError::is_transient) tells the retry loop
/// whether asking again can help. Build it once and share it; it is cheap to clone.
///
/// Credentials never leave the process by accident: `Debug` shows
/// `[redacted]` for the key and for a user name or password in the base URL,
/// server text quoting them has them replaced before it reaches an error or a
/// log, and the shared HTTP client follows redirects only within the origin
/// of the base URL.
#[derive(Clone)]
pub struct HttpModel<P> {
    pub(crate) provider: P,
    pub(crate) base_url: String,
    pub(crate) model: String,
    pub(crate) api_key: Option<ApiKey>,
    pub(crate) options: Options,
}

impl<P: Provider> HttpModel<P> {
    /// A client for `model` at `base_url` that speaks through `provider`,
    /// with default options and no key; the adapter's
    /// [`head`](Provider::head) says which path is appended to `base_url`.
    ///
    /// The URL is checked when the first request is made, so building never
    /// fails; a bad URL gives [`ModelError::Config`] then.
    pub fn with_provider(
        provider: P,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        HttpModel {
            provider,
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            options: Options::default(),
        }
    }

    /// Sends `key` with every request, where the provider puts it: a bearer
    /// token to an OpenAI-compatible server, `x-goog-api-key` to Gemini,
    /// `x-api-key` to Anthropic (see [`Provider::head`]). An empty or blank
    /// key is no key, for every provider.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = ApiKey::new(key);
        self
    }

    /// Streams the reply over server-sent events (default: off). `chat`'s
    /// result is the same [`Reply`]; streaming keeps long generations alive
    /// through proxies that cut idle connections, and when a stream breaks,
    /// the text that arrived is kept in [`ModelError::Incomplete`]. It also
    /// makes [`chat_stream`](ChatModel::chat_stream) hand out the reply
    /// item by item as it arrives (and [`streams`](ChatModel::streams)
    /// true), so the loop reads each section the moment it is complete and
    /// can stop a reply that is already wrong.
    pub fn stream(mut self, stream: bool) -> Self {
        self.options.stream = stream;
        self
    }

    /// Sampling temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.options.temperature = Some(temperature);
        self
    }

    /// The most tokens the reply may have (`max_tokens`, Gemini's
    /// `maxOutputTokens`).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.options.max_tokens = Some(max_tokens);
        self
    }

    /// A sampling seed, for servers that honour it.
    pub fn seed(mut self, seed: u64) -> Self {
        self.options.seed = Some(seed);
        self
    }

    /// Tells the client how its server takes a grammar the model must
    /// follow while it writes, so a request that carries one
    /// ([`Request::grammar`], set by the loop's constrained attempts,
    /// [`Think::constrain_after`](crate::Think::constrain_after)) sends it
    /// in the field that server documents; and makes
    /// [`takes_grammar`](ChatModel::takes_grammar) say so, so by default
    /// the loop constrains the last attempt of a run.
    ///
    /// Without it no grammar is ever sent, whatever a request carries: a
    /// server that does not know the field must never receive one.
    ///
    /// | Dialect | Servers | Field |
    /// |---|---|---|
    /// | [`LlamaCpp`](Dialect::LlamaCpp) | llama.cpp's server, llama-cpp-python | `grammar`: GBNF |
    /// | [`Vllm`](Dialect::Vllm) | vLLM 0.12 and later | `structured_outputs: {"grammar": ...}`: GBNF |
    /// | [`Sglang`](Dialect::Sglang) | SGLang | `ebnf`: GBNF |
    /// | [`MistralRs`](Dialect::MistralRs) | mistral.rs | `grammar: {"type": "lark", "value": ...}` |
    /// | [`JsonSchema`](Dialect::JsonSchema) | OpenAI, Ollama, servers with OpenAI's structured outputs | `response_format: {"type": "json_schema", ...}` |
    /// | [`JsonSchema`](Dialect::JsonSchema) | [`Anthropic`](crate::Anthropic) | `output_config: {"format": {"type": "json_schema", ...}}` |
    /// | [`JsonSchema`](Dialect::JsonSchema) | [`Gemini`](crate::Gemini) | `generationConfig.responseJsonSchema` |
    ///
    /// A dialect the provider's API does not take (any but `JsonSchema`
    /// for Anthropic and Gemini) fails the constrained request with
    /// [`ModelError::Config`]. A server that refuses the request with the
    /// field (a 400 or 422) fails with [`ModelError::Status`] whose message
    /// names the field and the dialect, with the server's own words; it is
    /// not retried.
    ///
    /// ```
    /// use twr_runtime::grammar::{Dialect, Format};
    /// use twr_runtime::{ChatModel, OpenAiCompatible};
    ///
    /// let local = OpenAiCompatible::new("http://127.0.0.1:8080/v1", "smollm2")
    ///     .grammar(Dialect::LlamaCpp);
    /// assert_eq!(local.takes_grammar(), Some(Format::Gbnf));
    /// assert_eq!(OpenAiCompatible::new("http://127.0.0.1:8080/v1", "m").takes_grammar(), None);
    /// ```
    pub fn grammar(mut self, dialect: Dialect) -> Self {
        self.options.grammar = Some(dialect);
        self
    }

    /// Tells the client whether its server answers several replies to one
    /// request, so [`answers_n`](ChatModel::answers_n) says so and the loop's
    /// samples ([`Think::samples`](crate::Think::samples)) are one request
    /// asking for `k` replies, not `k` requests: the prompt is sent, read
    /// and paid for once. Such a request is read whole, never streamed.
    ///
    /// | Server | Field | Default |
    /// |---|---|---|
    /// | OpenAI | `n` | off: [`OpenAiCompatible`](crate::OpenAiCompatible) speaks to many servers; `.takes_n(true)` |
    /// | vLLM, SGLang | `n` | off; `.takes_n(true)` |
    /// | llama.cpp's server | refuses any `n` but 1 ("Only one completion choice is allowed") | off; leave it |
    /// | llama-cpp-python | ignores `n`, answers one | off; leave it |
    /// | [`Gemini`](crate::Gemini) | `generationConfig.candidateCount` | on (Gemini 1.0 models took no more than 1) |
    /// | [`Anthropic`](crate::Anthropic) | none: one reply per request | has no effect |
    ///
    /// A server told it takes `n` that answers fewer replies than asked
    /// costs nothing wrong: the loop asks the missing ones one by one.
    ///
    /// ```
    /// use twr_runtime::{ChatModel, OpenAiCompatible};
    ///
    /// let vllm = OpenAiCompatible::new("http://127.0.0.1:8000/v1", "qwen").takes_n(true);
    /// assert!(vllm.answers_n());
    /// assert!(!OpenAiCompatible::new("http://127.0.0.1:8080/v1", "smollm2").answers_n());
    /// ```
    pub fn takes_n(mut self, takes_n: bool) -> Self {
        self.options.takes_n = takes_n;
        self
    }

    /// Extra fields merged into the request body, for anything this builder
    /// does not name (`top_p`, `response_format`, Gemini's `safetySettings`,
    /// a provider's own options). Objects merge deeply, later calls win, and
    /// a `null` removes a field. It must be a JSON object, or requests fail
    /// with [`ModelError::Config`].
    pub fn extra(mut self, extra: Value) -> Self {
        self.options.add_extra(extra);
        self
    }

    /// The time limit for one whole request, reading the reply included
    /// (default: 10 minutes). Exceeding it gives [`ModelError::Timeout`]
    /// (inside [`ModelError::Incomplete`] when part of a stream arrived).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// The most bytes a response may have (default: 16 MiB). A larger one
    /// gives [`ModelError::TooLarge`].
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.options.max_response_bytes = limit;
        self
    }

    /// Uses `client` for requests (proxies, TLS roots, connection limits).
    /// By default all model clients share one, which follows redirects only
    /// within the base URL's origin; a client of your own follows its own
    /// redirect policy, so give it `reqwest::redirect::Policy::none()` if the
    /// server could redirect elsewhere (reqwest's default policy drops only
    /// `Authorization` and cookies on the way, not `x-goog-api-key`).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.options.http_client = Some(client);
        self
    }

    /// The model id sent with each request.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The provider adapter.
    pub fn provider(&self) -> &P {
        &self.provider
    }

    /// The JSON body a call with `messages` sends: the provider's
    /// [`body`](Provider::body), with the [`extra`](Self::extra) fields
    /// merged in. Nothing is sent; useful to check an adapter.
    ///
    /// # Errors
    ///
    /// As a call would fail: [`ModelError::Attachment`] when an image or a
    /// document breaks the provider's [`rules`](Provider::attachment_rules),
    /// [`ModelError::Config`] when the provider cannot write a body for
    /// `messages` or the extra fields are not an object.
    pub fn request_body(&self, messages: &[Message]) -> Result<Value, ModelError> {
        self.request_body_for(Request::new(messages))
    }

    /// The JSON body a call of `request` sends: [`request_body`](Self::request_body)
    /// for its messages, with its [grammar](Request::grammar) in the field
    /// the client's [`grammar`](Self::grammar) dialect names (none without
    /// a dialect). Nothing is sent.
    ///
    /// # Errors
    ///
    /// As [`request_body`](Self::request_body), and [`ModelError::Config`]
    /// when the provider's API does not take the client's dialect.
    pub fn request_body_for(&self, request: Request<'_>) -> Result<Value, ModelError> {
        let spec = self.spec_of(&request);
        self.body(&spec).map(|(body, _)| body)
    }

    /// The body for `spec`, and the field and dialect of its grammar, when
    /// it carries one.
    fn body(&self, spec: &RequestSpec<'_>) -> Result<(Value, Option<Sent>), ModelError> {
        self.provider
            .attachment_rules()
            .check(spec.messages)
            .map_err(ModelError::Attachment)?;
        let mut body = self.provider.body(spec)?;
        let sent = match spec.grammar {
            Some((dialect, grammar)) => {
                let field = self.provider.grammar(dialect, grammar, &mut body)?;
                Some(Sent { dialect, field })
            }
            None => None,
        };
        self.options.apply_extra(&mut body)?;
        Ok((body, sent))
    }

    /// The options of `request`: [`spec`](Self::spec) with where its shared
    /// prefix ends, the replies it asks for when the client takes several
    /// (then not streamed: one reply after another is read whole) and, for
    /// one of several samples, the seed moved by the sample's number (with
    /// one seed they would all be the same reply).
    fn spec_of<'a>(&'a self, request: &Request<'a>) -> RequestSpec<'a> {
        let mut spec = self.spec(request.messages, request.grammar);
        spec.shared_prefix = request.shared_prefix;
        if self.takes_several() && request.n > 1 {
            spec.n = request.n;
            spec.stream = false;
        }
        spec.seed = spec
            .seed
            .map(|seed| seed.wrapping_add(u64::from(request.sample)));
        spec
    }

    /// The options of a call with `messages`, constrained to `grammar` when
    /// the client knows how its server takes one.
    pub(crate) fn spec<'a>(
        &'a self,
        messages: &'a [Message],
        grammar: Option<&'a Grammar>,
    ) -> RequestSpec<'a> {
        RequestSpec {
            model: &self.model,
            messages,
            stream: self.options.stream,
            temperature: self.options.temperature,
            max_tokens: self.options.max_tokens,
            seed: self.options.seed,
            grammar: self.options.grammar.zip(grammar),
            shared_prefix: 0,
            logprobs: false,
            n: 1,
        }
    }

    /// Whether the client asks its server for several replies in one
    /// response: told so, of an API that has them.
    fn takes_several(&self) -> bool {
        P::TAKES_N && self.options.takes_n
    }

    /// Everything that can fail before a byte is sent fails here, as
    /// [`ModelError::Config`]: nothing to retry. With the grammar the
    /// request carries, if any, and where its shared prefix ends.
    fn request(
        &self,
        call: Request<'_>,
    ) -> Result<(reqwest::RequestBuilder, Option<Sent>), ModelError> {
        let messages = call.messages;
        if self.model.trim().is_empty() {
            return Err(ModelError::Config("the model name is empty".into()));
        }
        if messages.is_empty() {
            return Err(ModelError::Config("no messages to send".into()));
        }
        let mut spec = self.spec_of(&call);
        spec.logprobs = call.logprobs;
        let mut head = RequestHead::new();
        self.provider
            .head(&spec, self.api_key.as_ref(), &mut head)?;
        let RequestHead {
            path,
            query,
            mut headers,
        } = head;
        let mut url = http::endpoint(&self.base_url, &path)?;
        if !query.is_empty() {
            let mut pairs = url.query_pairs_mut();
            for (name, value) in &query {
                let value = match value {
                    QueryValue::Plain(text) => text.as_str(),
                    QueryValue::Key(key) => key.expose(),
                };
                pairs.append_pair(name, value);
            }
        }
        let (body, sent) = self.body(&spec)?;
        let body = json_bytes(&body, messages)?;
        if spec.stream {
            headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        }
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let request = self.options.client()?.post(url).headers(headers).body(body);
        Ok((request, sent))
    }

    /// Sends the request for `messages` and starts reading the response
    /// (its decoded items, event by event when the server streams), and what the
    /// response's headers said about the server's rate limits.
    ///
    /// The call's deadline is the client's timeout, or the caller's
    /// deadline when that comes first: either way a reply cut off by it
    /// keeps the text that arrived.
    pub(crate) async fn open_with_limits(
        &self,
        call: Request<'_>,
    ) -> Result<(Source<'_, P>, RateLimits), ModelError> {
        let until = call.deadline;
        let (request, sent) = self.request(call)?;
        let secrets = Arc::new(Secrets::new(self.api_key.as_ref(), &self.base_url));
        let deadline = Deadline::after(self.options.timeout).until(until);
        let response = match http::send(request, deadline, &secrets).await {
            Ok(response) => response,
            Err(error) => match sent {
                Some(Sent { dialect, field }) => {
                    return Err(fault::grammar_refused(error, dialect, field))
                }
                None => return Err(error),
            },
        };
        let headers = ResponseHeaders::new(response.headers(), SystemTime::now());
        let limits = self.provider.rate_limits(&headers);
        let streamed = http::is_event_stream(&response);
        let limit = self.options.max_response_bytes;
        let body = BodyReader::new(response, limit, deadline, secrets.clone())?;
        let source = if streamed {
            Source::Events(DecodedStream::new(&self.provider, body, secrets))
        } else {
            Source::Whole {
                provider: &self.provider,
                body,
                secrets,
                done: false,
            }
        };
        Ok((source, limits))
    }

    /// The whole reply to `messages` (read from the event stream with
    /// `stream(true)`), and the response's rate limits.
    /// The whole reply of `call`, the rate limits its response's headers
    /// gave and the model the server said answered.
    async fn whole_reply(
        &self,
        call: Request<'_>,
    ) -> Result<(Reply, RateLimits, Option<String>), ModelError> {
        let (mut source, limits) = self.open_with_limits(call).await?;
        let mut reader = DecodedReader::default().scrubbing(source.secrets());
        let read = source.read_to_end(|item| reader.add(item)).await;
        match read {
            Ok(()) => {
                let response_model = reader.response_model().map(str::to_string);
                reader.finish().map(|reply| (reply, limits, response_model))
            }
            Err(source) if reader.has_text() => Err(ModelError::Incomplete {
                partial: Box::new(reader.partial()),
                source: Box::new(source),
            }),
            Err(error) => Err(error),
        }
    }
}

impl<P: Provider> HttpModel<P> {
    /// The replies of `call`, which asks for several in one response
    /// ([`RequestSpec::n`]), read whole, in order; with the rate limits its
    /// response's headers gave.
    async fn whole_replies(
        &self,
        call: Request<'_>,
    ) -> Result<(Vec<Reply>, RateLimits, Option<String>), ModelError> {
        let (mut source, limits) = self.open_with_limits(call).await?;
        let mut readers = ChoiceReaders::new(source.secrets());
        let read = source.read_to_end(|item| readers.add(item)).await;
        match read {
            Ok(()) => {
                let response_model = readers.response_model().map(str::to_string);
                readers
                    .finish()
                    .map(|replies| (replies, limits, response_model))
            }
            Err(source) if readers.has_text() => Err(ModelError::Incomplete {
                partial: Box::new(readers.partial()),
                source: Box::new(source),
            }),
            Err(error) => Err(error),
        }
    }
}

/// Where a request's grammar went: the dialect and the body's field, for
/// the error when the server refuses it.
#[derive(Clone, Copy)]
struct Sent {
    dialect: Dialect,
    field: &'static str,
}

/// `body` written as JSON into one buffer sized for the attachments'
/// base64 up front: grown by doubling instead, a body of a 5 MB image would
/// pass through buffers of 4 and 8 MiB, both live while one is copied into
/// the other.
fn json_bytes(body: &Value, messages: &[Message]) -> Result<Vec<u8>, ModelError> {
    let encoded: usize = messages
        .iter()
        .flat_map(Message::attachments)
        .filter_map(|attachment| attachment.size())
        .map(|size| size.div_ceil(3) * 4)
        .sum();
    let text: usize = messages.iter().map(|m| m.content.len()).sum();
    let mut bytes = Vec::with_capacity(encoded + text + 1024);
    serde_json::to_writer(&mut bytes, body)
        .map_err(|error| ModelError::Config(format!("the request body: {error}").into()))?;
    Ok(bytes)
}

/// A response being read as [`Decoded`]s: a stream event by event, or a
/// whole body (a server may ignore a request to stream) at once.
pub(crate) enum Source<'a, P: Provider> {
    /// An event stream.
    Events(DecodedStream<'a, P>),
    /// One JSON document.
    Whole {
        provider: &'a P,
        body: BodyReader,
        secrets: Arc<Secrets>,
        done: bool,
    },
}

impl<P: Provider> Source<'_, P> {
    /// The call's credentials, for scrubbing server text.
    pub(crate) fn secrets(&self) -> Arc<Secrets> {
        match self {
            Source::Events(stream) => stream.secrets.clone(),
            Source::Whole { secrets, .. } => secrets.clone(),
        }
    }

    /// Reads the response to its end, handing each decoded item to `add`
    /// as it arrives; on an error, what arrived before it was handed out.
    pub(crate) async fn read_to_end(
        &mut self,
        mut add: impl FnMut(Decoded),
    ) -> Result<(), ModelError> {
        let mut decoded = Vec::new();
        loop {
            let more = self.next(&mut decoded).await;
            decoded.drain(..).for_each(&mut add);
            match more {
                Ok(true) => continue,
                Ok(false) => return Ok(()),
                Err(error) => return Err(error),
            }
        }
    }

    /// Appends the next decoded items to `out`; `Ok(false)` once the response is
    /// complete. On an error, `out` still holds what arrived before it.
    pub(crate) async fn next(&mut self, out: &mut Vec<Decoded>) -> Result<bool, ModelError> {
        match self {
            Source::Events(stream) => stream.next(out).await,
            Source::Whole {
                provider,
                body,
                secrets,
                done,
            } => {
                if *done {
                    return Ok(false);
                }
                *done = true;
                let bytes = body.read_all().await?;
                decode_all(*provider, &bytes, secrets, out)?;
                Ok(false)
            }
        }
    }
}

/// Decodes a whole response body into `reader`.
#[cfg(test)]
pub(crate) fn decode_whole<P: Provider>(
    provider: &P,
    bytes: &[u8],
    secrets: &Secrets,
    reader: &mut DecodedReader,
) -> Result<(), ModelError> {
    let mut decoded = Vec::new();
    decode_all(provider, bytes, secrets, &mut decoded)?;
    decoded.into_iter().for_each(|item| reader.add(item));
    Ok(())
}

/// Decodes a whole response body into decoded items, scrubbed.
pub(crate) fn decode_all<P: Provider>(
    provider: &P,
    bytes: &[u8],
    secrets: &Secrets,
    out: &mut Vec<Decoded>,
) -> Result<(), ModelError> {
    // Decoded apart: a body that fails to decode gives nothing but its error.
    let mut decoded = Vec::new();
    provider
        .decode_reply(bytes, &mut decoded)
        .map_err(|f| fault::from_fault(provider, f, bytes, Subject::Reply, secrets))?;
    out.extend(
        decoded
            .into_iter()
            .map(|item| fault::scrub_decoded(item, secrets)),
    );
    Ok(())
}

/// A streamed response read as [`Decoded`]s, event by event: what the
/// collected [`Reply`] is built from, and what a stream of deltas to the
/// caller can be built from.
pub(crate) struct DecodedStream<'a, P: Provider> {
    provider: &'a P,
    body: BodyReader,
    sse: SseDecoder,
    events: Vec<SseEvent>,
    state: P::StreamState,
    secrets: Arc<Secrets>,
    finished: bool,
    over: bool,
}

impl<'a, P: Provider> DecodedStream<'a, P> {
    pub(crate) fn new(provider: &'a P, body: BodyReader, secrets: Arc<Secrets>) -> Self {
        DecodedStream {
            provider,
            body,
            sse: SseDecoder::new(),
            events: Vec::new(),
            state: P::StreamState::default(),
            secrets,
            finished: false,
            over: false,
        }
    }

    /// Reads the next item of the body and appends what its events said to
    /// `out`; `Ok(false)` once the stream is complete. On an error, `out`
    /// still holds what the events before it said. A stream that ends
    /// without saying why the model stopped (and without `[DONE]`) was cut
    /// short: [`ModelError::Interrupted`].
    pub(crate) async fn next(&mut self, out: &mut Vec<Decoded>) -> Result<bool, ModelError> {
        if self.over {
            return Ok(false);
        }
        let chunk = self.body.next().await?;
        match &chunk {
            Some(bytes) => self.sse.push(bytes, &mut self.events),
            None => self.sse.finish(&mut self.events),
        }
        for event in std::mem::take(&mut self.events) {
            if event.data.trim().is_empty() {
                continue;
            }
            let start = out.len();
            let flow = self.provider.decode_event(&mut self.state, &event, out);
            for item in &mut out[start..] {
                let taken = std::mem::replace(item, Decoded::Content(String::new()));
                *item = fault::scrub_decoded(taken, &self.secrets);
                self.finished |= matches!(item, Decoded::Finish(_));
            }
            let subject = if event.cut {
                Subject::CutEvent
            } else {
                Subject::Event
            };
            let flow = flow.map_err(|f| {
                let raw = event.data.as_bytes();
                fault::from_fault(self.provider, f, raw, subject, &self.secrets)
            })?;
            if flow == Flow::Done {
                self.over = true;
                return Ok(false);
            }
        }
        if chunk.is_some() {
            return Ok(true);
        }
        self.over = true;
        if self.finished {
            Ok(false)
        } else {
            Err(ModelError::Interrupted(
                format!(
                    "the stream ended before the reply was complete ({})",
                    P::UNFINISHED
                )
                .into(),
            ))
        }
    }
}

impl<P: Provider> ChatModel for HttpModel<P> {
    /// A request to stream, with [`stream(true)`](Self::stream): the reply
    /// over the server's event stream, each item handed out as it arrives,
    /// reasoning (a `reasoning_content` or `reasoning` field, a thought
    /// part, an inline `<think>` block) as [`Delta::Reasoning`], the answer
    /// as [`Delta::Content`], then [`Delta::Done`]. An empty reply or a
    /// refusal ends the stream with its error instead of `Done`; a stream
    /// that breaks ends with the failure, after the text that arrived.
    /// Dropping the stream closes the connection, so the server stops
    /// generating.
    ///
    /// Otherwise the whole reply as one item (read over the event stream
    /// with `stream(true)`, so a stream that breaks fails with
    /// [`ModelError::Incomplete`], keeping the text that arrived).
    ///
    /// Either way with the rate limits read from the response's headers
    /// by the provider ([`Provider::rate_limits`]).
    ///
    /// [`Delta::Reasoning`]: crate::Delta::Reasoning
    /// [`Delta::Content`]: crate::Delta::Content
    /// [`Delta::Done`]: crate::Delta::Done
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let messages = request.messages;
        let several = self.takes_several() && request.n > 1;
        if request.stream && self.options.stream && !several {
            return super::deltas::deltas(self, request);
        }
        if several {
            return self.call_several(request);
        }
        let span = otel::call_span::<P>(
            &self.base_url,
            &self.model,
            &self.options,
            messages.len(),
            false,
        );
        Box::pin(
            async move {
                let started = Instant::now();
                let result = self.whole_reply(request).await;
                trace_result(result.as_ref().map(|(reply, _, _)| reply), started);
                let ended = match &result {
                    Ok((reply, _, response_model)) => otel::Ended::Reply {
                        usage: reply.usage,
                        finish_reason: reply.finish_reason.as_ref(),
                        response_model: response_model.as_deref(),
                    },
                    Err(error) => otel::Ended::Failed(error),
                };
                otel::record(&tracing::Span::current(), ended);
                let (reply, limits, _) = result?;
                Ok(Response::from_reply(reply).with_rate_limits(limits))
            }
            .instrument(span),
        )
    }

    fn name(&self) -> &str {
        &self.model
    }

    /// True when told so ([`takes_n`](HttpModel::takes_n)) of an API that has
    /// several replies per request ([`Provider::TAKES_N`]).
    fn answers_n(&self) -> bool {
        self.takes_several()
    }

    /// The provider, the base URL (without credentials) and every option
    /// that goes into the request body.
    fn request_options(&self) -> Option<Value> {
        let options = &self.options;
        Some(serde_json::json!({
            "provider": P::NAME,
            "base_url": redact_url(&self.base_url),
            "temperature": options.temperature,
            "max_tokens": options.max_tokens,
            "seed": options.seed,
            "extra": options.extra,
        }))
    }

    /// True with [`stream(true)`](Self::stream).
    fn streams(&self) -> bool {
        self.options.stream
    }

    /// The [format](Dialect::format) of the client's
    /// [`grammar`](Self::grammar) dialect; `None` without one.
    fn takes_grammar(&self) -> Option<Format> {
        self.options.grammar.map(Dialect::format)
    }

    /// The client's [`max_tokens`](Self::max_tokens), when set.
    fn reply_token_limit(&self) -> Option<u32> {
        self.options.max_tokens
    }
}

impl<P: Provider> HttpModel<P> {
    /// [`call`](ChatModel::call) of a request for several replies: read
    /// whole, given one after another ([`Response::from_replies`]).
    fn call_several<'a>(
        &'a self,
        request: Request<'a>,
    ) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
        let span = otel::call_span::<P>(
            &self.base_url,
            &self.model,
            &self.options,
            request.messages.len(),
            false,
        );
        Box::pin(
            async move {
                let started = Instant::now();
                let result = self.whole_replies(request).await;
                trace_result(result.as_ref().map(|(replies, _, _)| &replies[0]), started);
                let ended = match &result {
                    Ok((replies, _, response_model)) => otel::Ended::Reply {
                        usage: replies[0].usage,
                        finish_reason: replies[0].finish_reason.as_ref(),
                        response_model: response_model.as_deref(),
                    },
                    Err(error) => otel::Ended::Failed(error),
                };
                otel::record(&tracing::Span::current(), ended);
                let (replies, limits, _) = result?;
                Ok(Response::from_replies(replies).with_rate_limits(limits))
            }
            .instrument(span),
        )
    }
}

/// One tracing event per call, inside the call's span (which names the
/// provider, model and stream flag, never the key). Errors are shown by
/// their `Display`, whose server text is already scrubbed.
fn trace_result(result: Result<&Reply, &ModelError>, started: Instant) {
    let elapsed_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(reply) => tracing::debug!(
            elapsed_ms,
            prompt_tokens = reply.usage.prompt_tokens,
            completion_tokens = reply.usage.completion_tokens,
            finish_reason = ?reply.finish_reason,
            content_chars = reply.content.chars().count(),
            has_reasoning = reply.reasoning.is_some(),
            "model replied"
        ),
        Err(error) => tracing::debug!(
            elapsed_ms,
            transient = error.is_transient(),
            error = %error,
            "model call failed"
        ),
    }
}

impl<P: Provider> fmt::Debug for HttpModel<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct(P::TYPE_NAME);
        out.field("base_url", &redact_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key);
        self.provider.debug_fields(&mut out);
        out.field("options", &self.options).finish()
    }
}

/// The value of an environment variable, `None` when unset or blank (a
/// blank value counts as unset for every client).
pub(crate) fn env_value(lookup: &impl Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    lookup(name)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The value of a variable a client cannot do without.
pub(crate) fn required_env(
    lookup: &impl Fn(&str) -> Option<String>,
    name: &str,
    what: &str,
) -> Result<String, ModelError> {
    env_value(lookup, name).ok_or_else(|| {
        ModelError::Config(format!("the environment variable {name} is not set ({what})").into())
    })
}
