//! [`TokenLogprob`]: how likely the model found each token it wrote.

use serde::{Deserialize, Serialize};

/// One token of a reply, with the natural logarithm of the probability the
/// model gave it and the most likely tokens the server listed for the same
/// place (the chosen one among them, when it was in the list).
///
/// The HTTP clients fill these in when the loop asks for them
/// ([`Think::confidence`](crate::Think::confidence),
/// [`Request::wants_logprobs`](crate::model::Request::wants_logprobs)) and
/// the server gives them: OpenAI-compatible servers (llama.cpp,
/// llama-cpp-python, vLLM, SGLang, OpenAI) from `logprobs` with
/// `top_logprobs`, Gemini from `responseLogprobs` with `logprobs`.
/// Anthropic's API gives none, and nothing is made up in their place. A
/// [`ChatModel`](crate::ChatModel) of your own hands them on with
/// [`Reply::with_logprobs`](crate::Reply::with_logprobs):
///
/// ```
/// use twr_runtime::model::TokenLogprob;
/// use twr_runtime::Reply;
///
/// let reply = Reply::text("[Ok]\nyes").with_logprobs(vec![
///     TokenLogprob { token: "[Ok]\n".into(), logprob: 0.0, top: vec![] },
///     TokenLogprob {
///         token: "yes".into(),
///         logprob: (0.9f64).ln(),
///         top: vec![("yes".into(), (0.9f64).ln()), ("no".into(), (0.1f64).ln())],
///     },
/// ]);
/// assert_eq!(reply.logprobs.len(), 2);
/// ```
///
/// Compared bit for bit (so that a [`Reply`](crate::Reply) stays `Eq`):
/// two tokens are equal when their text and every number are the same
/// `f64`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TokenLogprob {
    /// The token's text, as the server gave it.
    pub token: String,
    /// The natural logarithm of its probability (`0.0`: certain).
    pub logprob: f64,
    /// The most likely tokens at this place with their log-probabilities,
    /// most likely first, as the server listed them; empty when it listed
    /// none.
    pub top: Vec<(String, f64)>,
}

impl TokenLogprob {
    /// The token's probability, `exp(logprob)`, in `0.0..=1.0`.
    pub fn probability(&self) -> f64 {
        self.logprob.exp().clamp(0.0, 1.0)
    }
}

impl PartialEq for TokenLogprob {
    fn eq(&self, other: &Self) -> bool {
        self.token == other.token
            && self.logprob.to_bits() == other.logprob.to_bits()
            && self.top.len() == other.top.len()
            && self
                .top
                .iter()
                .zip(&other.top)
                .all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits())
    }
}

// Bit-for-bit equality is reflexive, NaN included.
impl Eq for TokenLogprob {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_is_bit_for_bit_and_probability_is_clamped() {
        let token = |logprob: f64| TokenLogprob {
            token: "a".into(),
            logprob,
            top: vec![("a".into(), logprob)],
        };
        assert_eq!(token(f64::NAN), token(f64::NAN));
        assert_ne!(token(-0.5), token(-0.25));
        assert_eq!(token(0.0).probability(), 1.0);
        assert_eq!(token(0.5).probability(), 1.0);
        assert!((token((0.25f64).ln()).probability() - 0.25).abs() < 1e-12);
    }
}
