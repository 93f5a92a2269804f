//! Layered JSON extraction and repair.

use serde::de::DeserializeOwned;

use crate::feedback::Feedback;

/// Extracts a JSON value from a reply.
pub fn extract_value(raw: &str) -> Result<serde_json::Value, Feedback> {
    extract(raw)
}

/// Extracts a `T` from a reply.
pub fn extract<T: DeserializeOwned>(raw: &str) -> Result<T, Feedback> {
    serde_json::from_str(raw.trim())
        .map_err(|e| Feedback::message(format!("The reply is not valid JSON: {e}.")))
}
