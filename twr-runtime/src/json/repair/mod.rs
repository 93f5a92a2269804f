//! The repair pass: broken JSON in, valid JSON text out, in one linear pass.
//!
//! The pass reads the input once, left to right, writing into one pre-sized
//! buffer. It keeps an explicit stack of open containers (so deep nesting
//! costs heap, never call stack). Where two readings are possible it looks
//! ahead over white space and one token ([`ahead`]), never further, so each
//! byte is read a bounded number of times. It fixes what models commonly
//! get wrong and refuses everything else: prose is never turned into a
//! string, a repair that has two readings is an error, and so is a position
//! it cannot make sense of, so the caller can say what to fix.

mod ahead;
mod bare_words;
mod closers;
mod scalar;
mod string;
#[cfg(test)]
mod tests;

use memchr::{memchr, memmem};

use super::report::{Repair, RepairSet};
pub(crate) use ahead::{
    colon_then_container, comma_and_container, continues_value, only_closers_after,
};
use ahead::{is_key_byte, unicode_space};
use string::{Quote, Role, BOM, LEFT_DOUBLE, LEFT_SINGLE, RIGHT_DOUBLE, RIGHT_SINGLE};

/// Repaired JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repaired {
    /// Valid JSON syntax (nesting depth aside: the deserializer checks that).
    pub(crate) text: String,
    /// The byte offset in the input where the value ended.
    pub(crate) end: usize,
    /// True when only white space, comments and a `;` follow the value.
    pub(crate) whole: bool,
    /// What was fixed.
    pub(crate) repairs: RepairSet,
    /// What the model wrote inside the value that the value does not hold
    /// (see [`Report::dropped`](super::report::Report::dropped)).
    pub(crate) dropped: Vec<String>,
}

/// Why the input could not be repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepairError {
    /// Byte offset in the input.
    pub(crate) at: usize,
    /// What was expected there, for the model.
    pub(crate) message: &'static str,
    /// How far the pass read before it gave up (at least `at`): a value
    /// starting before it is a piece of this one.
    pub(crate) reached: usize,
    /// What the pass read before it gave up was JSON, not a bracket of
    /// prose: an object, or a list of more than one item.
    pub(crate) json_like: bool,
}

/// Repairs the JSON value that starts at byte `start` of `input`.
///
/// The value ends where it ends; what follows is left alone (prose after a
/// JSON object) and [`Repaired::whole`] says whether it was only trivia.
/// `fenced`: the value starts inside a code fence.
pub(crate) fn repair(input: &str, start: usize, fenced: bool) -> Result<Repaired, RepairError> {
    repair_from(input, start, fenced, Top::Value)
}

/// Like [`repair`], for a reply that is one Python value in parentheses
/// (`("a", "b")`, `(1)`): the `(` at `start` opens a tuple, or the value
/// it holds when no comma stands in it.
pub(crate) fn repair_tuple(
    input: &str,
    start: usize,
    fenced: bool,
) -> Result<Repaired, RepairError> {
    repair_from(input, start, fenced, Top::Tuple)
}

/// Like [`repair`], for a reply that is values with commas between and
/// nothing around them (`1, 2, 3`), as Python reads a tuple: each value
/// a number, a quoted string or a literal, the text's end the tuple's.
pub(crate) fn repair_bare_tuple(
    input: &str,
    start: usize,
    fenced: bool,
) -> Result<Repaired, RepairError> {
    repair_from(input, start, fenced, Top::BareTuple)
}

/// What the value at the start of a repair may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Any JSON value; a `(` there opens prose.
    Value,
    /// The reply is one Python value in parentheses.
    Tuple,
    /// The reply is values with commas between, the tuple's parentheses
    /// left out.
    BareTuple,
}

fn repair_from(input: &str, start: usize, fenced: bool, top: Top) -> Result<Repaired, RepairError> {
    let mut r = Repairer {
        src: input.as_bytes(),
        pos: start,
        fenced,
        next_quote: None,
        next_newline: None,
        out: Vec::with_capacity(input.len() - start + 16),
        stack: Vec::new(),
        objects: Vec::new(),
        arrays: Vec::new(),
        repairs: RepairSet::default(),
        dropped: Vec::new(),
        inserted_separator: false,
        bare_key_end: None,
        tuple_commas: Vec::new(),
        tuple_opens: Vec::new(),
        top_tuple: top == Top::Tuple,
        commas_read: 0,
        key_start: start,
        repairs_before_key: RepairSet::default(),
        structure_in_last_comment: None,
        string_over_lines: false,
        text_quote_in_string: false,
        lone_double_in_single: None,
        smart_closed_plain: None,
        continued_after_closer: [false; 2],
        closed_by_rest: None,
        end_guessed: None,
    };
    let first = if top == Top::BareTuple {
        r.push_frame(Frame::BareTuple);
        r.repairs.insert(Repair::PythonTuple);
        Expect::ItemOrEnd {
            comma: false,
            item_out: r.out.len(),
        }
    } else {
        Expect::Top
    };
    if let Err(mut e) = r.run(first) {
        e.json_like = input.as_bytes()[start] == b'{' || r.commas_read > 0;
        return Err(e);
    }
    let end = r.pos;
    // `["null,false,",x"]` from `[null,false,",x"]`: a string whose end
    // is not sure (here its text ends in a comma), then a quote left out
    // (here an opening one, before `x`): the string's quote may be a stray
    // that took in the comma, and the quote read as left out the one that
    // opened the next string.
    if let (Some((opened, guess)), true) = (r.end_guessed, r.repairs.contains(Repair::MissingQuote))
    {
        return Err(RepairError {
            at: opened,
            message: guess.message(),
            reached: r.pos,
            json_like: true,
        });
    }
    // A string opened with `“` and closed by a plain quote, and quotes
    // or closers after the value, in prose or a comment: the plain
    // quote may have opened a string whose text held the closer that
    // ended the value (`{"a":“["}!",null]}` read as `{"a": "["}` drops
    // `null`; so does `[“["]#",null],false]`, the rest a comment).
    // So is one followed by a comma put in or a cut (`[1,“[2],"["]`, read
    // as `[1, "[2],", ["]"]]`): a second guess about the same quotes.
    if let Some(opened) = r.smart_closed_plain {
        let second_guess =
            r.repairs.contains(Repair::MissingComma) || r.repairs.contains(Repair::Truncated);
        if second_guess || memchr::memchr3(b'"', b'}', b']', r.rest()).is_some() {
            return Err(RepairError {
                at: opened,
                message: "this string opened with \u{201C} is closed by a plain quote, and \
                              quotes or brackets follow the value it ends, so where it ends is \
                              not known; close it with \u{201D}, or write its quote as \\\"",
                reached: r.pos,
                json_like: true,
            });
        }
    }
    // Look past the value: white space, comments and a `;` may close the
    // input; anything else is prose after the value, and the repairs seen
    // while looking do not count.
    let before = r.repairs;
    r.skip_trivia();
    // A comment after a repaired value that holds quotes or brackets
    // (`[1"0,[-1,"]#"]]`, read as `[1,"0,[-1,"]`): the comment may be the
    // rest of the value, a repair having ended it early.
    if !before.is_empty() && memchr::memchr3(b'"', b'}', b']', &r.src[end..r.pos]).is_some() {
        return Err(RepairError {
            at: end,
            message: "the value was repaired and ends here, yet a comment after it holds quotes \
                      or brackets, so where it ends is not known; write the value whole, with a \
                      quote inside a string as \\\" and a comma between items",
            reached: r.pos,
            json_like: true,
        });
    }
    if r.peek() == Some(b';') {
        r.repairs.insert(Repair::TrailingSemicolon);
        r.pos += 1;
        r.skip_trivia();
    }
    let whole = r.at_end();
    if !whole {
        // The value was repaired, and a quote follows it: a repair may
        // have ended it early, the quote closing a string of the value
        // (`[null,""O,"]"]` read as `[null,"\"O,"]`, its closing quote
        // taken for text, drops the `"]"` item; `[-1"0,"]",-10]` read as
        // `[-1,"0,"]`, a comma put in, drops `-10`). Two readings: refused.
        // Prose after a value (`{'a': 1}, and then...`) starts otherwise.
        // So does a string read over lines to a quote with a quote later
        // on the line after the value (`["\n 1,\n "]!"\n]` read as one
        // string drops `"]!"`): the quote may have opened a string.
        let rest_of_line = r.rest().split(|&b| b == b'\n').next().unwrap_or_default();
        // So does a quote on the line after the value and then a closer,
        // on that line or a later one (`["",""O,"]!"]` read as
        // `["","\"O,"]` drops `"]!"`; `{"  " ": "}<",\n "b": {..}}` read
        // as `{"  ": ": "}` drops `b`): the rest of a value, not prose.
        // (A value closed early and continued is the caller's to say.)
        let rest = r.rest();
        let quote_then_closer = !continues_value(r.src, end)
            && memchr(b'"', rest_of_line)
                .is_some_and(|q| memchr::memchr2(b']', b'}', &rest[q..]).is_some());
        let quote_after = r.peek() == Some(b'"')
            || quote_then_closer
            || (before.contains(Repair::ControlCharacter) && memchr(b'"', rest_of_line).is_some());
        if !before.is_empty() && quote_after {
            return Err(RepairError {
                at: r.pos,
                message: "the value was repaired and ends here, yet a quote follows, so \
                          where it ends is not known; write the value whole, with a quote \
                          inside a string as \\\" and a comma between items",
                // What follows may be the rest of the value: a value that
                // starts in it is a piece of this one, never the answer.
                reached: r.src.len(),
                json_like: true,
            });
        }
        r.repairs = before;
    }
    let repairs = r.repairs;
    // The pass copies whole UTF-8 sequences and inserts only ASCII, so this
    // never fails; the check is cheap and keeps the code free of `unsafe`.
    let text = String::from_utf8(r.out).map_err(|_| RepairError {
        at: start,
        message: "the text is not valid UTF-8",
        reached: input.len(),
        json_like: true,
    })?;
    Ok(Repaired {
        text,
        end,
        whole,
        repairs,
        dropped: r.dropped,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Object,
    Array,
    /// A Python tuple, `(…)`, written as an array.
    Tuple,
    /// A Python set, `{'a', 'b'}`, written as an array: an object whose
    /// first key was followed by a comma, not a colon.
    Set,
    /// A whole reply of values with commas between (`1, 2`), written as
    /// an array; the end of the text closes it.
    BareTuple,
}

impl Frame {
    /// The opening bracket written out.
    fn opener(self) -> u8 {
        match self {
            Frame::Object => b'{',
            Frame::Array | Frame::Tuple | Frame::Set | Frame::BareTuple => b'[',
        }
    }

    /// The closing bracket written out.
    fn closer(self) -> u8 {
        match self {
            Frame::Object => b'}',
            Frame::Array | Frame::Tuple | Frame::Set | Frame::BareTuple => b']',
        }
    }

    /// The closing bracket the input closes it with.
    fn closing_byte(self) -> u8 {
        match self {
            Frame::Tuple => b')',
            Frame::Set => b'}',
            // No bracket closes it: the end of the text does.
            Frame::BareTuple => 0,
            frame => frame.closer(),
        }
    }
}

/// What the pass expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The top-level value.
    Top,
    /// A key or `}`; `comma` when a `,` is pending (written only when an
    /// item follows, which is how trailing commas disappear).
    KeyOrEnd { comma: bool, item_out: usize },
    /// The `:` after a key; `item_out` is where the member began in the
    /// output, to drop it if it never gets a value.
    Colon { item_out: usize },
    /// A member's value.
    MemberValue { item_out: usize },
    /// An array item or `]`.
    ItemOrEnd { comma: bool, item_out: usize },
    /// A `,` or the end of the innermost container.
    CommaOrEnd,
    /// The top-level value is complete.
    Done,
}

/// How a string or literal ended.
enum Ended {
    Complete,
    /// The input ran out inside it.
    Truncated,
}

struct Repairer<'a> {
    src: &'a [u8],
    pos: usize,
    /// The value starts inside a code fence: a bare fence line inside a
    /// string is the fence closing a reply cut off there.
    fenced: bool,
    /// The next `"` at or after some position once searched for (`None`
    /// inside: there is none), so that the search is done once.
    next_quote: Option<Option<usize>>,
    /// The same for the next line break, so that many `"#` on one line
    /// cost one search.
    next_newline: Option<Option<usize>>,
    out: Vec<u8>,
    stack: Vec<Frame>,
    /// Where the open objects and arrays are in `stack`, innermost last: a
    /// closing bracket finds the nearest container of its kind in constant
    /// time.
    objects: Vec<usize>,
    arrays: Vec<usize>,
    repairs: RepairSet,
    dropped: Vec<String>,
    /// Where a line comment that runs to the end of the input starts, when
    /// its text holds a quote or a closer (`{"a": [1, #"], "b": 2}`): the
    /// "comment" may be the rest of the value, so a value cut off there
    /// is two guesses (a comment, then a cut) and is refused.
    structure_in_last_comment: Option<usize>,
    /// The last string read held a raw line break: where it ended was
    /// read over lines, a guess already.
    string_over_lines: bool,
    /// The last string read held a double quote taken for text: where it
    /// ended was a guess already.
    text_quote_in_string: bool,
    /// Where the first string in single quotes holding an unpaired `"`
    /// opened: that `"` may open a string of its own, so a value then cut
    /// off is two guesses (`[['a],{"":"',"}]`: the single quote a stray,
    /// the string that runs to the end opened by the `"` inside it).
    lone_double_in_single: Option<usize>,
    /// Where the first string opened with `“` and closed by a plain `"`
    /// was opened: which quote closes it is a guess already.
    smart_closed_plain: Option<usize>,
    /// A container was closed by a `}` (first) or a `]` (second) and its
    /// container of the same kind went on after a comma: that bracket may
    /// have been a stray one and what followed the closed container's, so
    /// a bracket of the wrong kind later, one too many somewhere, has two
    /// readings.
    continued_after_closer: [bool; 2],
    /// The pass put in the `,` or `:` before the coming value: a value
    /// of bare words is then refused (`[1 apples]` is not two items).
    inserted_separator: bool,
    /// Where the last key ended when it was written without quotes: a
    /// value right there, with no colon and not even a space between, is
    /// a guess about where the key ends stacked on the colon's
    /// (`{4549.75}`).
    bare_key_end: Option<usize>,
    /// For each open tuple, innermost last: whether a `,` was met in it
    /// (`(1)` is 1 in Python, not a tuple).
    tuple_commas: Vec<bool>,
    /// For each open tuple, innermost last: where its `[` was written,
    /// blanked out when the tuple turns out to be one value in
    /// parentheses.
    tuple_opens: Vec<usize>,
    /// A tuple may stand at the top level (the whole reply is one).
    top_tuple: bool,
    /// Commas the model wrote between items or members.
    commas_read: usize,
    /// Where the last key began, and the repairs made before it: a first
    /// key followed by a comma is the first value of a set, read again.
    key_start: usize,
    repairs_before_key: RepairSet,
    /// Containers the rest of the input closes, counted from the position
    /// last asked (see `Repairer::closed_by_rest`): a later question counts
    /// only the bytes between, so every byte is counted once.
    closed_by_rest: Option<(usize, isize)>,
    /// Where the first value string whose end is not sure opened, and why
    /// (see [`EndGuess`]): a quote left out in the same value is then a
    /// second guess about the same quotes.
    end_guessed: Option<(usize, EndGuess)>,
}

/// Why where a string ends is not sure, though it was read.
#[derive(Clone, Copy)]
enum EndGuess {
    /// Its text ends in a comma (`"-1,"`): a stray quote before a value
    /// takes in its comma that way.
    Comma,
    /// It runs over lines: its closing quote may be another string's.
    OverLines,
    /// It is in single quotes and holds a lone double quote, which may
    /// open a string of its own.
    LoneDouble,
}

impl EndGuess {
    /// The feedback when a quote is left out after such a string.
    fn message(self) -> &'static str {
        match self {
            EndGuess::Comma => {
                "this string ends in a comma, and a quote is missing after it, so its comma may \
                 be the separator and its quotes misplaced (`\"a,\"` for `\"a\",`); write each \
                 string with its two quotes and the comma after it"
            }
            EndGuess::OverLines => {
                "this string runs over lines, and a quote is missing after it, so its closing \
                 quote may be another string's; close each string on its line, with a line \
                 break inside it as \\n"
            }
            EndGuess::LoneDouble => {
                "this string in single quotes holds a lone double quote, and a quote is missing \
                 after it, so the double quote may open a string of its own; write each string \
                 in double quotes, with a quote inside it as \\\""
            }
        }
    }
}

impl Repairer<'_> {
    fn error<T>(&self, message: &'static str) -> Result<T, RepairError> {
        Err(RepairError {
            at: self.pos,
            message,
            reached: self.pos,
            json_like: false,
        })
    }

    /// An error at `at`, the pass having read to `pos`.
    fn error_from<T>(&self, at: usize, message: &'static str) -> Result<T, RepairError> {
        Err(RepairError {
            at,
            message,
            reached: self.pos,
            json_like: false,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn rest(&self) -> &[u8] {
        &self.src[self.pos..]
    }

    /// True at the end of the input or at a code-fence marker, which ends
    /// the JSON the same way (a reply cut off inside a fence that was then
    /// closed).
    fn at_end(&self) -> bool {
        let rest = self.rest();
        rest.is_empty() || rest.starts_with(b"```") || rest.starts_with(b"~~~")
    }

    /// Skips white space, comments and byte-order marks.
    fn skip_trivia(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if self.src.get(self.pos + 1) == Some(&b'/') => self.skip_line_comment(),
                b'#' => self.skip_line_comment(),
                b'/' if self.src.get(self.pos + 1) == Some(&b'*') => {
                    self.repairs.insert(Repair::Comment);
                    let (start, body) = (self.pos, self.pos + 2);
                    self.pos = match memmem::find(&self.src[body..], b"*/") {
                        Some(i) => body + i + 2,
                        None => {
                            // Never closed, it runs to the end: as a line
                            // comment that does (`[1, "a", /*"]]`).
                            if memchr::memchr3(b'"', b'}', b']', &self.src[body..]).is_some() {
                                self.structure_in_last_comment = Some(start);
                            }
                            self.src.len()
                        }
                    };
                    self.drop_text(start, self.pos);
                }
                0xEF if self.rest().starts_with(BOM) => {
                    self.repairs.insert(Repair::Bom);
                    self.pos += BOM.len();
                }
                // A no-break space, an ideographic space: white space to
                // a reader.
                0xC2 | 0xE1 | 0xE2 | 0xE3 if unicode_space(self.rest()) > 0 => {
                    self.repairs.insert(Repair::UnicodeSpace);
                    self.pos += unicode_space(self.rest());
                }
                _ => return,
            }
        }
    }

    fn skip_line_comment(&mut self) {
        self.repairs.insert(Repair::Comment);
        let start = self.pos;
        let (end, next) = match memchr(b'\n', self.rest()) {
            Some(i) => (self.pos + i, self.pos + i + 1),
            None => {
                if memchr::memchr3(b'"', b'}', b']', self.rest()).is_some() {
                    self.structure_in_last_comment = Some(start);
                }
                (self.src.len(), self.src.len())
            }
        };
        self.drop_text(start, end);
        self.pos = next;
    }

    /// Notes the input's `start..end`, left out of a value being read, in
    /// [`Repaired::dropped`]; text outside any container is no part of one.
    fn drop_text(&mut self, start: usize, end: usize) {
        if !self.stack.is_empty() {
            let text = String::from_utf8_lossy(&self.src[start..end]);
            self.dropped.push(text.trim_end().to_owned());
        }
    }

    fn push_frame(&mut self, frame: Frame) {
        let at = self.stack.len();
        match frame {
            Frame::Object => self.objects.push(at),
            Frame::Array => self.arrays.push(at),
            Frame::Tuple => {
                self.tuple_commas.push(false);
                self.tuple_opens.push(self.out.len());
            }
            Frame::Set | Frame::BareTuple => {}
        }
        self.inserted_separator = false;
        self.out.push(frame.opener());
        self.stack.push(frame);
    }

    /// Closes the innermost container, writing its own closing bracket.
    fn pop_frame(&mut self) {
        if let Some(frame) = self.stack.pop() {
            match frame {
                Frame::Object => self.objects.pop(),
                Frame::Array => self.arrays.pop(),
                Frame::Tuple => self
                    .tuple_commas
                    .pop()
                    .and(self.tuple_opens.pop())
                    .map(|_| 0),
                Frame::Set | Frame::BareTuple => None,
            };
            self.out.push(frame.closer());
        }
    }

    /// The state after a complete value.
    fn after_value(&self) -> Expect {
        if self.stack.is_empty() {
            Expect::Done
        } else {
            Expect::CommaOrEnd
        }
    }

    fn run(&mut self, first: Expect) -> Result<(), RepairError> {
        let mut expect = first;
        while expect != Expect::Done {
            self.skip_trivia();
            if self.at_end() {
                return self.finish_truncated(expect);
            }
            let b = self.src[self.pos];
            expect = match expect {
                Expect::Top => self.value(None)?,
                Expect::KeyOrEnd { .. } | Expect::ItemOrEnd { .. } if self.placeholder()? => {
                    // `[1, ...]`: the comma was the placeholder's.
                    let closer = matches!(self.peek(), Some(b'}' | b']' | b')'));
                    match expect {
                        Expect::KeyOrEnd { item_out, .. } if closer => Expect::KeyOrEnd {
                            comma: false,
                            item_out,
                        },
                        Expect::ItemOrEnd { item_out, .. } if closer => Expect::ItemOrEnd {
                            comma: false,
                            item_out,
                        },
                        _ => expect,
                    }
                }
                Expect::KeyOrEnd { comma, item_out } => match b {
                    b'}' | b']' | b')' => {
                        if comma {
                            self.repairs.insert(Repair::TrailingComma);
                        }
                        self.close(b)?
                    }
                    b',' => {
                        self.repairs.insert(Repair::TrailingComma);
                        self.pos += 1;
                        self.inserted_separator = false;
                        Expect::KeyOrEnd { comma, item_out }
                    }
                    _ => {
                        if comma {
                            self.out.push(b',');
                        }
                        match self.key()? {
                            Ended::Complete => Expect::Colon { item_out },
                            Ended::Truncated => {
                                return self.finish_truncated(Expect::Colon { item_out })
                            }
                        }
                    }
                },
                Expect::Colon { item_out } if self.first_key_then(item_out, b',') => {
                    self.open_set(item_out)
                }
                Expect::Colon { item_out } if self.first_key_then(item_out, b'}') => {
                    return self.error(
                        "one value stands in braces with no `:` after it, so it may be a key left \
                         without its value or a set of one value; write an object with a value \
                         for each key, or a list in [ ]",
                    );
                }
                Expect::Colon { item_out } => {
                    if b == b':' {
                        self.pos += 1;
                        self.inserted_separator = false;
                    } else if b == b'"'
                        && self.bare_key_end == Some(self.pos)
                        && self.src.get(self.pos + 1) == Some(&b':')
                    {
                        // `{a": 1}`: a quote glued between a key without
                        // quotes and its colon closes the key, its
                        // opening quote left out.
                        self.repairs.insert(Repair::MissingQuote);
                        self.pos += 2;
                        self.inserted_separator = false;
                    } else if self
                        .quote_here()
                        .is_some_and(|(_, len)| self.src.get(self.pos + len) == Some(&b':'))
                        && self.src.get(self.pos.wrapping_sub(1)).is_some_and(|&prev| {
                            matches!(prev, b'"' | b'\'' | b'_') || prev.is_ascii_alphanumeric()
                        })
                    {
                        // `{"a"": [1, "}"]}`: a quote glued between the key
                        // and its colon is a stray one, not a string whose
                        // text starts with the colon (`{"a" ":"}` is).
                        return self
                            .error("a quote stands between the key and its `:`; take it out");
                    } else if matches!(b, b'"' | b'\'')
                        && matches!(self.src.get(self.pos.wrapping_sub(1)), Some(b'"' | b'\''))
                    {
                        // `{"""" "a": 1}`: a key's closing quote glued to
                        // the next quote is a colon left out before the
                        // value, or a quote doubled as CSV writes one
                        // (`""a""`): two readings. So with quotes of the
                        // other kind (`""''": 1`: a stray quote before
                        // the key `''`).
                        return self.error(
                            "another quote follows the key's closing quote at once, so it may \
                             open the value (a `:` left out) or be a doubled quote; write \
                             \"key\": \"value\"",
                        );
                    } else if memchr::memchr2(b'}', b']', &self.src[self.key_start..self.pos])
                        .is_some()
                        && self.starts_plain_value()
                    {
                        // `{"},"{"]`: a key holding a closer, a value after
                        // it with no `:`: its opening quote may be a stray
                        // before the closer, the rest a value of its own.
                        return self.error(
                            "this key holds a closing bracket and no `:` follows it, so its \
                             opening quote may be a stray one; write \"key\": value",
                        );
                    } else if !self.inserted_separator
                        && self.bare_key_end != Some(self.pos)
                        && self.starts_plain_value()
                    {
                        // `{"a" 1}`: a value that is no bare word (which
                        // could be more of the key) right after the key;
                        // not after a key whose comma was put in too.
                        self.repairs.insert(Repair::MissingColon);
                        self.inserted_separator = true;
                    } else {
                        return self.error("expected `:` after the key");
                    }
                    self.out.push(b':');
                    Expect::MemberValue { item_out }
                }
                Expect::MemberValue { item_out } => self.value(Some(item_out))?,
                Expect::ItemOrEnd { comma, item_out } => match b {
                    b']' | b'}' | b')' => {
                        // `(1,)`: a tuple's last comma is Python's own.
                        if comma && b != b')' {
                            self.repairs.insert(Repair::TrailingComma);
                        }
                        self.close(b)?
                    }
                    b',' => {
                        self.repairs.insert(Repair::TrailingComma);
                        self.pos += 1;
                        self.inserted_separator = false;
                        Expect::ItemOrEnd { comma, item_out }
                    }
                    _ => {
                        if comma {
                            self.out.push(b',');
                        }
                        self.value(Some(item_out))?
                    }
                },
                Expect::CommaOrEnd => {
                    let in_object = self.stack.last() == Some(&Frame::Object);
                    match b {
                        b'}' | b']' | b')' => self.close(b)?,
                        b',' => {
                            self.note_comma_after_closer(in_object);
                            self.pos += 1;
                            self.inserted_separator = false;
                            self.commas_read += 1;
                            self.next_item(in_object)
                        }
                        b':' if self.in_values_only() => {
                            return self.error(if self.stack.last() == Some(&Frame::Set) {
                                "a `:` follows a value in braces that hold values with commas \
                                 between and no keys (a set), so a key may be missing its value; \
                                 write an object with a value for each key, or a list in [ ]"
                            } else {
                                "a `:` follows one of the values with commas between; write an \
                                 object in { }, or a list in [ ]"
                            })
                        }
                        _ if self.in_values_only() => {
                            return self.error(
                                "values with commas between and no brackets or keys (a tuple \
                                 or a set) need a comma between each two; write the comma, or \
                                 the values as a list in [ ]",
                            )
                        }
                        _ if self.glued_to_value_before() => {
                            return self.error(
                                "this is glued to the value before it; write a `,` between \
                                 values, or write the value alone",
                            )
                        }
                        _ if matches!(b, b'"' | b'\'' | b'[' | b'{')
                            && self.string_before_ends_in_comma(in_object) =>
                        {
                            return self.error(
                                "the string before this ends in a comma and no comma follows \
                                 it, so its comma may be the separator and its quotes misplaced \
                                 (`\"a,\"` for `\"a\",`); write the comma after the closing \
                                 quote, or a comma between the values",
                            )
                        }
                        _ if in_object && self.starts_key(b) => {
                            self.note_comma_after_closer(true);
                            self.repairs.insert(Repair::MissingComma);
                            self.inserted_separator = true;
                            self.next_item(true)
                        }
                        _ if !in_object && self.starts_value(b) => {
                            self.note_comma_after_closer(false);
                            self.repairs.insert(Repair::MissingComma);
                            self.inserted_separator = true;
                            self.next_item(false)
                        }
                        _ if in_object => return self.error("expected `,` or `}`"),
                        _ => return self.error("expected `,` or `]`"),
                    }
                }
                // The loop ends before matching `Done`.
                Expect::Done => Expect::Done,
            };
        }
        Ok(())
    }

    /// At a `,` read or put in: notes when the value before it was closed
    /// by a bracket of the same kind as the container it stands in, so that
    /// what follows would fit the closed one as well (`{"a": {"x": 1}, "b":
    /// 2`: `"b"` may be a member of either object had the `}` been a stray).
    fn note_comma_after_closer(&mut self, in_object: bool) {
        match (self.out.last(), in_object) {
            (Some(b'}'), true) => self.continued_after_closer[0] = true,
            (Some(b']'), false) => self.continued_after_closer[1] = true,
            _ => {}
        }
    }

    /// The state for the item after a `,` (written when the item comes).
    fn next_item(&mut self, in_object: bool) -> Expect {
        if self.stack.last() == Some(&Frame::Tuple) {
            if let Some(comma) = self.tuple_commas.last_mut() {
                *comma = true;
            }
        }
        let item_out = self.out.len();
        if in_object {
            Expect::KeyOrEnd {
                comma: true,
                item_out,
            }
        } else {
            Expect::ItemOrEnd {
                comma: true,
                item_out,
            }
        }
    }

    fn starts_key(&self, b: u8) -> bool {
        b == b'"' || b == b'\'' || is_key_byte(b)
    }

    fn starts_value(&self, b: u8) -> bool {
        matches!(b, b'{' | b'[' | b'"' | b'\'' | b'-' | b'0'..=b'9')
            || b.is_ascii_alphabetic()
            || self.smart_quote_here()
    }

    /// True when a value that cannot be more of a key starts here: a
    /// quoted string, an object, a list, a number or a literal.
    fn starts_plain_value(&self) -> bool {
        self.quote_here().is_some() || ahead::item_at(self.src, self.pos)
    }

    /// True when the byte at `pos` is glued to the number, literal or word
    /// before it (`1O`, `1.2.3`, `1-2`): a stray character, never a value
    /// of its own.
    /// Whether the value just before `pos`, glued to it, is a string whose
    /// last character is a comma. Asked when another string, a list or an
    /// object follows it with no comma between: that comma may be the
    /// separator a misplaced quote took in (`{"a": "[1],""b": 2}` from
    /// `{"a": [1],"b": 2}` with a stray quote, `["null,1,"[2]]` from
    /// `[null,1,"[2]"]`), so a comma put in there would be a second guess.
    /// In a list, with white space between, the values read as written
    /// with their commas left out (`["a," "b"]`): one reading. In an object
    /// the key after white space may be one that starts with it, its quote
    /// taken for the string's end (`{"": "-1," " ": 2}` from `{"": -1, " ":
    /// 2}`): refused as well.
    fn string_before_ends_in_comma(&self, in_object: bool) -> bool {
        let mut end = self.pos;
        if in_object {
            // Back over the white space the pass skipped: once per value
            // that follows it.
            while end > 0 && matches!(self.src[end - 1], b' ' | b'\t' | b'\r' | b'\n') {
                end -= 1;
            }
        }
        end >= 2 && matches!(self.src[end - 1], b'"' | b'\'') && self.src[end - 2] == b','
    }

    fn glued_to_value_before(&self) -> bool {
        let token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_');
        self.pos > 0
            && token(self.src[self.pos - 1])
            && (token(self.src[self.pos]) || matches!(self.src[self.pos], b'+' | b'-' | b'$'))
    }

    fn smart_quote_here(&self) -> bool {
        let rest = self.rest();
        rest.starts_with(LEFT_DOUBLE)
            || rest.starts_with(RIGHT_DOUBLE)
            || rest.starts_with(LEFT_SINGLE)
            || rest.starts_with(RIGHT_SINGLE)
    }

    /// The quote at `pos`, if any, with its length.
    fn quote_here(&self) -> Option<(Quote, usize)> {
        let rest = self.rest();
        match rest.first()? {
            b'"' => Some((Quote::Double, 1)),
            b'\'' => Some((Quote::Single, 1)),
            0xE2 if rest.starts_with(LEFT_DOUBLE) || rest.starts_with(RIGHT_DOUBLE) => {
                Some((Quote::SmartDouble, 3))
            }
            0xE2 if rest.starts_with(LEFT_SINGLE) || rest.starts_with(RIGHT_SINGLE) => {
                Some((Quote::SmartSingle, 3))
            }
            _ => None,
        }
    }

    /// An object key, quoted or bare.
    fn key(&mut self) -> Result<Ended, RepairError> {
        self.bare_key_end = None;
        self.key_start = self.pos;
        self.repairs_before_key = self.repairs;
        if let Some((quote, len)) = self.quote_here() {
            return self.string(quote, len, Role::Key);
        }
        let start = self.pos;
        while self.pos < self.src.len() && is_key_byte(self.src[self.pos]) {
            if self.src[self.pos] >= 0x80
                && (self.smart_quote_here() || unicode_space(self.rest()) > 0)
            {
                break;
            }
            self.pos += 1;
        }
        if self.pos == start {
            return self.error("expected a key in double quotes");
        }
        // Written even when the input ends here: a key left without a
        // value is dropped and named as written out.
        self.out.push(b'"');
        self.out.extend_from_slice(&self.src[start..self.pos]);
        self.out.push(b'"');
        if self.pos == self.src.len() {
            return Ok(Ended::Truncated);
        }
        self.repairs.insert(Repair::UnquotedKey);
        self.bare_key_end = Some(self.pos);
        Ok(Ended::Complete)
    }

    /// A value; `item_out` is where its member or item began in the output
    /// (`None` at the top level), to drop it if the input ends before it does.
    /// Among a set's or a bare tuple's values only a number, a quoted
    /// string or a literal, each as written or in Python's spelling: a
    /// word there is a name, and a string whose quotes needed repair has
    /// a second reading of where it ends.
    fn value(&mut self, item_out: Option<usize>) -> Result<Expect, RepairError> {
        if !self.in_values_only() {
            return self.any_value(item_out);
        }
        if !self.scalar_here() {
            return self.error(
                "this stands among values with commas between and no keys (a set or a tuple), \
                 read only when each is a number, a quoted string, true, false or null; write \
                 text in double quotes, or the values as a list in [ ]",
            );
        }
        let (start, before) = (self.pos, self.repairs);
        let expect = self.any_value(item_out)?;
        let mut added = self.repairs.added_since(before);
        for spelling in [
            Repair::SingleQuotes,
            Repair::SmartQuotes,
            Repair::PythonLiteral,
            Repair::JsLiteral,
            Repair::NumberSpelling,
        ] {
            added.remove(spelling);
        }
        if !added.is_empty() {
            return self.error_from(
                start,
                "this value among values with commas between and no keys (a set or a tuple) was \
                 cut off or needed its quotes repaired, so where it ends is not known; write \
                 each string whole in quotes of its own, with a quote inside it as \\\"",
            );
        }
        Ok(expect)
    }

    /// True inside a set or a bare tuple, where values stand with commas
    /// between and no keys.
    fn in_values_only(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Set | Frame::BareTuple))
    }

    /// True when a number, a quoted string or a literal starts at `pos`.
    fn scalar_here(&self) -> bool {
        if self.quote_here().is_some() {
            return true;
        }
        if matches!(self.src[self.pos], b'-' | b'+' | b'.' | b'0'..=b'9') {
            return !self.infinity_here() && self.number_here();
        }
        let rest = self.rest();
        let word = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        let glued = rest.get(word).is_some_and(|&b| is_key_byte(b) || b == b'(');
        !glued && scalar::literal(&rest[..word]).is_some()
    }

    /// True when the object at the top was opened right before its first
    /// key (`item_out`), and `byte` follows that key where its `:` goes:
    /// after a key without quotes that starts like a number, the whole
    /// number (`{1.5, 2}`).
    fn first_key_then(&self, item_out: usize, byte: u8) -> bool {
        if self.stack.last() != Some(&Frame::Object)
            || self.out.get(item_out.wrapping_sub(1)) != Some(&b'{')
        {
            return false;
        }
        if self.bare_key_end.is_some()
            && matches!(self.src[self.key_start], b'-' | b'+' | b'.' | b'0'..=b'9')
        {
            let end = scalar::number_token_end(self.src, self.key_start);
            return self.src.get(ahead::skip_space(self.src, end)) == Some(&byte);
        }
        self.peek() == Some(byte)
    }

    /// `{'a', 'b'}`: the object's first key is followed by a comma, as in a
    /// Python set. The braces become a list, and the key is read again as
    /// its first value.
    fn open_set(&mut self, item_out: usize) -> Expect {
        self.pos = self.key_start;
        self.repairs = self.repairs_before_key;
        self.repairs.insert(Repair::PythonSet);
        self.out.truncate(item_out);
        self.out[item_out - 1] = b'[';
        self.stack.pop();
        self.objects.pop();
        self.stack.push(Frame::Set);
        self.bare_key_end = None;
        self.inserted_separator = false;
        Expect::ItemOrEnd {
            comma: false,
            item_out,
        }
    }

    /// Any value, as [`value`](Self::value) reads it outside a set.
    fn any_value(&mut self, item_out: Option<usize>) -> Result<Expect, RepairError> {
        let b = self.src[self.pos];
        match b {
            b'{' => {
                self.pos += 1;
                self.push_frame(Frame::Object);
                return Ok(Expect::KeyOrEnd {
                    comma: false,
                    item_out: self.out.len(),
                });
            }
            b'[' => {
                self.pos += 1;
                self.push_frame(Frame::Array);
                return Ok(Expect::ItemOrEnd {
                    comma: false,
                    item_out: self.out.len(),
                });
            }
            // A Python tuple, inside a value (a bare `(` opens prose), or
            // one the caller found to be the whole reply.
            b'(' if item_out.is_some() || (self.top_tuple && self.stack.is_empty()) => {
                self.pos += 1;
                self.repairs.insert(Repair::PythonTuple);
                self.push_frame(Frame::Tuple);
                return Ok(Expect::ItemOrEnd {
                    comma: false,
                    item_out: self.out.len(),
                });
            }
            _ if self.infinity_here() => {
                return self.error(
                    "Infinity is no JSON number, and no number JSON holds; write the number, \
                     or null when there is none",
                )
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' if self.number_here() => {
                if !self.number()? {
                    // Only `-` or a bare exponent before the end: no value.
                    return self.finish_without_value(item_out);
                }
            }
            _ if self.placeholder_len() > 0 => {
                return self.error(
                    "`...` stands for a value left out; write the value, or leave the member out",
                )
            }
            _ if b.is_ascii_alphabetic() || self.word_char_here() => {
                if let Ended::Truncated = self.words()? {
                    self.repairs.insert(Repair::Truncated);
                }
            }
            _ => match self.quote_here() {
                Some((quote, len)) => {
                    if let Ended::Truncated = self.string(quote, len, Role::Value)? {
                        // Keep the partial string; close everything.
                        return self.finish_truncated(Expect::Done).map(|()| Expect::Done);
                    }
                    if let Ended::Truncated = self.joined_strings()? {
                        return self.finish_truncated(Expect::Done).map(|()| Expect::Done);
                    }
                }
                None => {
                    return self.error(match self.stack.last() {
                        Some(Frame::Object) => "expected a value after the `:`",
                        Some(Frame::Array) => "expected a value or `]`",
                        Some(Frame::Tuple) => "expected a value or `)`",
                        Some(Frame::Set | Frame::BareTuple) | None => "expected a JSON value",
                    })
                }
            },
        }
        Ok(self.after_value())
    }

    /// The input ended where a value should have been: drop the member or
    /// item it belonged to, close the rest.
    fn finish_without_value(&mut self, item_out: Option<usize>) -> Result<Expect, RepairError> {
        let Some(item_out) = item_out else {
            return self.error("expected a JSON value");
        };
        let expect = if self.stack.last() == Some(&Frame::Object) {
            Expect::MemberValue { item_out }
        } else {
            Expect::ItemOrEnd {
                comma: false,
                item_out,
            }
        };
        self.finish_truncated(expect).map(|()| Expect::Done)
    }

    /// The input ended in state `expect`: drop a member without a value,
    /// then close every open container.
    fn finish_truncated(&mut self, expect: Expect) -> Result<(), RepairError> {
        if self.stack == [Frame::BareTuple] {
            // The end of the text closes a bare tuple, after a value or a
            // comma (`1, 2,`).
            let closes = match expect {
                Expect::CommaOrEnd => true,
                Expect::ItemOrEnd { comma, item_out } => {
                    if comma {
                        self.repairs.insert(Repair::TrailingComma);
                    }
                    self.out.truncate(item_out);
                    true
                }
                _ => false,
            };
            if closes {
                self.pop_frame();
                return Ok(());
            }
        }
        if self.stack.contains(&Frame::Set) {
            return self.error(
                "the text is cut off inside braces that hold values with commas between and no \
                 keys (a set), so a key and its `:` may have come next; write the whole set, or \
                 the values as a list in [ ]",
            );
        }
        if let (Some(at), false) = (self.structure_in_last_comment, self.stack.is_empty()) {
            return self.error_from(
                at,
                "this comment runs to the end and holds more of the value; close the value before it, or end the comment on its line",
            );
        }
        if let (Some(at), false) = (self.lone_double_in_single, self.stack.is_empty()) {
            return self.error_from(
                at,
                "this string in single quotes holds a lone double quote, and the value is cut off \
                 after it, so the double quote may open a string of its own; write the string in \
                 double quotes, with a quote inside it as \\\"",
            );
        }
        match expect {
            Expect::Top => return self.error("expected a JSON value"),
            Expect::Colon { item_out } | Expect::MemberValue { item_out } => {
                self.repairs.insert(Repair::DanglingKey);
                // The key as written out: `,"b":` less its comma and colon.
                let key = String::from_utf8_lossy(&self.out[item_out..]);
                let key = key.trim_start_matches(',').trim_end_matches(':');
                self.dropped.push(key.to_owned());
                self.out.truncate(item_out);
            }
            Expect::ItemOrEnd { item_out, .. } | Expect::KeyOrEnd { item_out, .. } => {
                self.out.truncate(item_out);
            }
            Expect::CommaOrEnd | Expect::Done => {}
        }
        if !self.stack.is_empty() {
            self.repairs.insert(Repair::Truncated);
        }
        while !self.stack.is_empty() {
            self.pop_frame();
        }
        Ok(())
    }
}
