//! The deserializers that read a row: a map from field names to cells, each
//! cell read the way a section value is, and a placeholder that stands in
//! for a value of any type.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};

use crate::parse::choice_word::choice_matches;
use crate::parse::list::items;
use crate::parse::value::{none_word, SectionValue};
use crate::parse::value_error::{excerpt, Expected, ValueError};
use crate::phrases::Phrases;
use crate::vocab::ValueKind;

/// What a row deserializer hands a field.
#[derive(Debug, Clone, Copy)]
pub(super) enum Cell<'r> {
    /// The text of a cell, trimmed and not blank.
    Text(&'r str),
    /// A stand-in value of whatever type the field asks for: for a cell
    /// already reported, and to find fields without a column.
    Placeholder,
    /// Left out: its type rejects even a placeholder.
    Gone,
    /// A placeholder that notes, in `kinds[slot]`, what the field asks for.
    Probe(usize),
}

/// One field's cell in a row.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry<'r> {
    /// The name serde reads the field by (or a map key).
    pub(super) key: &'r str,
    pub(super) cell: Cell<'r>,
    /// The column or record line it comes from.
    pub(super) source: usize,
}

impl<'r> Entry<'r> {
    pub(super) fn placeholder(key: &'r str) -> Self {
        Entry {
            key,
            cell: Cell::Placeholder,
            source: usize::MAX,
        }
    }
}

/// Why a row did not read.
pub(super) enum Failure {
    /// The cell from this column or line is not a value of its field.
    Bad { source: usize, error: DeError },
    /// No cell gave this field.
    Missing(&'static str),
    /// serde rejected the row as a whole.
    Row(DeError),
}

/// Reads `T` from `entries`, collecting up to `room` failures: each failing
/// cell is replaced by a placeholder and the row read again, each missing
/// field given a placeholder. Every round changes one entry for good (text
/// to placeholder to gone) or adds one field, so the rounds are bounded by
/// the entries and fields of the row.
pub(super) fn read_entries<T: DeserializeOwned>(
    mut entries: Vec<Entry<'_>>,
    room: usize,
    phrases: &'static Phrases,
) -> Result<T, Vec<Failure>> {
    let mut failures = Vec::new();
    let mut added: Vec<&'static str> = Vec::new();
    let mut gone: Vec<usize> = Vec::new();
    loop {
        match T::deserialize(Row {
            entries: &entries,
            kinds: None,
            phrases,
        }) {
            Ok(value) if failures.is_empty() => return Ok(value),
            Ok(_) => return Err(failures),
            Err(DeError::InEntry { index, error }) => match entries.get(index).map(|e| e.cell) {
                Some(Cell::Text(_)) => {
                    failures.push(Failure::Bad {
                        source: entries[index].source,
                        error: *error,
                    });
                    entries[index].cell = Cell::Placeholder;
                }
                Some(Cell::Placeholder) => {
                    entries[index].cell = Cell::Gone;
                    gone.push(index);
                }
                Some(Cell::Gone | Cell::Probe(_)) | None => return Err(failures),
            },
            Err(DeError::Missing(field)) => {
                let lost = gone.iter().any(|&i| entries[i].key == field);
                if lost || added.contains(&field) {
                    return Err(failures);
                }
                failures.push(Failure::Missing(field));
                added.push(field);
                entries.push(Entry::placeholder(field));
            }
            Err(error) => {
                failures.push(Failure::Row(error));
                return Err(failures);
            }
        }
        if failures.len() >= room {
            return Err(failures);
        }
    }
}

/// The error of the row deserializers: which entry failed and why, or what
/// serde said about the row.
#[derive(Debug)]
pub(super) enum DeError {
    /// A value reader rejected the text.
    Value(ValueError),
    /// serde's own message.
    Message(String),
    /// A field no entry gave.
    Missing(&'static str),
    /// A field given twice, by the field's name.
    Duplicate(&'static str),
    /// The value of entry `index` failed.
    InEntry { index: usize, error: Box<DeError> },
}

impl DeError {
    fn at(index: usize, error: DeError) -> Self {
        match error {
            DeError::InEntry { .. } => error,
            error => DeError::InEntry {
                index,
                error: Box::new(error),
            },
        }
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeError::Value(error) => error.fmt(f),
            DeError::Message(message) => f.write_str(message),
            DeError::Missing(field) => write!(f, "missing field `{field}`"),
            DeError::Duplicate(field) => write!(f, "duplicate field `{field}`"),
            DeError::InEntry { error, .. } => error.fmt(f),
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<M: fmt::Display>(message: M) -> Self {
        DeError::Message(message.to_string())
    }

    fn missing_field(field: &'static str) -> Self {
        DeError::Missing(field)
    }

    fn duplicate_field(field: &'static str) -> Self {
        DeError::Duplicate(field)
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        DeError::Value(ValueError::invalid(Expected::OneOf(expected), variant))
    }
}

/// A row: a map from field names to cells.
pub(super) struct Row<'e, 'r> {
    pub(super) entries: &'e [Entry<'r>],
    /// Where `Cell::Probe` entries note their kinds.
    pub(super) kinds: Option<&'e RefCell<Vec<ValueKind>>>,
    /// The words its cells are read with (yes, no, none).
    pub(super) phrases: &'static Phrases,
}

impl<'de> Deserializer<'de> for Row<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_map(RowMap {
            entries: self.entries,
            kinds: self.kinds,
            phrases: self.phrases,
            next: 0,
            value: None,
        })
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct RowMap<'e, 'r> {
    entries: &'e [Entry<'r>],
    kinds: Option<&'e RefCell<Vec<ValueKind>>>,
    phrases: &'static Phrases,
    next: usize,
    /// The entry whose key was handed out last.
    value: Option<usize>,
}

impl<'de> MapAccess<'de> for RowMap<'_, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        while let Some(entry) = self.entries.get(self.next) {
            let index = self.next;
            self.next += 1;
            if matches!(entry.cell, Cell::Gone) {
                continue;
            }
            self.value = Some(index);
            let key: de::value::StrDeserializer<'_, DeError> = entry.key.into_deserializer();
            return seed.deserialize(key).map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, DeError> {
        let index = self
            .value
            .take()
            .ok_or_else(|| DeError::Message("a value was asked for before its key".into()))?;
        let result = match self.entries[index].cell {
            Cell::Text(text) => seed.deserialize(CellText(text, self.phrases)),
            Cell::Placeholder | Cell::Gone => seed.deserialize(Placeholder),
            Cell::Probe(slot) => seed.deserialize(Noting {
                kinds: self.kinds,
                slot,
            }),
        };
        result.map_err(|error| DeError::at(index, error))
    }
}

/// One cell's text, read the way a section value is, with the words of a
/// phrase table.
struct CellText<'r>(&'r str, &'static Phrases);

impl CellText<'_> {
    fn read<T: SectionValue>(&self) -> Result<T, DeError> {
        T::parse_section_with(self.0, self.1).map_err(DeError::Value)
    }
}

macro_rules! read_as {
    ($($method:ident $visit:ident $t:ty),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            let value = self.read::<$t>()?;
            visitor.$visit(value)
        }
    )*};
}

impl<'de> Deserializer<'de> for CellText<'_> {
    type Error = DeError;

    /// A self-describing target (`serde_json::Value`, an untagged enum): a
    /// plain number or `true`/`false` as such, anything else as text.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let text = self.0;
        if let Ok(n) = text.parse::<u64>() {
            visitor.visit_u64(n)
        } else if let Ok(n) = text.parse::<i64>() {
            visitor.visit_i64(n)
        } else if let Some(n) = text
            .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.')
            .then(|| text.parse::<f64>().ok().filter(|n| n.is_finite()))
            .flatten()
        {
            visitor.visit_f64(n)
        } else if text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false") {
            visitor.visit_bool(text.eq_ignore_ascii_case("true"))
        } else {
            visitor.visit_str(text)
        }
    }

    read_as! {
        deserialize_bool visit_bool bool,
        deserialize_i8 visit_i8 i8,
        deserialize_i16 visit_i16 i16,
        deserialize_i32 visit_i32 i32,
        deserialize_i64 visit_i64 i64,
        deserialize_i128 visit_i128 i128,
        deserialize_u8 visit_u8 u8,
        deserialize_u16 visit_u16 u16,
        deserialize_u32 visit_u32 u32,
        deserialize_u64 visit_u64 u64,
        deserialize_u128 visit_u128 u128,
        deserialize_f32 visit_f32 f32,
        deserialize_f64 visit_f64 f64,
        deserialize_char visit_char char,
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_str(self.0)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_str(self.0)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_str(self.0)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_bytes(self.0.as_bytes())
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_bytes(self.0.as_bytes())
    }

    /// The table's `none_words` (`N/A`, `None`, `无`) give `None`; an empty cell never gets here (the
    /// field is absent, which serde reads as `None`).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if none_word(self.0, self.1) {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    /// A list in one cell: one item a line, else items split at `;`, else
    /// at `,`.
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let text = self.0;
        let parts: Vec<Cow<'_, str>> = if text.contains('\n') {
            items(text)
        } else {
            let separator = if text.contains(';') { ';' } else { ',' };
            text.split(separator)
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(Cow::Borrowed)
                .collect()
        };
        visitor.visit_seq(Items {
            items: parts.into_iter(),
            index: 0,
            phrases: self.1,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    /// A structure in one cell is read as JSON.
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let json: serde_json::Value =
            serde_json::from_str(self.0).map_err(|e| DeError::Message(e.to_string()))?;
        json.deserialize_map(visitor)
            .map_err(|e| DeError::Message(e.to_string()))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_map(visitor)
    }

    /// A unit variant named leniently, as a `Choice` is: `very high` for
    /// `VeryHigh`, `**Low**` for `Low`.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match variants.iter().find(|v| choice_matches(self.0, v)) {
            Some(variant) => {
                let variant: de::value::StrDeserializer<'_, DeError> = variant.into_deserializer();
                visitor.visit_enum(variant)
            }
            None => Err(DeError::Value(ValueError::invalid(
                Expected::OneOf(variants),
                self.0,
            ))),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}

/// The items of a list in one cell; a bad item is named by its position.
struct Items<'r> {
    items: std::vec::IntoIter<Cow<'r, str>>,
    index: usize,
    phrases: &'static Phrases,
}

impl<'de> SeqAccess<'de> for Items<'_> {
    type Error = DeError;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, DeError> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        self.index += 1;
        seed.deserialize(CellText(&item, self.phrases))
            .map(Some)
            .map_err(|error| match error {
                DeError::Value(ValueError::Invalid { expected, .. }) => {
                    DeError::Value(ValueError::BadItem {
                        index: self.index,
                        item: excerpt(&item),
                        expected,
                    })
                }
                other => other,
            })
    }
}

/// A stand-in for a value of any type: zero, empty, `false`, `None`, the
/// first variant.
struct Placeholder;

macro_rules! placeholder {
    ($($method:ident => $visit:ident($value:expr)),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            visitor.$visit($value)
        }
    )*};
}

impl<'de> Deserializer<'de> for Placeholder {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    placeholder! {
        deserialize_bool => visit_bool(false),
        deserialize_i8 => visit_i64(0),
        deserialize_i16 => visit_i64(0),
        deserialize_i32 => visit_i64(0),
        deserialize_i64 => visit_i64(0),
        deserialize_i128 => visit_i64(0),
        deserialize_u8 => visit_u64(0),
        deserialize_u16 => visit_u64(0),
        deserialize_u32 => visit_u64(0),
        deserialize_u64 => visit_u64(0),
        deserialize_u128 => visit_u64(0),
        deserialize_f32 => visit_f64(0.0),
        deserialize_f64 => visit_f64(0.0),
        deserialize_char => visit_char('?'),
        deserialize_str => visit_str(""),
        deserialize_string => visit_str(""),
        deserialize_bytes => visit_bytes(b""),
        deserialize_byte_buf => visit_bytes(b""),
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_none()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_seq(Items {
            items: Vec::new().into_iter(),
            index: 0,
            phrases: &Phrases::ENGLISH,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_map(RowMap {
            entries: &[],
            kinds: None,
            phrases: &Phrases::ENGLISH,
            next: 0,
            value: None,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let first = variants.first().copied().unwrap_or_default();
        let variant: de::value::StrDeserializer<'_, DeError> = first.into_deserializer();
        visitor.visit_enum(variant)
    }

    serde::forward_to_deserialize_any! {
        unit unit_struct identifier ignored_any
    }
}

/// A placeholder that first notes the kind of value its field asks for:
/// how the format guide learns that `unit_price` is a number.
struct Noting<'e> {
    kinds: Option<&'e RefCell<Vec<ValueKind>>>,
    slot: usize,
}

impl Noting<'_> {
    fn note(&self, kind: ValueKind) {
        if let Some(kinds) = self.kinds {
            if let Some(slot) = kinds.borrow_mut().get_mut(self.slot) {
                *slot = kind;
            }
        }
    }
}

macro_rules! noting {
    ($($method:ident => $kind:expr),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            self.note($kind);
            Placeholder.$method(visitor)
        }
    )*};
}

impl<'de> Deserializer<'de> for Noting<'_> {
    type Error = DeError;

    noting! {
        deserialize_any => ValueKind::Text,
        deserialize_bool => ValueKind::Bool,
        deserialize_i8 => ValueKind::Integer,
        deserialize_i16 => ValueKind::Integer,
        deserialize_i32 => ValueKind::Integer,
        deserialize_i64 => ValueKind::Integer,
        deserialize_i128 => ValueKind::Integer,
        deserialize_u8 => ValueKind::Integer,
        deserialize_u16 => ValueKind::Integer,
        deserialize_u32 => ValueKind::Integer,
        deserialize_u64 => ValueKind::Integer,
        deserialize_u128 => ValueKind::Integer,
        deserialize_f32 => ValueKind::Float,
        deserialize_f64 => ValueKind::Float,
        deserialize_char => ValueKind::Char,
        deserialize_str => ValueKind::Text,
        deserialize_string => ValueKind::Text,
        deserialize_bytes => ValueKind::Text,
        deserialize_byte_buf => ValueKind::Text,
        deserialize_unit => ValueKind::Text,
        deserialize_seq => ValueKind::List(&ValueKind::Text),
        deserialize_map => ValueKind::Text,
        deserialize_identifier => ValueKind::Text,
        deserialize_ignored_any => ValueKind::Text,
    }

    /// The kind of what the option holds.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.note(ValueKind::Text);
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.note(ValueKind::List(&ValueKind::Text));
        Placeholder.deserialize_tuple(len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.note(ValueKind::List(&ValueKind::Text));
        Placeholder.deserialize_tuple_struct(name, len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.note(ValueKind::Text);
        Placeholder.deserialize_struct(name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.note(ValueKind::Choice(variants));
        Placeholder.deserialize_enum(name, variants, visitor)
    }
}
