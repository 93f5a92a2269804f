//! [`SharedText`]: text held once and shared by every place that shows it;
//! and [`is_zero_width`], the characters that show nothing.
//!
//! A reply appears in several places of a run's record: the attempt's raw
//! text, the transcript, the final answer, the next request. With
//! `SharedText` they all point at one buffer, so a 50 MB reply costs 50 MB,
//! not a copy per place. It reads like a `&str` everywhere: it derefs to
//! `str`, compares with `str`, `&str` and `String`, prints and serializes as
//! its text.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Immutable text whose clones share one buffer.
///
/// ```
/// use twr_runtime::model::SharedText;
///
/// let reply = SharedText::from(String::from("[Answer]\n42"));
/// let copy = reply.clone(); // no bytes copied
/// assert_eq!(copy, "[Answer]\n42");
/// assert_eq!(copy.as_str().lines().count(), 2);
/// assert!(reply.starts_with("[Answer]"));
/// let owned: String = copy.into();
/// assert_eq!(owned, "[Answer]\n42");
/// ```
// An `Arc<String>` rather than an `Arc<str>`: turning the `String` a client
// built into shared text then moves it instead of copying every byte.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedText(Arc<String>);

impl SharedText {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when `self` and `other` share one buffer (a clone, not an equal
    /// copy).
    pub fn shares_buffer_with(&self, other: &SharedText) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for SharedText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SharedText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl From<String> for SharedText {
    fn from(text: String) -> Self {
        SharedText(Arc::new(text))
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> Self {
        SharedText::from(text.to_string())
    }
}

impl From<&String> for SharedText {
    fn from(text: &String) -> Self {
        SharedText::from(text.clone())
    }
}

impl From<Cow<'_, str>> for SharedText {
    fn from(text: Cow<'_, str>) -> Self {
        SharedText::from(text.into_owned())
    }
}

impl From<Box<str>> for SharedText {
    fn from(text: Box<str>) -> Self {
        SharedText::from(String::from(text))
    }
}

impl From<&SharedText> for SharedText {
    fn from(text: &SharedText) -> Self {
        text.clone()
    }
}

impl From<SharedText> for String {
    /// The text as a `String`: moved out when this was its only holder,
    /// copied otherwise.
    fn from(text: SharedText) -> Self {
        Arc::try_unwrap(text.0).unwrap_or_else(|shared| String::clone(&shared))
    }
}

impl PartialEq<str> for SharedText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SharedText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<SharedText> for str {
    fn eq(&self, other: &SharedText) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SharedText> for &str {
    fn eq(&self, other: &SharedText) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<SharedText> for String {
    fn eq(&self, other: &SharedText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Serialize for SharedText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SharedText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(SharedText::from)
    }
}

/// Whether `c` is a character that shows nothing and is no white space:
/// zero-width space, non-joiner and joiner, word joiner, the byte-order
/// mark. A model may slip one into a header (`Name\u{200B}:`) or into a
/// sentence it copies; read as nothing, neither hides what it is.
pub(crate) fn is_zero_width(c: char) -> bool {
    ZERO_WIDTH.contains(&c)
}

/// The zero-width characters ([`is_zero_width`]), listed for a grammar's
/// character classes.
pub(crate) const ZERO_WIDTH: [char; 5] =
    ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_and_compare_as_text() {
        let text = SharedText::from("[Plan]\nTemples");
        let clone = text.clone();
        assert!(clone.shares_buffer_with(&text));
        assert!(!SharedText::from("[Plan]\nTemples").shares_buffer_with(&text));
        assert_eq!(text, SharedText::from("[Plan]\nTemples"));
        assert_eq!(text, "[Plan]\nTemples");
        assert_eq!("[Plan]\nTemples", text);
        assert_eq!(text, "[Plan]\nTemples".to_string());
        assert_eq!(
            format!("{text}|{text:?}"),
            "[Plan]\nTemples|\"[Plan]\\nTemples\""
        );
        assert_eq!(String::from(clone), "[Plan]\nTemples");
    }

    #[test]
    fn serializes_as_a_string() {
        let text = SharedText::from("a \"b\"");
        let json = serde_json::to_string(&text).unwrap();
        assert_eq!(json, r#""a \"b\"""#);
        assert_eq!(serde_json::from_str::<SharedText>(&json).unwrap(), text);
    }
}
