//! What the tokens of a call cost, from prices the user supplies per model.
//!
//! There is no built-in price list: prices change, differ by contract and
//! would go stale in a released crate. [`Prices`] maps a model's
//! [`name()`](crate::ChatModel::name) to its [`Price`]; the loop then writes
//! each attempt's cost into the ledger ([`Attempt::cost`](crate::Attempt::cost)),
//! sums it per run ([`Outcome::cost`](crate::Outcome::cost),
//! [`ThinkError::cost`](crate::ThinkError::cost)) and per batch
//! ([`RunsProgress::cost`](crate::run::RunsProgress::cost)).

use std::collections::BTreeMap;

use crate::model::Usage;

/// The price of one model per million tokens, in the currency you choose.
///
/// The input price applies to prompt tokens that did not touch the prompt
/// cache; cache reads and writes have their own prices (by default the
/// input price, so a model without cache pricing costs the same either
/// way). A call answered through a provider's batch API costs
/// `1 - batch_discount` of the same call online.
///
/// ```
/// use twr_runtime::cost::Price;
/// use twr_runtime::Usage;
///
/// // $3 in, $15 out, cache reads at $0.30, cache writes at $3.75, batches at half price.
/// let price = Price::per_million(3.0, 15.0)
///     .cache_read(0.3)
///     .cache_write(3.75)
///     .batch_discount(0.5);
/// let usage = Usage::new(12_000, 1_000).with_cache(10_000, 0);
/// // 2,000 plain input tokens, 10,000 read from the cache, 1,000 out.
/// assert_eq!(price.cost(&usage, false), 0.024);
/// assert_eq!(price.cost(&usage, true), 0.012);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Price {
    /// Per million prompt tokens not read from or written to the cache.
    pub input: f64,
    /// Per million completion tokens (reasoning included when the server
    /// counts it there).
    pub output: f64,
    /// Per million prompt tokens read from the prompt cache.
    pub cache_read: f64,
    /// Per million prompt tokens written to the prompt cache.
    pub cache_write: f64,
    /// The share taken off a call made through a batch API (0.5 for half
    /// price; 0 for none).
    pub batch_discount: f64,
}

impl Price {
    /// `input` and `output` per million tokens; cache reads and writes at
    /// the input price, no batch discount.
    pub fn per_million(input: f64, output: f64) -> Self {
        Price {
            input,
            output,
            cache_read: input,
            cache_write: input,
            batch_discount: 0.0,
        }
    }

    /// The price per million prompt tokens read from the cache.
    pub fn cache_read(mut self, per_million: f64) -> Self {
        self.cache_read = per_million;
        self
    }

    /// The price per million prompt tokens written to the cache.
    pub fn cache_write(mut self, per_million: f64) -> Self {
        self.cache_write = per_million;
        self
    }

    /// The share taken off a batch call (clamped to 0..=1).
    pub fn batch_discount(mut self, share: f64) -> Self {
        self.batch_discount = share.clamp(0.0, 1.0);
        self
    }

    /// What `usage` costs, online or (`batch`) through a batch API.
    ///
    /// The token counts times their prices are summed before the one
    /// division by a million, so whole prices give exact cents.
    pub fn cost(&self, usage: &Usage, batch: bool) -> f64 {
        let tokens = |n: u64| n as f64;
        let mut sum = tokens(usage.uncached_prompt_tokens()) * self.input
            + tokens(usage.cache_read_tokens) * self.cache_read
            + tokens(usage.cache_write_tokens) * self.cache_write
            + tokens(usage.completion_tokens) * self.output;
        if batch {
            sum *= 1.0 - self.batch_discount;
        }
        sum / 1_000_000.0
    }
}

/// Prices by model name, as [`ChatModel::name`](crate::ChatModel::name)
/// gives it (the model id for the HTTP clients). Give them to
/// [`Think::prices`](crate::Think::prices).
///
/// ```
/// use twr_runtime::cost::{Price, Prices};
/// use twr_runtime::Usage;
///
/// let prices = Prices::new()
///     .with("gpt-4o-mini", Price::per_million(0.15, 0.6).cache_read(0.075).batch_discount(0.5))
///     .with("claude-sonnet-4-5", Price::per_million(3.0, 15.0));
/// assert_eq!(prices.cost("gpt-4o-mini", &Usage::new(1_000_000, 0), false), Some(0.15));
/// assert_eq!(prices.cost("an-unknown-model", &Usage::new(10, 10), false), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices {
    by_model: BTreeMap<String, Price>,
}

impl Prices {
    /// No prices.
    pub fn new() -> Self {
        Prices::default()
    }

    /// The same prices with `model` priced at `price` (replacing any
    /// earlier price of that model).
    pub fn with(mut self, model: impl Into<String>, price: Price) -> Self {
        self.by_model.insert(model.into(), price);
        self
    }

    /// The price of `model`, if one was given.
    pub fn get(&self, model: &str) -> Option<&Price> {
        self.by_model.get(model)
    }

    /// What `usage` of `model` costs; `None` when `model` has no price.
    pub fn cost(&self, model: &str, usage: &Usage, batch: bool) -> Option<f64> {
        self.get(model).map(|price| price.cost(usage, batch))
    }
}

/// The sum of the costs that are known; `None` when none is.
pub(crate) fn sum_known(costs: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    costs
        .into_iter()
        .flatten()
        .fold(None, |sum, cost| Some(sum.unwrap_or(0.0) + cost))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_token_at_its_price() {
        let price = Price::per_million(2.0, 8.0)
            .cache_read(0.5)
            .cache_write(2.5)
            .batch_discount(0.5);
        // 1,000 plain, 3,000 read, 1,000 written; 500 out:
        // 2,000 + 1,500 + 2,500 + 4,000 = 10,000 per million.
        let usage = Usage::new(5_000, 500).with_cache(3_000, 1_000);
        assert_eq!(price.cost(&usage, false), 0.01);
        assert_eq!(price.cost(&usage, true), 0.005);
        // Cache prices default to the input price.
        let plain = Price::per_million(2.0, 8.0);
        assert_eq!(plain.cost(&usage, false), 0.014);
        assert_eq!(plain.cost(&usage, true), 0.014);
        assert_eq!(
            Price::per_million(1.0, 1.0)
                .batch_discount(3.0)
                .batch_discount,
            1.0
        );
    }

    #[test]
    fn unknown_costs_are_left_out_of_sums() {
        assert_eq!(sum_known([None, None]), None);
        assert_eq!(sum_known([Some(0.25), None, Some(0.5)]), Some(0.75));
        assert_eq!(sum_known(Vec::new()), None);
    }
}
