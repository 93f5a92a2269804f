//! The rules as llama.cpp's GBNF (`grammars/README.md` of llama.cpp): the
//! start rule is `root`; literals in double quotes; classes in brackets;
//! `?`, `*`, `+` and `{m,n}`.

use std::fmt::Write;

use super::expr::{Class, Expr, Rules};

/// The GBNF text of `rules`: one rule a line, the start rule first.
pub(crate) fn render(rules: &Rules) -> String {
    let mut out = String::new();
    let mut context = Context::default();
    for rule in rules.iter() {
        context.rule = rule.name.clone();
        context.hoisted = 0;
        let text = expr(&rule.expr, &mut context);
        let _ = writeln!(out, "{} ::= {text}", rule.name);
        for (name, body) in std::mem::take(&mut context.extra) {
            let _ = writeln!(out, "{name} ::= {body}");
        }
    }
    if context.json {
        out.push_str(JSON);
    }
    out
}

/// What rendering one rule needs besides the expression.
#[derive(Default)]
struct Context {
    /// The rule being rendered.
    rule: String,
    /// Rules made for the bodies of its bounded repetitions.
    extra: Vec<(String, String)>,
    hoisted: usize,
    /// Whether the JSON rules are needed.
    json: bool,
}

/// Any JSON value, as llama.cpp's own `json.gbnf` spells it, with white
/// space of at most one line break and indentation between tokens so that
/// a value cannot run on as blanks.
const JSON: &str = r#"json-value ::= json-object | json-array | json-string | json-number | "true" | "false" | "null"
json-object ::= "{" json-ws ( json-string json-ws ":" json-ws json-value json-ws ( "," json-ws json-string json-ws ":" json-ws json-value json-ws )* )? "}"
json-array ::= "[" json-ws ( json-value json-ws ( "," json-ws json-value json-ws )* )? "]"
json-string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] ) )* "\""
json-number ::= "-"? ( [0-9] | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
json-ws ::= ( " " | "\n" [ \t]* )?
"#;

fn expr(e: &Expr, json: &mut Context) -> String {
    match e {
        Expr::Lit(text) => literal(text),
        Expr::Class(class) => class_text(class),
        Expr::Seq(items) => items
            .iter()
            .map(|item| match item {
                Expr::Alt(_) => format!("( {} )", expr(item, json)),
                item => expr(item, json),
            })
            .collect::<Vec<_>>()
            .join(" "),
        Expr::Alt(items) => items
            .iter()
            .map(|item| expr(item, json))
            .collect::<Vec<_>>()
            .join(" | "),
        Expr::Repeat {
            expr: inner,
            min,
            max,
        } => {
            let body = match **inner {
                // llama.cpp refuses a bounded repetition when its bound
                // times the rules inside a group reaches 2,000: the body of
                // a long bounded repetition is a rule of its own, one rule.
                Expr::Seq(_) | Expr::Alt(_) | Expr::Repeat { .. }
                    if max.is_some_and(|max| max > 1) =>
                {
                    let body = expr(inner, json);
                    json.hoisted += 1;
                    let name = format!("{}-rep-{}", json.rule, json.hoisted);
                    json.extra.push((name.clone(), body));
                    name
                }
                Expr::Seq(_) | Expr::Alt(_) | Expr::Repeat { .. } => {
                    format!("( {} )", expr(inner, json))
                }
                _ => expr(inner, json),
            };
            let suffix = match (min, max) {
                (0, Some(1)) => "?".to_owned(),
                (0, None) => "*".to_owned(),
                (1, None) => "+".to_owned(),
                (min, None) => format!("{{{min},}}"),
                (min, Some(max)) if min == max => format!("{{{min}}}"),
                (min, Some(max)) => format!("{{{min},{max}}}"),
            };
            format!("{body}{suffix}")
        }
        Expr::Rule(name) => name.clone(),
        Expr::Json => {
            json.json = true;
            "json-value".to_owned()
        }
    }
}

/// `text` in double quotes, escaped as GBNF reads escapes.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        escape(c, &mut out, &['"', '\\']);
    }
    out.push('"');
    out
}

fn class_text(class: &Class) -> String {
    // llama.cpp matches a token that ends inside a character against a
    // negated class by the character's possible range: when that range
    // holds an excluded character, the token is refused, though the
    // character it starts may be allowed (with `：` excluded, a token
    // holding the first two bytes of `，` is refused). So a negated class
    // that excludes characters beyond ASCII is written as the positive
    // ranges it allows.
    if class.negated && class.ranges.iter().any(|&(_, to)| !to.is_ascii()) {
        return class_text(&allowed(class));
    }
    let mut out = String::from("[");
    if class.negated {
        out.push('^');
    }
    for &(from, to) in &class.ranges {
        class_char(from, &mut out);
        if from != to {
            out.push('-');
            class_char(to, &mut out);
        }
    }
    out.push(']');
    out
}

/// Writes `c` inside a class: the characters a class gives a meaning to
/// in hexadecimal (llama.cpp reads no `\^` or `\-`).
fn class_char(c: char, out: &mut String) {
    if matches!(c, ']' | '\\' | '^' | '-' | '[') {
        let _ = write!(out, "\\x{:02X}", c as u32);
    } else {
        escape(c, out, &[]);
    }
}

/// The characters a negated class allows, as positive ranges (without
/// the surrogates, which are no characters).
fn allowed(class: &Class) -> Class {
    let mut excluded: Vec<(u32, u32)> = class
        .ranges
        .iter()
        .map(|&(from, to)| (from as u32, to as u32))
        .collect();
    excluded.push((0xD800, 0xDFFF));
    excluded.sort_unstable();
    let mut ranges = Vec::new();
    // From 1: llama.cpp ends its character lists with 0.
    let mut next = 1u32;
    for (from, to) in excluded {
        if from > next {
            push_range(&mut ranges, next, from - 1);
        }
        next = next.max(to + 1);
    }
    if next <= 0x10FFFF {
        push_range(&mut ranges, next, 0x10FFFF);
    }
    Class {
        negated: false,
        ranges,
    }
}

fn push_range(ranges: &mut Vec<(char, char)>, from: u32, to: u32) {
    if let (Some(from), Some(to)) = (char::from_u32(from), char::from_u32(to)) {
        ranges.push((from, to));
    }
}

/// Writes `c`, escaped when it is a control character, white space other
/// than a space, or one of `special`.
fn escape(c: char, out: &mut String, special: &[char]) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if special.contains(&c) => {
            out.push('\\');
            out.push(c);
        }
        c if (c as u32) < 0x80 && (c.is_control()) => {
            let _ = write!(out, "\\x{:02X}", c as u32);
        }
        c if (c as u32) > 0xFFFF => {
            let _ = write!(out, "\\U{:08X}", c as u32);
        }
        c if c.is_control() || c.is_whitespace() && c != ' ' => {
            let _ = write!(out, "\\u{:04X}", c as u32);
        }
        c => out.push(c),
    }
}
