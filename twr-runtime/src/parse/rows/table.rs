//! Finding a table inside a section, among the prose around it: a markdown
//! pipe table (outer pipes and alignment row optional, `\|` escaped, rows of
//! any length), else TSV, else CSV.
//!
//! One pass over the section's lines follows the three candidate shapes at
//! once; only the chosen block is then split into cells. CSV and TSV are
//! split by the `csv` crate (quoting, doubled quotes, multi-line fields);
//! pipe rows by hand, since no crate reads a markdown table loosely and
//! borrows its cells.

use std::borrow::Cow;

use memchr::memchr;

use super::fields::FieldMatcher;
use crate::parse::prepare::is_fence;

/// How the table was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableFormat {
    /// A markdown pipe table.
    Pipe,
    /// Comma-separated values.
    Csv,
    /// Tab-separated values.
    Tsv,
}

/// A table as written: its column names and its rows of cells, trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table<'a> {
    pub format: TableFormat,
    pub columns: Vec<Cow<'a, str>>,
    /// The data rows in order; rows with no cell written are left out, so
    /// row 1 is the first row the reader sees under the header.
    pub rows: Vec<Vec<Cow<'a, str>>>,
}

/// One line of the section: where it starts and its text without the line
/// break.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    start: usize,
    text: &'a str,
}

fn lines(content: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = content.as_bytes();
    while start < bytes.len() {
        let end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let text = &content[start..end];
        out.push(Line {
            start,
            text: text.strip_suffix('\r').unwrap_or(text),
        });
        start = end + 1;
    }
    out
}

/// The table of the section `content`. When there are several, the last
/// one whose header names a field wins (models draft, then finalise); a CSV
/// or TSV block counts only when a line of it names a field, since prose
/// has commas too. `fields` is `None` when the row type's fields are not
/// known (a map): then the last block of each shape is taken.
pub(crate) fn find_table<'a>(content: &'a str, fields: Option<&FieldMatcher>) -> Option<Table<'a>> {
    let lines = lines(content);
    let mut pipe = PipeBlocks::default();
    let mut tsv = Delimited::new(b'\t');
    let mut csv = Delimited::new(b',');
    for (i, line) in lines.iter().enumerate() {
        let text = line.text.trim();
        pipe.feed(i, text, &lines, fields);
        tsv.feed(i, text, fields);
        csv.feed(i, text, fields);
    }
    pipe.close(&lines, fields);
    tsv.close(fields);
    csv.close(fields);
    // A table whose header names a field first, pipes before tabs before
    // commas (a pipe or comma inside a cell of another shape makes a false
    // block, whose header names no field); without known fields, the last
    // block of the first shape found.
    let pipe_any = if fields.is_some() {
        None
    } else {
        pipe.any.take()
    };
    if let Some(block) = pipe.matching.take().or(pipe_any) {
        return Some(pipe_table(&block, &lines));
    }
    let chosen = match fields {
        Some(_) => tsv
            .matching
            .map(|b| (TableFormat::Tsv, b))
            .or(csv.matching.map(|b| (TableFormat::Csv, b))),
        None => tsv
            .any
            .map(|b| (TableFormat::Tsv, b))
            .or(csv.any.map(|b| (TableFormat::Csv, b))),
    };
    let Some((format, block)) = chosen else {
        // A pipe table naming no field still is the table: its columns go
        // into the feedback.
        return pipe.any.map(|block| pipe_table(&block, &lines));
    };
    let delimiter = if format == TableFormat::Tsv {
        b'\t'
    } else {
        b','
    };
    let start = lines[block.0].start;
    let end = lines[block.1 - 1].start + lines[block.1 - 1].text.len();
    Some(delimited_table(&content[start..end], format, delimiter))
}

/// Pipe lines grouped into tables as the lines go by.
#[derive(Default)]
struct PipeBlocks {
    /// The pipe lines of the table being read (blank lines between rows are
    /// allowed and left out).
    current: Vec<usize>,
    /// The last table whose header names a field.
    matching: Option<Vec<usize>>,
    /// The last table.
    any: Option<Vec<usize>>,
    /// A blank line came after the last pipe line.
    after_blank: bool,
}

impl PipeBlocks {
    fn feed(&mut self, i: usize, text: &str, lines: &[Line<'_>], fields: Option<&FieldMatcher>) {
        if text.is_empty() {
            self.after_blank = true;
            return;
        }
        let last = self.current.last().map(|&l| lines[l].text.trim());
        // Rows a blank line apart stay one table when both have outer pipes;
        // without them a blank line ends the table, as in markdown.
        let split = self.after_blank
            && !(text.starts_with('|') && last.is_some_and(|l| l.starts_with('|')));
        self.after_blank = false;
        if split || is_fence(text) || !has_pipe(text) {
            self.close(lines, fields);
            if !has_pipe(text) || is_fence(text) {
                return;
            }
        }
        if self.current.len() >= 2
            && is_alignment(text)
            && !is_alignment(lines[self.current[self.current.len() - 1]].text.trim())
        {
            // An alignment row under rows already read: a second table whose
            // header is the line just before.
            let header = self.current.pop();
            self.close(lines, fields);
            self.current.extend(header);
        }
        self.current.push(i);
    }

    fn close(&mut self, lines: &[Line<'_>], fields: Option<&FieldMatcher>) {
        let block = std::mem::take(&mut self.current);
        // A header and at least one more line: one line with a pipe is prose.
        if block.len() < 2 {
            return;
        }
        let names_a_field = fields.is_some_and(|fields| {
            block
                .iter()
                .map(|&i| lines[i].text.trim())
                .find(|text| !is_alignment(text))
                .is_some_and(|header| {
                    pipe_cells(header)
                        .iter()
                        .any(|cell| fields.find(cell).is_some())
                })
        });
        if names_a_field {
            self.matching = Some(block.clone());
        }
        self.any = Some(block);
    }
}

/// Lines holding a delimiter, grouped into blocks as the lines go by.
struct Delimited {
    delimiter: u8,
    /// The block being read: its first line and its first line naming a
    /// field.
    start: Option<usize>,
    header: Option<usize>,
    end: usize,
    /// Inside a quoted field that runs over lines.
    in_quotes: bool,
    /// The last block with a header naming a field, from that header.
    matching: Option<(usize, usize)>,
    /// The last block of two lines or more.
    any: Option<(usize, usize)>,
}

impl Delimited {
    fn new(delimiter: u8) -> Self {
        Delimited {
            delimiter,
            start: None,
            header: None,
            end: 0,
            in_quotes: false,
            matching: None,
            any: None,
        }
    }

    fn feed(&mut self, i: usize, text: &str, fields: Option<&FieldMatcher>) {
        let bytes = text.as_bytes();
        // A doubled quote inside a quoted field keeps the parity.
        let odd_quotes = bytes.iter().filter(|&&b| b == b'"').count() % 2 == 1;
        // Inside a block, a line that opens or is inside a quoted field
        // belongs to it whatever it holds.
        let continues = self.start.is_some() && !text.is_empty() && (self.in_quotes || odd_quotes);
        if !continues
            && (text.is_empty() || is_fence(text) || memchr(self.delimiter, bytes).is_none())
        {
            self.close(fields);
            return;
        }
        self.start.get_or_insert(i);
        if self.header.is_none() && !continues {
            if let Some(fields) = fields {
                let names = text
                    .split(self.delimiter as char)
                    .any(|cell| fields.find(cell).is_some());
                if names {
                    self.header = Some(i);
                }
            }
        }
        if odd_quotes {
            self.in_quotes = !self.in_quotes;
        }
        self.end = i + 1;
    }

    fn close(&mut self, _fields: Option<&FieldMatcher>) {
        if let Some(start) = self.start.take() {
            if let Some(header) = self.header.take() {
                if self.end - header >= 2 {
                    self.matching = Some((header, self.end));
                }
            }
            if self.end - start >= 2 {
                self.any = Some((start, self.end));
            }
        }
        self.in_quotes = false;
    }
}

fn has_pipe(text: &str) -> bool {
    memchr(b'|', text.as_bytes()).is_some()
}

/// `| :--- | ---: |`: every cell dashes with optional colons. Looked at
/// byte by byte, without splitting: every line of a table passes here.
fn is_alignment(text: &str) -> bool {
    let mut cells = 0;
    let mut dashes = false;
    // Within a cell: before the dashes, in them, after them.
    let mut after = false;
    for b in text.bytes() {
        match b {
            b'|' => {
                if dashes {
                    cells += 1;
                } else if after {
                    return false;
                }
                dashes = false;
                after = false;
            }
            b'-' if !after => dashes = true,
            b':' => {
                if dashes {
                    after = true;
                }
            }
            b' ' | b'\t' => {
                if dashes {
                    after = true;
                }
            }
            _ => return false,
        }
    }
    cells + usize::from(dashes) > 0
}

/// The cells of a pipe row (already trimmed), split at `|` that is not
/// escaped as `\|`, each trimmed, outer pipes taken as such.
fn pipe_cells(text: &str) -> Vec<Cow<'_, str>> {
    let (mut cells, lead, trail) = split_pipes(text);
    outer(&mut cells, lead, trail);
    cells
}

/// Every cell between pipes, the empty ones outside outer pipes included,
/// and whether the row starts and ends with a pipe.
fn split_pipes(text: &str) -> (Vec<Cow<'_, str>>, bool, bool) {
    let bytes = text.as_bytes();
    let mut cells = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'|') => {
                escaped = true;
                i += 2;
            }
            b'|' => {
                cells.push(cell(&text[start..i], escaped));
                start = i + 1;
                escaped = false;
                i += 1;
            }
            _ => i += 1,
        }
    }
    cells.push(cell(&text[start..], escaped));
    let lead = text.starts_with('|');
    let trail = text.len() > 1 && text.ends_with('|') && !text.ends_with("\\|");
    (cells, lead, trail)
}

/// Drops the empty cells outside outer pipes.
fn outer(cells: &mut Vec<Cow<'_, str>>, lead: bool, trail: bool) {
    if trail {
        cells.pop();
    }
    if lead && !cells.is_empty() {
        cells.remove(0);
    }
}

/// The cells of a data row under a header of `columns` cells. Pipes at both
/// ends are outer pipes when the header has them too, or when that gives the
/// row as many cells as the header; otherwise a leading or trailing pipe is
/// a cell boundary when that gives exactly as many: ` | 3 | 4` under
/// `A | B | C` starts with an empty cell.
fn row_cells<'a>(text: &'a str, columns: usize, header_outer: (bool, bool)) -> Vec<Cow<'a, str>> {
    let (mut cells, lead, trail) = split_pipes(text);
    let all = cells.len();
    let inner = all - usize::from(lead) - usize::from(trail);
    let both = lead && trail && header_outer == (true, true);
    let (strip_lead, strip_trail) = if inner == columns || both {
        (lead, trail)
    } else if all == columns {
        (false, false)
    } else if all - usize::from(lead) == columns {
        (lead, false)
    } else if all - usize::from(trail) == columns {
        (false, trail)
    } else {
        (
            lead && (header_outer.0 || trail),
            trail && (header_outer.1 || lead),
        )
    };
    outer(&mut cells, strip_lead, strip_trail);
    cells
}

fn cell(text: &str, escaped: bool) -> Cow<'_, str> {
    let text = text.trim();
    if escaped {
        Cow::Owned(text.replace("\\|", "|"))
    } else {
        Cow::Borrowed(text)
    }
}

fn pipe_table<'a>(block: &[usize], lines: &[Line<'a>]) -> Table<'a> {
    let mut texts = block
        .iter()
        .map(|&i| lines[i].text.trim())
        .filter(|text| !is_alignment(text));
    let header = texts.next().unwrap_or_default();
    let columns = pipe_cells(header);
    let header_outer = (
        header.starts_with('|'),
        header.len() > 1 && header.ends_with('|'),
    );
    let rows = texts
        .map(|text| row_cells(text, columns.len(), header_outer))
        .filter(|cells| cells.iter().any(|c| !c.is_empty()))
        .collect();
    Table {
        format: TableFormat::Pipe,
        columns,
        rows,
    }
}

/// Splits a CSV or TSV block with the `csv` crate: quoted fields, doubled
/// quotes, rows of any length.
fn delimited_table(block: &str, format: TableFormat, delimiter: u8) -> Table<'static> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .trim(csv::Trim::All)
        .from_reader(block.as_bytes());
    let mut records = reader.records().map_while(Result::ok).map(|record| {
        record
            .iter()
            .map(|cell| Cow::<str>::Owned(cell.to_owned()))
            .collect::<Vec<_>>()
    });
    let columns = records.next().unwrap_or_default();
    let rows = records
        .filter(|cells| cells.iter().any(|c| !c.is_empty()))
        .collect();
    Table {
        format,
        columns,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[&str] = &["item", "price", "quantity"];

    fn read(content: &str) -> Option<(TableFormat, Vec<String>, Vec<Vec<String>>)> {
        let fields = FieldMatcher::new(FIELDS);
        let table = find_table(content, Some(&fields))?;
        let owned = |cells: Vec<Cow<'_, str>>| cells.into_iter().map(Cow::into_owned).collect();
        Some((
            table.format,
            owned(table.columns),
            table.rows.into_iter().map(owned).collect(),
        ))
    }

    fn expect(
        format: TableFormat,
        columns: &[&str],
        rows: &[&[&str]],
    ) -> Option<(TableFormat, Vec<String>, Vec<Vec<String>>)> {
        let owned = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        Some((
            format,
            owned(columns),
            rows.iter().map(|r| owned(r)).collect(),
        ))
    }

    #[test]
    fn pipe_tables_with_and_without_outer_pipes_and_alignment_row() {
        let want = expect(
            TableFormat::Pipe,
            &["Item", "Price"],
            &[&["Tea", "$3.50"], &["Cake", "4"]],
        );
        for content in [
            "| Item | Price |\n|------|------:|\n| Tea | $3.50 |\n| Cake | 4 |",
            "Item | Price\n--- | ---\nTea | $3.50\nCake | 4",
            "| Item | Price |\n| Tea | $3.50 |\n| Cake | 4 |",
            "Item | Price\nTea | $3.50\nCake | 4",
            "|Item|Price|\r\n|:-|:-:|\r\n|Tea|$3.50|\r\n|Cake|4|\r\n",
            "| Item | Price |\n|---|---|\n\n| Tea | $3.50 |\n\n| Cake | 4 |",
        ] {
            assert_eq!(read(content), want, "{content:?}");
        }
    }

    #[test]
    fn escaped_pipes_and_ragged_rows() {
        assert_eq!(
            read("| Item | Price |\n|---|---|\n| A \\| B | 2 |\n| C |\n| D | 3 | extra |"),
            expect(
                TableFormat::Pipe,
                &["Item", "Price"],
                &[&["A | B", "2"], &["C"], &["D", "3", "extra"]],
            )
        );
        assert_eq!(
            read("Item | Price\nTea \\|"),
            expect(TableFormat::Pipe, &["Item", "Price"], &[&["Tea |"]])
        );
    }

    #[test]
    fn empty_first_and_last_cells_of_a_table_without_outer_pipes() {
        assert_eq!(
            read("Item | Price | Quantity\n--- | --- | ---\n | 3 | 4\nTea | 3 | \n | | 5"),
            expect(
                TableFormat::Pipe,
                &["Item", "Price", "Quantity"],
                &[&["", "3", "4"], &["Tea", "3", ""], &["", "", "5"]],
            )
        );
    }

    #[test]
    fn a_table_among_prose_and_the_last_of_several() {
        let content = "Here is my draft | rough:\n\n| Item | Price |\n|---|---|\n| Tea | 1 |\n\nOn second thought:\n\n| Item | Price |\n|---|---|\n| Tea | 2 |\n\nThat is all | thanks.";
        assert_eq!(
            read(content),
            expect(TableFormat::Pipe, &["Item", "Price"], &[&["Tea", "2"]])
        );
        // Two tables with no line between: the alignment row starts the second.
        let glued =
            "| Item | Price |\n|---|---|\n| Tea | 1 |\n| Item | Price |\n|---|---|\n| Tea | 2 |";
        assert_eq!(
            read(glued),
            expect(TableFormat::Pipe, &["Item", "Price"], &[&["Tea", "2"]])
        );
        // A later table that names no field does not replace one that does.
        let summary =
            "| Item | Price |\n|---|---|\n| Tea | 1 |\n\n| Total | Tax |\n|---|---|\n| 1 | 0 |";
        assert_eq!(
            read(summary),
            expect(TableFormat::Pipe, &["Item", "Price"], &[&["Tea", "1"]])
        );
    }

    #[test]
    fn alignment_rows() {
        for row in [
            "|---|---|",
            "| :--- | ---: |",
            "---|:-:",
            "-",
            "|-|",
            "| --- |  |",
        ] {
            assert!(is_alignment(row), "{row:?}");
        }
        for row in ["| - - |", "|a|---|", "| |", "|", "", "--- x", "|:|", ":-:-"] {
            assert!(!is_alignment(row), "{row:?}");
        }
    }

    #[test]
    fn header_and_alignment_without_rows() {
        assert_eq!(
            read("| Item | Price |\n|---|---|\n"),
            expect(TableFormat::Pipe, &["Item", "Price"], &[])
        );
        assert_eq!(read("a | b\nno more pipes"), None);
    }

    #[test]
    fn csv_and_tsv_among_prose() {
        let content = "Here are the items, one per line:\nItem,Price,Quantity\nTea,\"$1,200.50\",2\n\"Cake, \"\"big\"\"\",4,\n\nThat's all, thanks.";
        assert_eq!(
            read(content),
            expect(
                TableFormat::Csv,
                &["Item", "Price", "Quantity"],
                &[&["Tea", "$1,200.50", "2"], &["Cake, \"big\"", "4", ""]],
            )
        );
        let tsv = "Sure.\n```tsv\nitem\tprice\nTea\t3\nCake\t4\textra\n```\nDone, I think.";
        assert_eq!(
            read(tsv),
            expect(
                TableFormat::Tsv,
                &["item", "price"],
                &[&["Tea", "3"], &["Cake", "4", "extra"]],
            )
        );
        let multi_line = "Item,Price\n\"Tea\nwith milk\",3";
        assert_eq!(
            read(multi_line),
            expect(
                TableFormat::Csv,
                &["Item", "Price"],
                &[&["Tea\nwith milk", "3"]]
            )
        );
    }

    #[test]
    fn prose_with_commas_is_no_table_when_no_line_names_a_field() {
        assert_eq!(
            read("Apples, pears and plums.\nAlso, bananas, of course."),
            None
        );
        assert_eq!(read("No table here."), None);
        assert_eq!(read(""), None);
        // Without known fields, any two lines with commas make a table.
        let table = find_table("a,b\n1,2", None).unwrap();
        assert_eq!((table.columns.len(), table.rows.len()), (2, 1));
    }

    #[test]
    fn pipes_win_over_commas() {
        assert_eq!(
            read("| Item | Price |\n| Tea, green | 3 |"),
            expect(
                TableFormat::Pipe,
                &["Item", "Price"],
                &[&["Tea, green", "3"]]
            )
        );
    }
}
