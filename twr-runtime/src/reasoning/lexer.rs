//! The incremental tag lexer.
//!
//! Fed text in chunks split anywhere (a stream's pieces), it reports content
//! and reasoning as it goes. Written by hand because the work is one `memchr`
//! for `<` plus a look at at most one tag's length after it; each byte is
//! looked at a bounded number of times whatever the chunking, and the only
//! text held back at a chunk's end is a tag not yet complete (or a lone
//! closing tag waiting for its line to end, under [`Policy::JSON`]).

use crate::byte_search::find_byte;

use super::Policy;

/// What the lexer found, in text order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event<'a> {
    /// Text outside any block, `at` bytes from the start of all text fed.
    Content { text: &'a str, at: usize },
    /// Text inside a block, `at` bytes from the start of all text fed.
    Reasoning { text: &'a str, at: usize },
    /// An opening tag: the text up to the block's closing tag is reasoning.
    Open,
    /// The closing tag of the open block.
    Close,
    /// A closing tag before any block: the content reported so far was
    /// reasoning (the chat template opened the block in the prompt).
    LoneClose,
}

/// The two tag names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name {
    Think,
    Thinking,
}

/// A whole tag found in the text.
#[derive(Debug, Clone, Copy)]
struct Tag {
    len: usize,
    closing: bool,
    name: Name,
}

/// Every tag, spelled in lowercase: whether it closes, its name. None is a
/// prefix of another.
const TAGS: [(&[u8], bool, Name); 4] = [
    (b"<think>", false, Name::Think),
    (b"<thinking>", false, Name::Thinking),
    (b"</think>", true, Name::Think),
    (b"</thinking>", true, Name::Thinking),
];
const LONGEST: usize = 11;

/// What the bytes at a `<` are.
enum Match {
    Tag(Tag),
    /// They end while still the start of a tag: the next chunk decides.
    Partial,
    NotATag,
}

/// What a whole tag means where it stands.
enum Role {
    Open(Name),
    Close,
    LoneClose,
    /// A lone closing tag whose line must end before it counts.
    LoneCloseIfLineEnds,
    Text,
}

/// Text held back at the end of a chunk.
#[derive(Debug, Clone, Copy)]
enum Held {
    Nothing,
    /// A `<` and the start of a tag; whether the `<` stood at a line start.
    Partial {
        line_start: bool,
    },
    /// A lone closing tag of `len` bytes and the spaces after it, waiting
    /// for the end of the line ([`Policy::lone_close_at_line_end`]).
    LoneClose {
        len: usize,
    },
}

/// Splits text fed in chunks into content, reasoning and tags.
#[derive(Debug)]
pub(crate) struct Lexer {
    policy: Policy,
    /// Where the next chunk starts, in bytes from the start of all text.
    offset: usize,
    /// Inside a block: the name of its opening tag.
    inside: Option<Name>,
    /// Whether any tag counted yet (a lone closing tag counts only before).
    seen_tag: bool,
    /// Whether only spaces and tabs follow the last line break (or the
    /// start) in the text before the next chunk. Kept only when
    /// [`Policy::open_at_line_start`] needs it.
    line_start: bool,
    held: Held,
    /// The held-back text, starting at `held_at`.
    pending: String,
    held_at: usize,
}

impl Lexer {
    /// A lexer at the start of a text.
    pub(crate) fn new(policy: Policy) -> Self {
        Lexer {
            policy,
            offset: 0,
            inside: None,
            seen_tag: false,
            line_start: true,
            held: Held::Nothing,
            pending: String::new(),
            held_at: 0,
        }
    }

    /// Reads the next chunk, reporting what it can already tell to `out`.
    pub(crate) fn feed(&mut self, chunk: &str, out: &mut impl FnMut(Event<'_>)) {
        self.scan(chunk, out);
        self.offset += chunk.len();
    }

    /// Ends the text: what was held back is reported. A block still open
    /// stays reasoning (the reply was cut off while thinking); a lone closing
    /// tag waiting for its line end has it.
    pub(crate) fn finish(mut self, out: &mut impl FnMut(Event<'_>)) {
        match self.held {
            Held::Nothing => {}
            Held::Partial { .. } => self.release(out),
            Held::LoneClose { len } => self.confirm_lone_close(len, out),
        }
    }

    fn scan(&mut self, chunk: &str, out: &mut impl FnMut(Event<'_>)) {
        let Some(start) = self.resume(chunk, out) else {
            return;
        };
        let bytes = chunk.as_bytes();
        // `run..` is text not yet reported; `pos` is where to look next.
        let (mut run, mut pos) = (start, start);
        // The line-start state is known at `known.0`: `known.1`.
        let mut known = (start, self.line_start);
        while let Some(found) = find_byte(b'<', &bytes[pos..]) {
            let at = pos + found;
            let line_start = self.policy.open_at_line_start && {
                known = (at, line_start_after(&bytes[known.0..at], known.1));
                known.1
            };
            let tag = match self.match_tag(&bytes[at..bytes.len().min(at + LONGEST)]) {
                Match::NotATag => {
                    pos = at + 1;
                    continue;
                }
                Match::Partial => {
                    self.text(&chunk[run..at], self.offset + run, out);
                    self.hold(&chunk[at..], self.offset + at, Held::Partial { line_start });
                    return;
                }
                Match::Tag(tag) => tag,
            };
            let end = at + tag.len;
            pos = end;
            let role = match self.role(tag, line_start) {
                Role::Text => continue,
                Role::LoneCloseIfLineEnds => match line_ends(&bytes[end..]) {
                    Some(true) => Role::LoneClose,
                    Some(false) => continue,
                    None => {
                        self.text(&chunk[run..at], self.offset + run, out);
                        let held = Held::LoneClose { len: tag.len };
                        self.hold(&chunk[at..], self.offset + at, held);
                        return;
                    }
                },
                role => role,
            };
            self.text(&chunk[run..at], self.offset + run, out);
            self.take(role, out);
            run = end;
        }
        self.text(&chunk[run..], self.offset + run, out);
        if self.policy.open_at_line_start {
            self.line_start = line_start_after(&bytes[known.0..], known.1);
        }
    }

    /// Settles what the last chunk held back, with the start of `chunk`.
    /// Returns where in `chunk` the plain scan goes on, or `None` when all
    /// of `chunk` was held back too.
    fn resume(&mut self, chunk: &str, out: &mut impl FnMut(Event<'_>)) -> Option<usize> {
        match self.held {
            Held::Nothing => Some(0),
            Held::Partial { line_start } => {
                // The held part is shorter than a tag: glue on at most one
                // tag's length of the chunk and decide.
                let held = self.pending.len();
                let glued = chunk.len().min(LONGEST - held);
                let mut buf = [0u8; LONGEST];
                buf[..held].copy_from_slice(self.pending.as_bytes());
                buf[held..held + glued].copy_from_slice(&chunk.as_bytes()[..glued]);
                let tag = match self.match_tag(&buf[..held + glued]) {
                    Match::Partial => {
                        self.pending.push_str(chunk);
                        return None;
                    }
                    Match::NotATag => {
                        // The rest of the held part has no `<`: all text.
                        self.release(out);
                        return Some(0);
                    }
                    Match::Tag(tag) => tag,
                };
                let used = tag.len - held;
                match self.role(tag, line_start) {
                    Role::Text => {
                        self.release(out);
                        Some(0)
                    }
                    Role::LoneCloseIfLineEnds => {
                        self.pending.push_str(&chunk[..used]);
                        self.held = Held::LoneClose { len: tag.len };
                        self.resume_lone_close(tag.len, chunk, used, out)
                    }
                    role => {
                        self.pending.clear();
                        self.held = Held::Nothing;
                        self.line_start = false;
                        self.take(role, out);
                        Some(used)
                    }
                }
            }
            Held::LoneClose { len } => self.resume_lone_close(len, chunk, 0, out),
        }
    }

    /// A lone closing tag is held: `chunk[from..]` may end its line.
    fn resume_lone_close(
        &mut self,
        len: usize,
        chunk: &str,
        from: usize,
        out: &mut impl FnMut(Event<'_>),
    ) -> Option<usize> {
        match line_ends(&chunk.as_bytes()[from..]) {
            None => {
                self.pending.push_str(&chunk[from..]);
                None
            }
            Some(true) => {
                self.confirm_lone_close(len, out);
                Some(from)
            }
            Some(false) => {
                self.release(out);
                Some(from)
            }
        }
    }

    /// The held lone closing tag counts; the spaces after it are content.
    fn confirm_lone_close(&mut self, len: usize, out: &mut impl FnMut(Event<'_>)) {
        self.take(Role::LoneClose, out);
        let at = self.held_at + len;
        if self.pending.len() > len {
            out(Event::Content {
                text: &self.pending[len..],
                at,
            });
        }
        self.pending.clear();
        self.held = Held::Nothing;
        self.line_start = false;
    }

    /// The held text turned out to be text.
    fn release(&mut self, out: &mut impl FnMut(Event<'_>)) {
        self.text(&self.pending, self.held_at, out);
        self.pending.clear();
        self.held = Held::Nothing;
        self.line_start = false;
    }

    fn hold(&mut self, text: &str, at: usize, held: Held) {
        self.pending.push_str(text);
        self.held_at = at;
        self.held = held;
    }

    /// Reports text as content or reasoning, by where it stands.
    fn text(&self, text: &str, at: usize, out: &mut impl FnMut(Event<'_>)) {
        if text.is_empty() {
            return;
        }
        out(match self.inside {
            Some(_) => Event::Reasoning { text, at },
            None => Event::Content { text, at },
        });
    }

    /// Acts on a tag that counts.
    fn take(&mut self, role: Role, out: &mut impl FnMut(Event<'_>)) {
        let event = match role {
            Role::Open(name) => {
                self.inside = Some(name);
                Event::Open
            }
            Role::Close => {
                self.inside = None;
                Event::Close
            }
            Role::LoneClose => Event::LoneClose,
            // Not (yet) a tag that counts: nothing to act on.
            Role::LoneCloseIfLineEnds | Role::Text => return,
        };
        self.seen_tag = true;
        out(event);
    }

    fn match_tag(&self, bytes: &[u8]) -> Match {
        let mut partial = false;
        for (spelling, closing, name) in TAGS {
            let n = bytes.len().min(spelling.len());
            let same = if self.policy.ignore_case {
                bytes[..n].eq_ignore_ascii_case(&spelling[..n])
            } else {
                bytes[..n] == spelling[..n]
            };
            if same && n == spelling.len() {
                return Match::Tag(Tag {
                    len: n,
                    closing,
                    name,
                });
            }
            partial |= same;
        }
        if partial {
            Match::Partial
        } else {
            Match::NotATag
        }
    }

    fn role(&self, tag: Tag, line_start: bool) -> Role {
        let policy = self.policy;
        match (tag.closing, self.inside) {
            (false, None) if line_start || !policy.open_at_line_start => Role::Open(tag.name),
            (true, Some(open)) if policy.any_closing_name || open == tag.name => Role::Close,
            (true, None) if !self.seen_tag && policy.lone_close_at_line_end => {
                Role::LoneCloseIfLineEnds
            }
            (true, None) if !self.seen_tag => Role::LoneClose,
            _ => Role::Text,
        }
    }
}

/// Whether a line start holds after `text`, given whether it held before:
/// it does when nothing but spaces and tabs follow the last line break.
fn line_start_after(text: &[u8], before: bool) -> bool {
    match text.iter().rev().find(|&&b| b != b' ' && b != b'\t') {
        None => before,
        Some(&b) => b == b'\n',
    }
}

/// Whether the line ends after only spaces, tabs and `\r`: `None` when
/// `text` runs out first.
fn line_ends(text: &[u8]) -> Option<bool> {
    text.iter()
        .find(|&&b| !matches!(b, b' ' | b'\t' | b'\r'))
        .map(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PRESETS: [Policy; 3] = [Policy::CLIENT, Policy::SECTIONS, Policy::JSON];

    /// What the lexer reported, adjacent text of one kind joined.
    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Token {
        Content(String),
        Reasoning(String),
        Open,
        Close,
        LoneClose,
    }

    /// Lexes `whole` fed as `chunks`, checking that every piece of text is
    /// reported at its own offset, in order, and that what lies between the
    /// pieces is exactly the tags reported there.
    fn tokens<'a>(
        whole: &str,
        chunks: impl IntoIterator<Item = &'a str>,
        policy: Policy,
    ) -> Vec<Token> {
        let mut found = Vec::new();
        let mut end = 0;
        let mut tags = 0;
        let mut on = |event: Event<'_>| {
            let (text, at, reasoning) = match event {
                Event::Content { text, at } => (text, at, false),
                Event::Reasoning { text, at } => (text, at, true),
                tag => {
                    tags += 1;
                    found.push(match tag {
                        Event::Open => Token::Open,
                        Event::Close => Token::Close,
                        _ => Token::LoneClose,
                    });
                    return;
                }
            };
            assert!(!text.is_empty());
            assert_eq!(&whole[at..at + text.len()], text, "offset of {text:?}");
            assert_eq!(count_tags(&whole[end..at]), Some(tags), "gap before {at}");
            (end, tags) = (at + text.len(), 0);
            match (found.last_mut(), reasoning) {
                (Some(Token::Content(last)), false) | (Some(Token::Reasoning(last)), true) => {
                    last.push_str(text)
                }
                _ => found.push(if reasoning {
                    Token::Reasoning(text.to_string())
                } else {
                    Token::Content(text.to_string())
                }),
            }
        };
        let mut lexer = Lexer::new(policy);
        for chunk in chunks {
            lexer.feed(chunk, &mut on);
            check_held(&lexer);
        }
        lexer.finish(&mut on);
        assert_eq!(count_tags(&whole[end..]), Some(tags), "gap at the end");
        found
    }

    /// How many tags `gap` is made of; `None` when it holds anything else.
    fn count_tags(mut gap: &str) -> Option<usize> {
        let mut count = 0;
        while !gap.is_empty() {
            let (spelling, ..) = TAGS.iter().find(|(s, ..)| {
                gap.len() >= s.len() && gap.as_bytes()[..s.len()].eq_ignore_ascii_case(s)
            })?;
            let len = spelling.len();
            gap = &gap[len..];
            count += 1;
        }
        Some(count)
    }

    /// What a lexer holds back between chunks stays small: part of one tag,
    /// or one lone closing tag and the spaces after it.
    fn check_held(lexer: &Lexer) {
        match lexer.held {
            Held::Nothing => assert!(lexer.pending.is_empty()),
            Held::Partial { .. } => assert!(lexer.pending.len() < LONGEST),
            Held::LoneClose { len } => {
                assert!(count_tags(&lexer.pending[..len]) == Some(1));
                assert!(lexer.pending[len..]
                    .bytes()
                    .all(|b| matches!(b, b' ' | b'\t' | b'\r')));
            }
        }
    }

    /// `text` lexed whole, then split at every char boundary and in
    /// one-char pieces, which must all agree; shown compactly: reasoning in
    /// «», tags as {open}, {close}, {lone}.
    fn lex(text: &str, policy: Policy) -> String {
        let whole = tokens(text, [text], policy);
        for (cut, _) in text.char_indices().skip(1) {
            let split = tokens(text, [&text[..cut], &text[cut..]], policy);
            assert_eq!(split, whole, "{text:?} split at {cut}");
        }
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let pieces = tokens(text, chars.iter().map(String::as_str), policy);
        assert_eq!(pieces, whole, "{text:?} in one-char pieces");
        whole
            .iter()
            .map(|token| match token {
                Token::Content(text) => text.clone(),
                Token::Reasoning(text) => format!("«{text}»"),
                Token::Open => "{open}".into(),
                Token::Close => "{close}".into(),
                Token::LoneClose => "{lone}".into(),
            })
            .collect()
    }

    // One test per policy difference.

    #[test]
    fn ignore_case_makes_any_spelling_a_tag() {
        let text = "<THINK>r</Think>a";
        assert_eq!(lex(text, Policy::CLIENT), "<THINK>r</Think>a");
        assert_eq!(lex(text, Policy::SECTIONS), "{open}«r»{close}a");
        assert_eq!(lex(text, Policy::JSON), "{open}«r»{close}a");
    }

    #[test]
    fn any_closing_name_lets_either_closing_tag_end_a_block() {
        let text = "<thinking>r</think>s</thinking>a";
        assert_eq!(lex(text, Policy::CLIENT), "{open}«r</think>s»{close}a");
        assert_eq!(lex(text, Policy::SECTIONS), "{open}«r»{close}s</thinking>a");
        assert_eq!(lex(text, Policy::JSON), "{open}«r»{close}s</thinking>a");
    }

    #[test]
    fn open_at_line_start_leaves_mid_line_tags_as_text() {
        let text = "x <think>r</think> y\n \t<think>s</think>z";
        assert_eq!(
            lex(text, Policy::SECTIONS),
            "x {open}«r»{close} y\n \t{open}«s»{close}z"
        );
        assert_eq!(
            lex(text, Policy::JSON),
            "x <think>r</think> y\n \t{open}«s»{close}z"
        );
        // A tag ends no line: an opening tag right after one is mid-line.
        assert_eq!(
            lex("<think>r</think><think>s", Policy::JSON),
            "{open}«r»{close}<think>s"
        );
        assert_eq!(lex("a\n\r<think>s", Policy::JSON), "a\n\r<think>s");
    }

    #[test]
    fn lone_close_at_line_end_needs_the_line_to_end() {
        let text = "draft</think> answer";
        assert_eq!(lex(text, Policy::CLIENT), "draft{lone} answer");
        assert_eq!(lex(text, Policy::SECTIONS), "draft{lone} answer");
        assert_eq!(lex(text, Policy::JSON), "draft</think> answer");
        assert_eq!(
            lex("draft</think> \t\r\nanswer", Policy::JSON),
            "draft{lone} \t\r\nanswer"
        );
        assert_eq!(lex("draft</think>  ", Policy::JSON), "draft{lone}  ");
        // One that did not count leaves the next its chance.
        assert_eq!(
            lex("a</think>b\nc</think>\nd", Policy::JSON),
            "a</think>b\nc{lone}\nd"
        );
    }

    // The rules every policy shares.

    #[test]
    fn an_unclosed_block_is_reasoning_to_the_end() {
        for policy in PRESETS {
            assert_eq!(lex("a\n<think>r <thi", policy), "a\n{open}«r <thi»");
        }
    }

    #[test]
    fn a_closing_tag_counts_alone_only_before_any_other_tag() {
        for policy in PRESETS {
            assert_eq!(
                lex("<think>r</think>\na</think>\nb", policy),
                "{open}«r»{close}\na</think>\nb"
            );
            assert_eq!(
                lex("r\n</think>\na\n</think>\n", policy),
                "r\n{lone}\na\n</think>\n"
            );
        }
    }

    #[test]
    fn an_opening_tag_inside_a_block_is_reasoning_text() {
        for policy in PRESETS {
            assert_eq!(
                lex("<think>a\n<think>b</think>c", policy),
                "{open}«a\n<think>b»{close}c"
            );
        }
    }

    #[test]
    fn look_alikes_are_text() {
        let text = "I <thinker> </thinks> <b> a<b <<think >é<thi";
        for policy in PRESETS {
            assert_eq!(lex(text, policy), text);
        }
    }

    #[test]
    fn a_tag_split_across_chunks_is_held_back_until_it_is_known() {
        let mut seen = Vec::new();
        let mut on = |event: Event<'_>| seen.push(format!("{event:?}"));
        let mut lexer = Lexer::new(Policy::CLIENT);
        lexer.feed("ab<thi", &mut on);
        lexer.feed("nk>c", &mut on);
        lexer.feed("<", &mut on);
        lexer.finish(&mut on);
        assert_eq!(
            seen,
            [
                r#"Content { text: "ab", at: 0 }"#,
                "Open",
                r#"Reasoning { text: "c", at: 9 }"#,
                r#"Reasoning { text: "<", at: 10 }"#,
            ]
        );
    }

    /// Far above what a linear pass needs in a debug build on a busy
    /// machine, far below what rescanning held text would take.
    #[test]
    fn one_byte_chunks_stay_linear() {
        const LINE: &str = "<think>r</thin</think>\n<THINK a <thi\n";
        let text = LINE.repeat(40_000);
        let start = std::time::Instant::now();
        let mut lexer = Lexer::new(Policy::JSON);
        let (mut content, mut reasoning) = (0, 0);
        let mut on = |event: Event<'_>| match event {
            Event::Content { text, .. } => content += text.len(),
            Event::Reasoning { text, .. } => reasoning += text.len(),
            _ => {}
        };
        for at in 0..text.len() {
            lexer.feed(&text[at..at + 1], &mut on);
        }
        lexer.finish(&mut on);
        assert_eq!((content, reasoning), (40_000 * 15, 40_000 * 7));
        let elapsed = start.elapsed();
        assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");
    }

    /// Text made of tag pieces, look-alikes, line edges and multi-byte chars.
    fn tag_soup() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "<think>",
            "</think>",
            "<thinking>",
            "</thinking>",
            "<THINK>",
            "</Thinking>",
            "<",
            "</",
            "<thi",
            "think",
            "ing>",
            ">",
            " ",
            "\t",
            "\r",
            "\n",
            "a",
            "é",
            "中",
            "{\"",
        ]);
        prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    fn policy() -> impl Strategy<Value = Policy> {
        any::<[bool; 4]>().prop_map(|[a, b, c, d]| Policy {
            ignore_case: a,
            any_closing_name: b,
            open_at_line_start: c,
            lone_close_at_line_end: d,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any chunking reports what the whole text reports.
        #[test]
        fn any_chunking_gives_the_whole_texts_result(
            text in tag_soup(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
            policy in policy(),
        ) {
            let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
            let mut cuts: Vec<usize> = if bounds.is_empty() {
                Vec::new()
            } else {
                cuts.iter().map(|i| bounds[i.index(bounds.len())]).collect()
            };
            cuts.sort_unstable();
            cuts.dedup();
            let mut chunks = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([text.len()]) {
                chunks.push(&text[from..cut]);
                from = cut;
            }
            prop_assert_eq!(tokens(&text, chunks, policy), tokens(&text, [text.as_str()], policy));
        }
    }
}
