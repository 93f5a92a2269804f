//! Typed rows from the cells of a table or the values of a record, through
//! serde: the row type's own `Deserialize` drives a deserializer over the
//! cells, and each cell is read the way a section value is (`$1,200` as a
//! number, `yes` as a bool, `N/A` as `None`, a choice ignoring case).
//!
//! Problems are collected per row and column rather than stopping at the
//! first: a cell that fails is replaced by a placeholder value and the row
//! read again, so one reply's feedback names every bad cell of a row (up to
//! [`MAX_PROBLEMS`] per section). Fields without a column, and the field
//! that each alias stands for, are found the same way, by asking the type.

mod de;
mod fields;
mod record;
mod table;

use serde::de::DeserializeOwned;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use self::de::{read_entries, Cell, DeError, Entry, Failure, Row};
use self::fields::{display_name, field_names, FieldMatcher};
use self::table::find_table;
use super::value::SectionValue;
use super::value_error::{excerpt, Expected, ValueError};
use crate::feedback::{Place, Problem, ProblemKind};
use crate::phrases::{phrases, Lang, Phrases};
use crate::prompt::placeholder;
use crate::vocab::ValueKind;

/// At most this many problems are reported for one section; the rest are
/// counted. A reply with ten thousand bad rows gets a readable message.
pub(crate) const MAX_PROBLEMS: usize = 10;

/// One thing wrong with a table or record section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RowsProblem {
    /// The section holds no table; the columns it should have.
    NoTable { columns: Vec<String> },
    /// The table has a header but no rows.
    NoRows,
    /// The section has no `Label: value` line; the labels it should have.
    NoLines { labels: Vec<String> },
    /// No column names this field; the columns the table has.
    NoColumn {
        column: String,
        columns: Vec<String>,
    },
    /// No line names this field.
    NoLabel { label: String },
    /// A line whose label names no field; the labels there are.
    UnknownLabel { label: String, labels: Vec<String> },
    /// A row with more cells than the table has columns.
    ExtraCells {
        row: usize,
        extra: String,
        columns: usize,
    },
    /// A cell or value with nothing in it.
    Empty { at: Place },
    /// A cell or value that is not a value of its field's type.
    BadValue {
        at: Place,
        expected: Expected,
        found: String,
    },
    /// One item of a list in a cell or value.
    BadItem {
        at: Place,
        index: usize,
        item: String,
        expected: Expected,
    },
    /// A cell, value or row the type's own deserializer rejected.
    Unreadable {
        at: Place,
        message: String,
        found: String,
    },
}

/// Every problem of one table or record section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RowsError {
    pub problems: Vec<RowsProblem>,
    /// Problems left out after [`MAX_PROBLEMS`].
    pub omitted: usize,
}

impl RowsError {
    fn one(problem: RowsProblem) -> Self {
        RowsError {
            problems: vec![problem],
            omitted: 0,
        }
    }
}

#[derive(Default)]
struct Report {
    problems: Vec<RowsProblem>,
    omitted: usize,
}

impl Report {
    fn push(&mut self, problem: RowsProblem) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(problem);
        } else {
            self.omitted += 1;
        }
    }

    /// How many more problems a row may add before the rest are counted.
    fn room(&self) -> usize {
        MAX_PROBLEMS.saturating_sub(self.problems.len()).max(1)
    }

    fn finish<T>(self, value: T) -> Result<T, RowsError> {
        if self.problems.is_empty() && self.omitted == 0 {
            Ok(value)
        } else {
            Err(RowsError {
                problems: self.problems,
                omitted: self.omitted,
            })
        }
    }
}

/// A table: the rows of a markdown pipe table, CSV or TSV in `content`,
/// its cells read with the words of `phrases`.
pub(crate) fn read_table_in<T: DeserializeOwned>(
    content: &str,
    phrases: &'static Phrases,
) -> Result<Vec<T>, RowsError> {
    let fields = Fields::of::<T>();
    let Some(table) = find_table(content, fields.as_ref().map(|f| &f.matcher)) else {
        let columns = fields.map(|f| f.display_names()).unwrap_or_default();
        return Err(RowsError::one(RowsProblem::NoTable { columns }));
    };
    let columns: Vec<&str> = table.columns.iter().map(|c| bare(c)).collect();
    // The key each column is read under: its field (the first column for a
    // field wins), or its own name when the fields are not known (a map).
    let keys: Vec<Option<&str>> = match &fields {
        Some(fields) => {
            let mut seen: Vec<&'static str> = Vec::new();
            columns
                .iter()
                .map(|column| {
                    let field = fields.matcher.find(column)?;
                    (!seen.contains(&field)).then(|| {
                        seen.push(field);
                        field
                    })
                })
                .collect()
        }
        None => columns
            .iter()
            .map(|column| (!column.is_empty()).then_some(*column))
            .collect(),
    };
    if table.rows.is_empty() {
        return Err(RowsError::one(RowsProblem::NoRows));
    }
    let mut report = Report::default();
    // Fields no column names: read the type with a placeholder in every
    // column that names one; what is still missing has no column.
    let header: Vec<Entry<'_>> = keys
        .iter()
        .flatten()
        .map(|key| Entry::placeholder(key))
        .collect();
    let no_column = match read_entries::<T>(header, usize::MAX, phrases) {
        Ok(_) => Vec::new(),
        Err(failures) => failures
            .into_iter()
            .filter_map(|failure| match failure {
                Failure::Missing(field) => Some(field),
                _ => None,
            })
            .collect(),
    };
    for field in &no_column {
        report.push(RowsProblem::NoColumn {
            column: display_name(field),
            columns: listed(&columns),
        });
    }
    let mut values = Vec::with_capacity(table.rows.len());
    for (i, cells) in table.rows.iter().enumerate() {
        let row = i + 1;
        if let Some(extra) = cells
            .get(columns.len()..)
            .filter(|extra| extra.iter().any(|c| !blank(c)))
        {
            let extra: Vec<&str> = extra.iter().map(|c| c.as_ref()).take(8).collect();
            report.push(RowsProblem::ExtraCells {
                row,
                extra: excerpt(&extra.join(" | ")),
                columns: columns.len(),
            });
            continue;
        }
        let entries: Vec<Entry<'_>> = keys
            .iter()
            .enumerate()
            .filter_map(|(j, key)| {
                let cell = cells.get(j).filter(|cell| !blank(cell))?;
                Some(Entry {
                    key: (*key)?,
                    cell: Cell::Text(cell),
                    source: j,
                })
            })
            .collect();
        match read_entries::<T>(entries, report.room(), phrases) {
            Ok(value) => values.push(value),
            Err(failures) => {
                for failure in failures {
                    let problem = match failure {
                        Failure::Bad { source, error } => {
                            let at = Place::Cell {
                                row,
                                column: columns.get(source).copied().unwrap_or_default().to_owned(),
                            };
                            cell_problem(at, error, cells.get(source).map_or("", |c| c.as_ref()))
                        }
                        Failure::Missing(field) if no_column.contains(&field) => continue,
                        Failure::Missing(field) => {
                            let column = keys
                                .iter()
                                .position(|key| *key == Some(field))
                                .and_then(|j| columns.get(j))
                                .map_or_else(|| display_name(field), |c| (*c).to_owned());
                            RowsProblem::Empty {
                                at: Place::Cell { row, column },
                            }
                        }
                        Failure::Row(error) => cell_problem(Place::Row(row), error, ""),
                    };
                    report.push(problem);
                }
            }
        }
    }
    report.finish(values)
}

/// A record: `Label: value` lines in `content`, one value of `T`, read with
/// the words of `phrases`.
pub(crate) fn read_record_in<T: DeserializeOwned>(
    content: &str,
    phrases: &'static Phrases,
) -> Result<T, RowsError> {
    let fields = Fields::of::<T>();
    let lines = record::entries(content, fields.as_ref().map(|f| &f.matcher));
    let labels = || {
        fields
            .as_ref()
            .map(Fields::display_names)
            .unwrap_or_default()
    };
    if lines.iter().all(|line| line.value.trim().is_empty()) {
        return Err(RowsError::one(RowsProblem::NoLines { labels: labels() }));
    }
    let mut report = Report::default();
    let mut entries: Vec<Entry<'_>> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let key = match &fields {
            Some(fields) => fields.matcher.find(line.label),
            None => Some(line.label),
        };
        let Some(key) = key else {
            // An introduction (`Here are the details:`) is not a field.
            if !line.value.trim().is_empty() {
                report.push(RowsProblem::UnknownLabel {
                    label: line.label.to_owned(),
                    labels: labels(),
                });
            }
            continue;
        };
        // The last line for a field wins, as the last header does.
        entries.retain(|entry| entry.key != key);
        if !blank(&line.value) {
            entries.push(Entry {
                key,
                cell: Cell::Text(&line.value),
                source: i,
            });
        }
    }
    let failures = match read_entries::<T>(entries, report.room(), phrases) {
        Ok(value) => return report.finish(value),
        Err(failures) => failures,
    };
    for failure in failures {
        let problem = match failure {
            Failure::Bad { source, error } => {
                let line = &lines[source];
                cell_problem(Place::Label(line.label.to_owned()), error, &line.value)
            }
            Failure::Missing(field) => {
                // A line for the field with nothing after its label is empty;
                // no line at all is missing.
                let written = lines.iter().rev().find(|line| {
                    fields.as_ref().and_then(|f| f.matcher.find(line.label)) == Some(field)
                });
                match written {
                    Some(line) => RowsProblem::Empty {
                        at: Place::Label(line.label.to_owned()),
                    },
                    None => RowsProblem::NoLabel {
                        label: display_name(field),
                    },
                }
            }
            Failure::Row(error) => cell_problem(Place::Label(String::new()), error, content),
        };
        report.push(problem);
    }
    Err(RowsError {
        problems: report.problems,
        omitted: report.omitted,
    })
}

/// The fields of a struct row type: each accepted name (renames, aliases)
/// with the field it stands for, and the fields in declaration order.
struct Fields {
    matcher: FieldMatcher,
    fields: Vec<&'static str>,
    /// What each field holds, as the type asks for it.
    kinds: Vec<ValueKind>,
}

impl Fields {
    /// `None` when `T` is not a struct with named fields.
    fn of<T: DeserializeOwned>() -> Option<Fields> {
        let names = field_names::<T>()?;
        // serde reports a field given twice by the field's own name, whichever
        // alias was used: that names the field of each alias.
        let field_of = |name: &'static str| {
            let twice = [Entry::placeholder(name), Entry::placeholder(name)];
            match T::deserialize(Row {
                entries: &twice,
                kinds: None,
                phrases: &Phrases::ENGLISH,
            }) {
                Err(DeError::Duplicate(field)) => field,
                _ => name,
            }
        };
        let pairs: Vec<(&'static str, &'static str)> =
            names.iter().map(|name| (*name, field_of(name))).collect();
        let mut fields: Vec<&'static str> = Vec::with_capacity(pairs.len());
        for (_, field) in &pairs {
            if !fields.contains(field) {
                fields.push(field);
            }
        }
        // Read once with a noting placeholder in every field.
        let kinds = RefCell::new(vec![ValueKind::Text; fields.len()]);
        let probes: Vec<Entry<'_>> = fields
            .iter()
            .enumerate()
            .map(|(slot, key)| Entry {
                key,
                cell: Cell::Probe(slot),
                source: slot,
            })
            .collect();
        let _ = T::deserialize(Row {
            entries: &probes,
            kinds: Some(&kinds),
            phrases: &Phrases::ENGLISH,
        });
        Some(Fields {
            matcher: FieldMatcher::with_fields(pairs),
            fields,
            kinds: kinds.into_inner(),
        })
    }

    fn display_names(&self) -> Vec<String> {
        self.fields.iter().map(|f| display_name(f)).collect()
    }
}

/// At most this many columns are named in a message.
const MAX_LISTED: usize = 12;

fn listed(columns: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = columns
        .iter()
        .filter(|c| !c.is_empty())
        .take(MAX_LISTED)
        .map(|c| (*c).to_owned())
        .collect();
    if columns.len() > MAX_LISTED {
        out.push("…".to_owned());
    }
    out
}

/// A column name or label without markdown or quotes: `**Item**` → `Item`.
fn bare(name: &str) -> &str {
    name.trim()
        .trim_matches(|c: char| matches!(c, '*' | '_' | '`' | '"' | '\''))
        .trim()
}

/// A cell with nothing written in it: empty, or only dashes, dots or stars
/// (`-`, `—`, `...`): the field is absent from that row.
fn blank(cell: &str) -> bool {
    cell.chars()
        .all(|c| c.is_whitespace() || matches!(c, '-' | '—' | '–' | '_' | '*' | '.' | '…' | '/'))
}

fn cell_problem(at: Place, error: DeError, text: &str) -> RowsProblem {
    let unreadable = |at, message: String| RowsProblem::Unreadable {
        at,
        message,
        found: excerpt(text),
    };
    match error {
        DeError::Value(ValueError::Empty) => RowsProblem::Empty { at },
        DeError::Value(ValueError::Invalid { expected, found }) => RowsProblem::BadValue {
            at,
            expected,
            found,
        },
        DeError::Value(ValueError::BadItem {
            index,
            item,
            expected,
        }) => RowsProblem::BadItem {
            at,
            index,
            item,
            expected,
        },
        DeError::Value(other) => unreadable(at, other.to_string()),
        DeError::InEntry { error, .. } => cell_problem(at, *error, text),
        other => unreadable(at, other.to_string()),
    }
}

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;

/// The slot of one value of `kind` as written in a cell or after a label,
/// on one line: `<a single number>`, a list as `<item>, <item>`.
fn cell_example(kind: &ValueKind, lang: Lang) -> String {
    match kind {
        ValueKind::List(inner) => {
            let item = phrases(lang).item_slot(inner);
            format!("{item}, {item}")
        }
        ValueKind::Text
        | ValueKind::Integer
        | ValueKind::Float
        | ValueKind::Bool
        | ValueKind::Char
        | ValueKind::Choice(_)
        | ValueKind::Json
        | ValueKind::Custom
        | ValueKind::Table
        | ValueKind::Record
        | ValueKind::Map(_) => placeholder(kind, lang),
    }
}

/// The problems of a table, record or map section for the section reader,
/// each at its place. They carry no example: a cell's only example would be
/// the guide's slot for its kind (`<a single number>`), and "not a number
/// such as <a single number>" would only repeat the sentence.
fn into_value_error(error: RowsError) -> ValueError {
    let mut problems: Vec<Problem> = Vec::with_capacity(error.problems.len() + 1);
    for problem in error.problems {
        let (kind, place) = match problem {
            RowsProblem::NoTable { columns } => (ProblemKind::NoTable { columns }, None),
            RowsProblem::NoRows => return ValueError::Empty,
            RowsProblem::NoLines { labels } => (ProblemKind::NoRecord { labels }, None),
            RowsProblem::NoColumn { column, columns } => {
                (ProblemKind::NoColumn { column, columns }, None)
            }
            RowsProblem::NoLabel { label } => (ProblemKind::Missing, Some(Place::Label(label))),
            RowsProblem::UnknownLabel { label, labels } => {
                (ProblemKind::UnknownLabel { label, labels }, None)
            }
            RowsProblem::ExtraCells {
                row,
                extra,
                columns,
            } => (
                ProblemKind::ExtraCells { extra, columns },
                Some(Place::Row(row)),
            ),
            RowsProblem::Empty { at } => (ProblemKind::Empty, Some(at)),
            RowsProblem::BadValue {
                at,
                expected,
                found,
            } => (ProblemKind::BadValue { expected, found }, Some(at)),
            RowsProblem::BadItem {
                at,
                index,
                item,
                expected,
            } => (
                ProblemKind::BadItem {
                    index,
                    item,
                    expected,
                },
                Some(at),
            ),
            RowsProblem::Unreadable { at, message, found } => {
                let at = match at {
                    Place::Label(label) if label.is_empty() => None,
                    at => Some(at),
                };
                (ProblemKind::Unreadable { message, found }, at)
            }
        };
        let mut out = Problem::new(String::new(), kind);
        if let Some(place) = place {
            out = out.with_place(place);
        }
        problems.push(out);
    }
    if error.omitted > 0 {
        problems.push(Problem::new(
            String::new(),
            ProblemKind::Omitted {
                count: error.omitted,
            },
        ));
    }
    ValueError::Rows(problems)
}

/// Codec of `#[section(table)]`: the rows of the table in the section,
/// read with the words of `phrases`.
pub fn table<R: DeserializeOwned>(
    content: &str,
    phrases: &'static Phrases,
) -> Result<Vec<R>, ValueError> {
    read_table_in::<R>(content, phrases).map_err(into_value_error)
}

/// Codec of `#[section(record)]`: the `Label: value` lines of the section,
/// read with the words of `phrases`.
pub fn record<M: DeserializeOwned>(
    content: &str,
    phrases: &'static Phrases,
) -> Result<M, ValueError> {
    read_record_in::<M>(content, phrases).map_err(into_value_error)
}

/// The example table of a row type: its fields as columns, one row of
/// placeholders.
pub fn table_example<R: DeserializeOwned>(lang: Lang) -> String {
    let Some(fields) = Fields::of::<R>() else {
        return placeholder(&ValueKind::Table, lang);
    };
    let names = fields.display_names();
    let cells: Vec<String> = fields.kinds.iter().map(|k| cell_example(k, lang)).collect();
    let dashes = vec!["---"; names.len()];
    format!(
        "| {} |\n|{}|\n| {} |",
        names.join(" | "),
        dashes.join("|"),
        cells.join(" | ")
    )
}

/// The fields of a row or record type: each one's name, its name as the
/// guide writes it (`unit_price` gives `Unit Price`) and its kind; `None`
/// when `R` is not a struct with named fields.
pub fn columns<R: DeserializeOwned>() -> Option<Vec<(&'static str, String, ValueKind)>> {
    let fields = Fields::of::<R>()?;
    Some(
        fields
            .fields
            .iter()
            .zip(fields.display_names())
            .zip(&fields.kinds)
            .map(|((name, label), kind)| (*name, label, *kind))
            .collect(),
    )
}

/// The example lines of a record type: one `Label: value` line per field.
pub fn record_example<M: DeserializeOwned>(lang: Lang) -> String {
    let Some(fields) = Fields::of::<M>() else {
        return placeholder(&ValueKind::Record, lang);
    };
    fields
        .display_names()
        .iter()
        .zip(&fields.kinds)
        .map(|(name, kind)| format!("{name}: {}", cell_example(kind, lang)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A map section: `Name: value` lines, each value read as `V`; every bad
/// value is named by its label.
fn read_map<V: SectionValue>(
    content: &str,
    phrases: &Phrases,
    mut insert: impl FnMut(String, V),
) -> Result<(), ValueError> {
    let lines = record::entries(content, None);
    let mut report = Report::default();
    let mut any = false;
    for line in &lines {
        if blank(&line.value) {
            continue;
        }
        any = true;
        match V::parse_section_with(&line.value, phrases) {
            Ok(value) => insert(line.label.to_owned(), value),
            Err(error) => {
                let at = Place::Label(line.label.to_owned());
                report.push(cell_problem(at, DeError::Value(error), &line.value));
            }
        }
    }
    if !any {
        // Text but no `Name: value` line (`apples = 3`): say the form.
        return Err(if !lines.is_empty() || blank(content) {
            ValueError::Empty
        } else {
            ValueError::invalid(Expected::Described(phrases.map.to_owned()), content)
        });
    }
    report.finish(()).map_err(into_value_error)
}

/// `Name: value` lines, each value read as `V`: `Kyoto: 3 days`.
impl<V: SectionValue, S: BuildHasher + Default> SectionValue for HashMap<String, V, S> {
    const KIND: ValueKind = ValueKind::Map(&V::KIND);

    fn parse_section(content: &str) -> Result<Self, ValueError> {
        Self::parse_section_with(content, &Phrases::ENGLISH)
    }

    fn parse_section_with(content: &str, phrases: &Phrases) -> Result<Self, ValueError> {
        let mut map = HashMap::default();
        read_map::<V>(content, phrases, |key, value| {
            map.insert(key, value);
        })?;
        Ok(map)
    }
}

/// `Name: value` lines, each value read as `V`, in name order.
impl<V: SectionValue> SectionValue for BTreeMap<String, V> {
    const KIND: ValueKind = ValueKind::Map(&V::KIND);

    fn parse_section(content: &str) -> Result<Self, ValueError> {
        Self::parse_section_with(content, &Phrases::ENGLISH)
    }

    fn parse_section_with(content: &str, phrases: &Phrases) -> Result<Self, ValueError> {
        let mut map = BTreeMap::new();
        read_map::<V>(content, phrases, |key, value| {
            map.insert(key, value);
        })?;
        Ok(map)
    }
}
