//! Whether valid JSON holds an object with a key written twice.
//!
//! serde_json keeps the last value of a repeated key, which is right for
//! JSON as the model wrote it. After a repair or a stray closer the same
//! key twice in one object says the members were moved: a `}` closed an
//! inner object early and its members went to the outer one, where a key
//! of the same name took the place of one written. The check walks the
//! value once with serde's visitor, keeping only the keys of each open
//! object.

use std::collections::HashSet;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// True when `json` is valid JSON and an object in it has a key twice.
pub(crate) fn has_duplicate_key(json: &str) -> bool {
    serde_json::from_str::<Repeats>(json).is_ok_and(|repeats| repeats.0)
}

/// Whether the value read holds a repeated key.
struct Repeats(bool);

impl<'de> Deserialize<'de> for Repeats {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RepeatsVisitor)
    }
}

struct RepeatsVisitor;

impl<'de> Visitor<'de> for RepeatsVisitor {
    type Value = Repeats;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_str<E>(self, _: &str) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_unit<E>(self) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Repeats, A::Error> {
        let mut repeated = false;
        while let Some(Repeats(inner)) = items.next_element()? {
            repeated |= inner;
        }
        Ok(Repeats(repeated))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Repeats, A::Error> {
        let mut keys = HashSet::new();
        let mut repeated = false;
        while let Some(key) = members.next_key::<String>()? {
            repeated |= !keys.insert(key);
            let Repeats(inner) = members.next_value()?;
            repeated |= inner;
        }
        Ok(Repeats(repeated))
    }
}

#[cfg(test)]
mod tests {
    use super::has_duplicate_key;

    #[test]
    fn a_key_twice_in_one_object_is_found_at_any_depth() {
        assert!(has_duplicate_key(r#"{"a": 1, "a": 2}"#));
        assert!(has_duplicate_key(r#"[1, {"x": {"": null, "": 0}}]"#));
        assert!(has_duplicate_key(
            r#"{"a": {"k": 1}, "b": [{"k": 1, "k": 1}]}"#
        ));
        // The same key in two objects is no repeat.
        assert!(!has_duplicate_key(
            r#"{"a": {"k": 1}, "b": {"k": 2}, "k": 3}"#
        ));
        assert!(!has_duplicate_key(
            r#"[{"a": 1}, {"a": 1}, "a", 1.5, true, null]"#
        ));
        // Escapes are read: `"\u0061"` is `"a"`.
        assert!(has_duplicate_key(r#"{"a": 1, "\u0061": 2}"#));
        // Not JSON: nothing to say.
        assert!(!has_duplicate_key(r#"{"a": 1, "a": 2"#));
    }
}
