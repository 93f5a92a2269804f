//! An API key that never shows itself.

use std::fmt;

/// An API key. Its `Debug` output is `"[redacted]"`, so a client printed with
/// `{:?}` or captured in a tracing field never leaks it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ApiKey(String);

impl ApiKey {
    /// Wraps `key`; `None` for an empty or white-space-only key, which no
    /// server accepts and which would only produce a confusing 401.
    pub(crate) fn new(key: impl Into<String>) -> Option<Self> {
        let key = key.into();
        let trimmed = key.trim();
        if trimmed.is_empty() {
            None
        } else if trimmed.len() == key.len() {
            Some(ApiKey(key))
        } else {
            Some(ApiKey(trimmed.to_string()))
        }
    }

    /// The key itself, for the request header and nothing else.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `[redacted]`:
    /// servers sometimes quote the key they rejected in their error message.
    pub(crate) fn scrub(&self, text: String) -> String {
        if text.contains(self.0.as_str()) {
            text.replace(self.0.as_str(), "[redacted]")
        } else {
            text
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"[redacted]\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_key() {
        let key = ApiKey::new("sk-secret-123").unwrap();
        assert_eq!(format!("{key:?}"), "\"[redacted]\"");
        assert_eq!(key.expose(), "sk-secret-123");
    }

    #[test]
    fn blank_keys_are_none_and_keys_are_trimmed() {
        assert!(ApiKey::new("").is_none());
        assert!(ApiKey::new("  \n").is_none());
        assert_eq!(ApiKey::new(" k1 \n").unwrap().expose(), "k1");
    }

    #[test]
    fn scrub_replaces_every_occurrence() {
        let key = ApiKey::new("sk-abc").unwrap();
        assert_eq!(
            key.scrub("bad key sk-abc (sk-abc)".to_string()),
            "bad key [redacted] ([redacted])"
        );
        assert_eq!(key.scrub("nothing here".to_string()), "nothing here");
    }
}
