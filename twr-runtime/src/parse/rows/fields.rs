//! Matching the column names and labels a model writes (`Unit Price`,
//! `unit-price`, `**UNIT_PRICE**`) to the fields of a serde type.
//!
//! The field names come from the type itself: serde's derive passes every
//! name it accepts (renames and aliases included) to `deserialize_struct`,
//! and [`field_names`] asks for them with a deserializer that records that
//! list and stops. Nothing is guessed from the Rust source.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// `name` folded for lenient comparison: its letters and digits only, lower
/// case, so case, spaces, `_`, `-` and markdown do not matter.
pub(crate) fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The names `T` accepts for its fields (renames and aliases included), or
/// `None` when `T` is not a struct with named fields (a map, a tuple, a
/// struct with `#[serde(flatten)]`).
pub(crate) fn field_names<'de, T: Deserialize<'de>>() -> Option<&'static [&'static str]> {
    match T::deserialize(Probe) {
        Err(ProbeEnd::Fields(fields)) => Some(fields),
        Err(ProbeEnd::NotAStruct) | Ok(_) => None,
    }
}

/// How a probe ended: the struct's field names, or not a struct.
#[derive(Debug)]
enum ProbeEnd {
    Fields(&'static [&'static str]),
    NotAStruct,
}

impl fmt::Display for ProbeEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field-name probe")
    }
}

impl std::error::Error for ProbeEnd {}

impl de::Error for ProbeEnd {
    fn custom<M: fmt::Display>(_: M) -> Self {
        ProbeEnd::NotAStruct
    }
}

/// A deserializer that only records the field list of a struct.
struct Probe;

impl<'de> Deserializer<'de> for Probe {
    type Error = ProbeEnd;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, ProbeEnd> {
        Err(ProbeEnd::NotAStruct)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, ProbeEnd> {
        Err(ProbeEnd::Fields(fields))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// Finds the field a written name stands for.
#[derive(Debug, Clone)]
pub(crate) struct FieldMatcher {
    /// Each accepted name, folded, with the field's own name (the one serde
    /// reports it by; aliases map to it).
    folded: Vec<(String, &'static str)>,
}

impl FieldMatcher {
    /// A matcher for `(accepted name, field name)` pairs.
    pub(crate) fn with_fields(
        pairs: impl IntoIterator<Item = (&'static str, &'static str)>,
    ) -> Self {
        FieldMatcher {
            folded: pairs
                .into_iter()
                .map(|(name, field)| (fold(name), field))
                .collect(),
        }
    }

    /// The field that `written` stands for, ignoring case, spaces, `_`, `-`
    /// and decoration; a unit in brackets after the name is allowed:
    /// `Price (USD)`, `Weight [kg]`.
    pub(crate) fn find(&self, written: &str) -> Option<&'static str> {
        self.exact(&fold(written)).or_else(|| {
            let bare = written.split(['(', '[', '（']).next().unwrap_or_default();
            (bare.len() < written.len())
                .then(|| self.exact(&fold(bare)))
                .flatten()
        })
    }

    fn exact(&self, folded: &str) -> Option<&'static str> {
        if folded.is_empty() {
            return None;
        }
        self.folded
            .iter()
            .find(|(f, _)| f == folded)
            .map(|(_, field)| *field)
    }
}

/// A field name as a person reads it: `unit_price` → `Unit Price`.
pub(crate) fn display_name(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut start = true;
    let mut prev_lower = false;
    for c in field.chars() {
        if c == '_' || c == '-' || c == ' ' {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            start = true;
            prev_lower = false;
            continue;
        }
        // camelCase: a capital after a small letter starts a word.
        if c.is_uppercase() && prev_lower && !out.ends_with(' ') {
            out.push(' ');
            start = true;
        }
        if start {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        start = false;
        prev_lower = c.is_lowercase();
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    impl FieldMatcher {
        /// A matcher for these accepted names, each its own field (the
        /// tests of the table and record readers use it too).
        pub(crate) fn new(names: &[&'static str]) -> Self {
            Self::with_fields(names.iter().map(|name| (*name, *name)))
        }
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Item {
        name: String,
        #[serde(rename = "Unit Price")]
        unit_price: f64,
        #[serde(alias = "qty")]
        quantity: u32,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Flat {
        id: u32,
        #[serde(flatten)]
        rest: HashMap<String, String>,
    }

    #[test]
    fn field_names_include_renames_and_aliases() {
        assert_eq!(
            field_names::<Item>(),
            Some(&["name", "Unit Price", "qty", "quantity"][..])
        );
        assert_eq!(field_names::<HashMap<String, u32>>(), None);
        assert_eq!(field_names::<(String, u32)>(), None);
        assert_eq!(field_names::<Flat>(), None);
        assert_eq!(field_names::<u32>(), None);
    }

    #[test]
    fn written_names_match_leniently() {
        let matcher = FieldMatcher::new(field_names::<Item>().unwrap());
        for (written, field) in [
            ("name", Some("name")),
            ("NAME", Some("name")),
            ("**Name**", Some("name")),
            ("unit price", Some("Unit Price")),
            ("Unit_Price", Some("Unit Price")),
            ("unit-price", Some("Unit Price")),
            ("UnitPrice", Some("Unit Price")),
            ("Unit Price (USD)", Some("Unit Price")),
            ("Qty", Some("qty")),
            ("Quantity [pcs]", Some("quantity")),
            ("Price", None),
            ("", None),
            ("(name)", Some("name")),
        ] {
            assert_eq!(matcher.find(written), field, "{written:?}");
        }
    }

    #[test]
    fn display_names() {
        assert_eq!(display_name("unit_price"), "Unit Price");
        assert_eq!(display_name("unitPrice"), "Unit Price");
        assert_eq!(display_name("Unit Price"), "Unit Price");
        assert_eq!(display_name("due-date"), "Due Date");
        assert_eq!(display_name("sku"), "Sku");
        assert_eq!(display_name("名称"), "名称");
    }
}
