//! The request options every provider accepts, and the shared HTTP client.

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use super::http::same_origin_redirects;
use crate::grammar::Dialect;
use crate::model::ModelError;

/// Default time limit for one whole request, body included. Generous because
/// a local model on a CPU can take minutes for a long answer.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Default cap on a response body: far above any chat reply, far below
/// anything that could hurt the process.
pub(crate) const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// The request options every provider accepts.
#[derive(Clone)]
pub(crate) struct Options {
    pub(crate) stream: bool,
    pub(crate) temperature: Option<f32>,
    pub(crate) max_tokens: Option<u32>,
    pub(crate) seed: Option<u64>,
    /// How the server takes a grammar; `None`: it is never sent one.
    pub(crate) grammar: Option<Dialect>,
    /// Whether the server answers several replies to one request (`n`);
    /// `false`: it is never asked for more than one.
    pub(crate) takes_n: bool,
    /// Extra JSON fields merged into the request body (a JSON object).
    pub(crate) extra: Option<Value>,
    pub(crate) timeout: Duration,
    pub(crate) max_response_bytes: usize,
    pub(crate) http_client: Option<reqwest::Client>,
}

impl fmt::Debug for Options {
    // By hand: a caller's reqwest client may carry default headers (an
    // `Authorization` among them), so only whether there is one is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("stream", &self.stream)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("seed", &self.seed)
            .field("grammar", &self.grammar)
            .field("takes_n", &self.takes_n)
            .field("extra", &self.extra)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field(
                "http_client",
                &if self.http_client.is_some() {
                    "custom"
                } else {
                    "shared"
                },
            )
            .finish()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stream: false,
            temperature: None,
            max_tokens: None,
            seed: None,
            grammar: None,
            takes_n: false,
            extra: None,
            timeout: DEFAULT_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            http_client: None,
        }
    }
}

impl Options {
    /// Adds `extra` to the extra fields; a later call wins over an earlier one.
    pub(crate) fn add_extra(&mut self, extra: Value) {
        match &mut self.extra {
            Some(existing) => merge_json(existing, extra),
            None => self.extra = Some(extra),
        }
    }

    /// Merges the extra fields into `body`; they win over the client's own.
    pub(crate) fn apply_extra(&self, body: &mut Value) -> Result<(), ModelError> {
        match &self.extra {
            None => Ok(()),
            Some(extra @ Value::Object(_)) => {
                merge_json(body, extra.clone());
                Ok(())
            }
            Some(other) => Err(ModelError::Config(
                format!(
                    "extra request fields must be a JSON object, got {}",
                    json_kind(other)
                )
                .into(),
            )),
        }
    }

    /// The HTTP client to use: the caller's, or one shared by every model
    /// client of the process (so connections are pooled).
    pub(crate) fn client(&self) -> Result<reqwest::Client, ModelError> {
        if let Some(client) = &self.http_client {
            return Ok(client.clone());
        }
        static SHARED: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                let builder = reqwest::Client::builder().redirect(same_origin_redirects());
                // With both `client` and `native-tls` on, reqwest would pick
                // rustls; asking for `native-tls` means the platform's TLS.
                #[cfg(feature = "native-tls")]
                let builder = builder.tls_backend_native();
                builder.build().map_err(|e| crate::model::error::report(&e))
            })
            .clone()
            .map_err(|e| ModelError::Config(format!("could not build the HTTP client: {e}").into()))
    }
}

/// Deep-merges `extra` into `base`: objects merge key by key, anything else
/// replaces. `null` removes a key, so `.extra(json!({"seed": null}))` drops it.
pub(crate) fn merge_json(base: &mut Value, extra: Value) {
    match (base, extra) {
        (Value::Object(base), Value::Object(extra)) => {
            for (key, value) in extra {
                if value.is_null() {
                    base.remove(&key);
                } else if let Some(slot) = base.get_mut(&key) {
                    merge_json(slot, value);
                } else {
                    base.insert(key, value);
                }
            }
        }
        (base, extra) => *base = extra,
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_is_deep_and_null_removes() {
        let mut base = json!({"a": 1, "g": {"t": 0.5, "m": 10}, "s": 3});
        merge_json(
            &mut base,
            json!({"g": {"m": 20, "x": true}, "s": null, "n": [1]}),
        );
        assert_eq!(
            base,
            json!({"a": 1, "g": {"t": 0.5, "m": 20, "x": true}, "n": [1]})
        );
    }
}
