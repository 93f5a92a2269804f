//! The start of a line of content that no header reading can take for a
//! header: the one rule that keeps free text from starting a section.
//!
//! The parser reads a line as a header only when its first character (after
//! white space) is a letter, a digit or one of `[`, `【`, `#`, `*`, `_`, `<`
//! (`parse/header.rs`), and a line starting with a letter only when the text
//! before its colon, or the whole line, names a section ignoring case. A
//! bracketed line needs no section's name to matter: alone on its line, a
//! name of no section (`[Extra]`) ends the section before it
//! (`parse/split.rs`), so `[` never starts a line of content either. So a
//! line of content here starts with a character outside that set, with a
//! number that is no list number (`3 days`, not `3. Plan`), or with letters
//! that leave every section's name before the name ends (`Planning`, not
//! `Plan:`): a trie of the names, each node offering the characters that
//! diverge from them. Decoration and white space never follow a name's
//! prefix, so trimming cannot turn a diverging line back into a name.

use super::expr::{Class, Expr};
use crate::text::ZERO_WIDTH;

/// Characters the parser trims or reads as white space between words
/// (`char::is_whitespace`), listed for the GBNF and Lark classes.
pub(crate) const SPACES: [char; 25] = [
    ' ', '\t', '\n', '\u{b}', '\u{c}', '\r', '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}',
    '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}',
    '\u{2009}', '\u{200a}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}',
];

/// Characters that may start a header, besides letters and digits; and the
/// fences, whose line may unwrap the whole reply.
const MARKS: [char; 9] = ['[', '【', '#', '*', '_', '<', '`', '~', '>'];

/// What ends a name or trims around one: white space, colons, emphasis.
const DELIMITERS: [char; 4] = [':', '：', '*', '_'];

/// Characters never written in content: `<` would open a tag or a
/// `<think>` block the parser skips; a zero-width character
/// (`crate::text::ZERO_WIDTH`) shows nothing and hides a header from no
/// one: the parser reads `Name\u{200B}:` as the header `Name:`, so content
/// cannot carry the next section's answer behind one.
pub(crate) const NEVER: [char; 6] = [
    '<',
    ZERO_WIDTH[0],
    ZERO_WIDTH[1],
    ZERO_WIDTH[2],
    ZERO_WIDTH[3],
    ZERO_WIDTH[4],
];

/// A trie node: the characters (folded) after it, and their nodes.
#[derive(Default)]
struct Node {
    children: Vec<(char, Node)>,
}

impl Node {
    fn insert(&mut self, mut name: impl Iterator<Item = char>) {
        let Some(c) = name.next() else {
            return;
        };
        let at = match self.children.iter().position(|(k, _)| *k == c) {
            Some(at) => at,
            None => {
                self.children.push((c, Node::default()));
                self.children.len() - 1
            }
        };
        self.children[at].1.insert(name);
    }
}

/// `name` as the parser compares it: lower case, white space runs one
/// space, trimmed.
fn folded(name: &str) -> Vec<char> {
    let mut out = Vec::new();
    for word in name.split(char::is_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// The characters a reply may write for the folded character `c`: itself
/// and its capitals.
fn cases(c: char) -> Vec<char> {
    let mut out = vec![c];
    let mut upper = c.to_uppercase();
    if let (Some(u), None) = (upper.next(), upper.next()) {
        if u != c {
            out.push(u);
        }
    }
    out
}

/// The first characters of a line of content (at least one, never white
/// space) that make it no header of any of `names`.
pub(crate) fn line_start(names: &[&str]) -> Expr {
    let root = trie(names);
    let mut first: Vec<char> = SPACES.to_vec();
    first.extend(MARKS);
    first.extend(NEVER);
    let mut alternatives = vec![Expr::Class(
        Class::not(first.iter().copied().chain(child_chars(&root))).with_range('0', '9'),
    )];
    alternatives.push(number_start());
    alternatives.extend(edges(&root, false));
    Expr::alt(alternatives)
}

/// The first characters of a label (a map's key) that make its line no
/// header of any of `names`: a letter, then letters and digits (and the
/// names' own characters, spaces included) until it leaves every name.
/// The parser reads a label only when it holds a letter.
pub(crate) fn label_start(names: &[&str]) -> Expr {
    let root = trie(names);
    let children: Vec<char> = child_chars(&root).collect();
    let letters = Class::of([]).with_range('a', 'z').with_range('A', 'Z');
    let first = Class {
        negated: false,
        ranges: letters
            .ranges
            .iter()
            .flat_map(|&(from, to)| (from..=to).filter(|c| !children.contains(c)))
            .map(|c| (c, c))
            .collect(),
    };
    let mut alternatives = vec![Expr::Class(first)];
    alternatives.extend(edges(&root, true));
    Expr::alt(alternatives)
}

fn trie(names: &[&str]) -> Node {
    let mut root = Node::default();
    for name in names {
        let name = folded(name);
        // A name starting with a digit is read as a list number, never
        // matched: the digit rule below covers it.
        if name.first().is_some_and(|c| !c.is_ascii_digit()) {
            root.insert(name.into_iter());
        }
    }
    root
}

/// A line starting with digits that is no list number: the digits are
/// followed by anything but `.` or `)`, or by one of them and no space.
fn number_start() -> Expr {
    let digits = Expr::Class(Class::of([]).with_range('0', '9')).repeat(1, None);
    let mut after: Vec<char> = vec!['.', ')', '\n'];
    after.extend(NEVER);
    let mut no_space: Vec<char> = SPACES.to_vec();
    no_space.extend(NEVER);
    Expr::seq(vec![
        digits,
        Expr::alt(vec![
            Expr::Class(Class::not(after).with_range('0', '9')),
            Expr::seq(vec![
                Expr::Class(Class::of(['.', ')'])),
                Expr::Class(Class::not(no_space)),
            ]),
        ]),
    ])
}

/// Every character a reply may write for the children of `node`.
fn child_chars(node: &Node) -> impl Iterator<Item = char> + '_ {
    node.children.iter().flat_map(|(c, _)| cases(*c))
}

/// From a node: each child's characters followed by what may follow it;
/// in a label, letters and digits only leave the names.
fn edges(node: &Node, label: bool) -> Vec<Expr> {
    node.children
        .iter()
        .map(|(c, child)| {
            let letter = Expr::Class(Class::of(cases(*c)));
            Expr::seq(vec![letter, after(child, label)])
        })
        .collect()
}

/// After a prefix of some names: a character that leaves them all (never
/// white space or a delimiter), or the next character of one of them.
fn after(node: &Node, label: bool) -> Expr {
    let children: Vec<char> = child_chars(node).collect();
    let leave = if label {
        let word = ('a'..='z').chain('A'..='Z').chain('0'..='9');
        Class::of(word.filter(|c| !children.contains(c)))
    } else {
        let mut excluded: Vec<char> = SPACES.to_vec();
        excluded.extend(DELIMITERS);
        excluded.extend(NEVER);
        excluded.extend(children);
        Class::not(excluded)
    };
    let mut alternatives = vec![Expr::Class(leave)];
    alternatives.extend(edges(node, label));
    Expr::alt(alternatives)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `line` starts with a prefix `expr` matches (a small
    /// backtracking matcher over the expression, for these tests only).
    fn starts(expr: &Expr, line: &[char]) -> bool {
        !prefixes(expr, line).is_empty()
    }

    fn prefixes(expr: &Expr, s: &[char]) -> Vec<usize> {
        match expr {
            Expr::Lit(text) => {
                let t: Vec<char> = text.chars().collect();
                if s.starts_with(&t) {
                    vec![t.len()]
                } else {
                    vec![]
                }
            }
            Expr::Class(class) => match s.first() {
                Some(c) if class.contains(*c) => vec![1],
                _ => vec![],
            },
            Expr::Alt(items) => items.iter().flat_map(|i| prefixes(i, s)).collect(),
            Expr::Seq(items) => {
                let mut ends = vec![0];
                for item in items {
                    ends = ends
                        .iter()
                        .flat_map(|&at| prefixes(item, &s[at..]).into_iter().map(move |n| at + n))
                        .collect();
                }
                ends
            }
            Expr::Repeat { expr, min, max } => {
                let mut ends = Vec::new();
                let mut frontier = vec![0];
                let mut count = 0;
                while !frontier.is_empty() && max.is_none_or(|max| count <= max) {
                    if count >= *min {
                        ends.extend(frontier.iter().copied());
                    }
                    frontier = frontier
                        .iter()
                        .flat_map(|&at| {
                            prefixes(expr, &s[at..])
                                .into_iter()
                                .filter(|&n| n > 0)
                                .map(move |n| at + n)
                        })
                        .collect();
                    count += 1;
                }
                ends
            }
            Expr::Rule(_) | Expr::Json => vec![],
        }
    }

    #[test]
    fn lines_that_would_name_a_section_cannot_start() {
        let start = line_start(&["Plan", "Research Plan", "计划"]);
        let ok = |line: &str| starts(&start, &line.chars().collect::<Vec<_>>());
        for line in [
            "Go east.",
            "Planning ahead",
            "Plans: many",
            "Pl-an",
            "Researcher: first",
            "Researching plan",
            "3 days",
            "12 km",
            "3.5 km",
            "- item",
            "计算",
            "(note)",
        ] {
            assert!(ok(line), "{line}");
        }
        for line in [
            "Plan",
            "plan: go",
            "PLAN",
            "Plan**",
            "Plan :",
            "Research Plan: x",
            "research  plan",
            "[Plan]",
            "[Extra]",
            "【备注】",
            "## Plan",
            "**Plan**",
            "1. Plan",
            "2) Plan",
            " Plan",
            "<plan>",
            "计划：",
            "`code`",
            "_x_",
        ] {
            assert!(!ok(line), "{line}");
        }
    }
}
