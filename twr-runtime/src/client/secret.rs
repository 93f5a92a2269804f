//! Credentials that never show themselves, and the one place where server
//! text is scrubbed of them before it is cut or stored.

use std::fmt;

/// A client's API key, as a [`Provider`](super::Provider) receives it. It
/// has no way to read its text: an adapter hands it to
/// [`RequestHead::key_header`](super::RequestHead::key_header) or
/// [`RequestHead::key_query`](super::RequestHead::key_query). Its `Debug`
/// output is `"[redacted]"`, so a client printed with `{:?}` or captured in a
/// tracing field never leaks it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps `key`; `None` for an empty or white-space-only key, which no
    /// server accepts. Every client treats such a key as no key at all.
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
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"[redacted]\"")
    }
}

/// What replaces a secret.
const REDACTED: &str = "[redacted]";

/// The shortest text scrubbed as a secret.
const MIN_SECRET_LEN: usize = 4;

/// Every credential of one client: its API key and the user name and
/// password of its base URL (reqwest sends those as Basic auth).
///
/// All server text (error bodies, excerpts of bodies that did not decode,
/// parser complaints that quote a value, refusals, error events) goes
/// through [`Secrets::excerpt`] before it is cut or stored anywhere: a server
/// or proxy that echoes the key back cannot put it into an error, its source
/// chain or a log.
#[derive(Default)]
pub(crate) struct Secrets(Vec<String>);

impl Secrets {
    /// The secrets of a client with `key` whose base URL is `base_url`.
    pub(crate) fn new(key: Option<&ApiKey>, base_url: &str) -> Self {
        let mut secrets = Vec::new();
        if let Some(key) = key {
            secrets.push(key.expose().to_string());
        }
        if let Some((user, password)) = userinfo(base_url) {
            for part in [user, password] {
                secrets.push(part.to_string());
                // Servers may quote the decoded form.
                if let Ok(decoded) = percent_decode(part) {
                    secrets.push(decoded);
                }
            }
        }
        // Shorter than this is no real credential (a user name like `me`),
        // and replacing it everywhere would garble every message.
        secrets.retain(|s| s.len() >= MIN_SECRET_LEN);
        // Longest first, so a secret that contains another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Secrets(secrets)
    }

    /// Every secret, longest first.
    pub(crate) fn texts(&self) -> Vec<&str> {
        self.0.iter().map(String::as_str).collect()
    }

    /// `text` with every secret replaced by `[redacted]`.
    pub(crate) fn scrub(&self, text: &str) -> String {
        crate::model::http_error::scrub(text, &self.texts())
    }

    /// Server text made safe to quote in an error: trimmed, scrubbed, and
    /// only then cut to `max_chars` (cutting first could leave a piece of a
    /// key behind). Not the feedback's `excerpt` of a value (one line, for
    /// the model): this one is for the person reading the error.
    pub(crate) fn scrubbed_quote(&self, text: &str, max_chars: usize) -> String {
        crate::model::http_error::scrubbed_quote(text, &self.texts(), max_chars)
    }
}

/// The user name and password of a URL's authority, when it has any.
/// Works on text that is not a valid URL too (the check comes later).
fn userinfo(url: &str) -> Option<(&str, &str)> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let (info, _) = authority.rsplit_once('@')?;
    Some(info.split_once(':').unwrap_or((info, "")))
}

fn percent_decode(text: &str) -> Result<String, ()> {
    if !text.contains('%') {
        return Err(());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3).ok_or(())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| ())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| ())
}

/// `url` with the user name and password of its authority replaced by
/// `[redacted]`, for `Debug` output and configuration errors.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{REDACTED}{}", &rest[at..]),
        None => url.to_string(),
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
    fn scrub_replaces_every_occurrence_of_every_secret() {
        let key = ApiKey::new("sk-abc").unwrap();
        let secrets = Secrets::new(Some(&key), "https://bobby:p%40ss@h:1/v1");
        assert_eq!(
            secrets.scrub("bad key sk-abc (sk-abc) for bobby with p@ss or p%40ss"),
            "bad key [redacted] ([redacted]) for [redacted] with [redacted] or [redacted]"
        );
        assert_eq!(secrets.scrub("nothing here"), "nothing here");
        // Too short to be a credential, and everywhere in ordinary text.
        let secrets = Secrets::new(None, "https://me:pw@h/v1");
        assert_eq!(secrets.scrub("meet me"), "meet me");
    }

    #[test]
    fn excerpts_are_scrubbed_before_they_are_cut() {
        let key = ApiKey::new("sk-0123456789").unwrap();
        let secrets = Secrets::new(Some(&key), "http://h/v1");
        let text = format!("{}sk-0123456789 tail", "x".repeat(7));
        // Cut first, 3 characters of the key would have stayed: "sk-".
        assert_eq!(secrets.scrubbed_quote(&text, 10), "xxxxxxx[re…");
        assert_eq!(secrets.scrubbed_quote("  short \n", 10), "short");
    }

    #[test]
    fn urls_lose_their_userinfo() {
        assert_eq!(
            redact_url("https://user:sk-pass@api.example.com:8443/v1?x=@"),
            "https://[redacted]@api.example.com:8443/v1?x=@"
        );
        assert_eq!(redact_url("http://sk-token@h/v1"), "http://[redacted]@h/v1");
        assert_eq!(
            redact_url("http://127.0.0.1:8088/v1/@x"),
            "http://127.0.0.1:8088/v1/@x"
        );
        assert_eq!(redact_url("not a url"), "not a url");
        assert_eq!(
            userinfo("https://a:b:c@h/"),
            Some(("a", "b:c")),
            "the password may contain a colon"
        );
    }
}
