//! The seam between the loop and a model: one call, a [`Request`] in and a
//! [`Response`] out ([`ChatModel::call`]).
//!
//! The trait and the types a program names day to day ([`ChatModel`],
//! [`Message`], [`Reply`], [`Delta`], [`ModelError`], ...) are at the crate
//! root. This module holds what only the author of a model or of a wrapper
//! names: the two types of the seam ([`Request`], [`Response`]), the future
//! a model returns ([`BoxFuture`]), a model made of an async function
//! ([`from_fn`]), a deadline kept by a model over a client of its own
//! ([`within_deadline`], [`until_deadline`]), the detail of an error
//! ([`ErrorDetail`]), where a reply came from ([`Served`]), what a response
//! said about rate limits ([`RateLimits`]), how likely each token of a
//! reply was ([`TokenLogprob`]), the pause a failed response's
//! headers ask for ([`retry_after`], for a model over a client of its
//! own), the text type of a message ([`SharedText`]) and the error of a
//! [`ScriptedModel`](crate::ScriptedModel) whose script ran out
//! ([`ScriptExhausted`]).
//!
//! A model implements one method, `call`, and answers every kind of call
//! with it: the loop's, whole replies ([`ChatModel::chat`]) and streamed
//! ones ([`ChatModel::chat_stream`]) alike. A wrapper does the same,
//! passing the request on and watching the response, and says which model
//! it wraps ([`ChatModel::wrapped`]), the one thing it forwards:
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use futures_util::StreamExt;
//! use twr_runtime::model::{BoxFuture, Request, Response};
//! use twr_runtime::{ChatModel, Delta, Message, ModelError, ScriptedModel};
//!
//! /// Counts the tokens its model's replies used.
//! struct Metered<M> {
//!     model: M,
//!     tokens: AtomicU64,
//! }
//!
//! impl<M: ChatModel> ChatModel for Metered<M> {
//!     fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response<'a>, ModelError>> {
//!         Box::pin(async move {
//!             let response = self.model.call(request).await?;
//!             Ok(response.map_deltas(|deltas| {
//!                 deltas
//!                     .inspect(|item| {
//!                         if let Ok(Delta::Done { usage, .. }) = item {
//!                             self.tokens.fetch_add(usage.total_tokens, Ordering::Relaxed);
//!                         }
//!                     })
//!                     .boxed()
//!             }))
//!         })
//!     }
//!
//!     // What describes the model (its name, options, whether it streams,
//!     // takes grammars and takes `n`) is the wrapped model's: the loop
//!     // constrains, streams and samples it as it would the model, and the
//!     // journal keys its requests the same. A response of several replies
//!     // has the call's tokens on its first `Done` only, so adding up every
//!     // `Done` counts the call once.
//!     fn wrapped(&self) -> Option<&dyn ChatModel> {
//!         Some(&self.model)
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let scripted = ScriptedModel::new(["hi", "hi again"]).with_name("local");
//! let model = Metered { model: scripted, tokens: AtomicU64::new(0) };
//! assert_eq!(model.name(), "local");
//! let reply = model.chat(&[Message::user("hello")]).await?;
//! assert_eq!(reply.content, "hi");
//! let streamed: Vec<_> = model.chat_stream(&[Message::user("again")]).collect().await;
//! assert_eq!(streamed.len(), 2); // the whole reply as one piece, then `Done`
//! assert_eq!(model.tokens.load(Ordering::Relaxed), 0); // a scripted reply reports none
//! # Ok::<(), ModelError>(())
//! # }).unwrap();
//! ```

pub(crate) mod attachment;
pub(crate) mod chat;
mod deadline;
pub(crate) mod error;
mod from_fn;
pub(crate) mod http_error;
pub(crate) mod limits;
mod logprob;
pub(crate) mod message;
mod retry_after;
mod seam;
pub(crate) mod served;

pub use crate::text::SharedText;
pub use attachment::{Attachment, AttachmentError, AttachmentKind, Content, LimitScope};
pub use chat::{BoxFuture, BoxStream};
pub use deadline::{until_deadline, within_deadline};
pub use error::{ErrorDetail, ScriptExhausted};
pub use from_fn::{from_fn, FromFn};
pub use http_error::http_error;
pub use limits::RateLimits;
pub use logprob::TokenLogprob;
pub use retry_after::retry_after;
pub use seam::{Request, Response};
pub use served::Served;

// Short paths for the rest of the crate (`crate::model::Message`); the
// public paths are the crate root's. Some are named only by the clients,
// so a build without them leaves those unused.
#[allow(unused_imports)]
pub(crate) use chat::{ChatModel, Delta};
#[allow(unused_imports)]
pub(crate) use error::ModelError;
#[allow(unused_imports)]
pub(crate) use message::{FinishReason, Message, Reply, Role, Usage};
pub(crate) use seam::Gathered;
