//! The rules as llguidance's Lark (`docs/syntax.md` of llguidance): the
//! start rule is `start`; each lexeme rule one terminal holding a regular
//! expression in Rust's `regex` syntax (no lookaround), the other rules
//! sequences of terminals, literals and rules; any JSON is `%json {}`.

use std::fmt::Write;

use super::expr::{Class, Expr, Rules};

/// The Lark text of `rules`: one rule a line, `start` first.
pub(crate) fn render(rules: &Rules) -> String {
    let mut out = String::new();
    for rule in rules.iter() {
        if rule.lexeme {
            let _ = writeln!(
                out,
                "{}: /{}/",
                terminal_name(&rule.name),
                regex(&rule.expr, rules)
            );
        } else {
            let name = if rule.name == "root" {
                "start".to_owned()
            } else {
                rule_name(&rule.name)
            };
            let _ = writeln!(out, "{name}: {}", structure(&rule.expr, rules));
        }
    }
    out
}

fn terminal_name(name: &str) -> String {
    name.replace('-', "_").to_uppercase()
}

fn rule_name(name: &str) -> String {
    name.replace('-', "_")
}

/// An expression of a rule that is not a lexeme.
fn structure(e: &Expr, rules: &Rules) -> String {
    match e {
        Expr::Lit(text) => serde_json::Value::String(text.clone()).to_string(),
        Expr::Class(class) => format!("/{}/", class_regex(class)),
        Expr::Seq(items) => items
            .iter()
            .map(|item| match item {
                Expr::Alt(_) => format!("({})", structure(item, rules)),
                item => structure(item, rules),
            })
            .collect::<Vec<_>>()
            .join(" "),
        Expr::Alt(items) => items
            .iter()
            .map(|item| structure(item, rules))
            .collect::<Vec<_>>()
            .join(" | "),
        Expr::Repeat { expr, min, max } => {
            let body = match **expr {
                Expr::Seq(_) | Expr::Alt(_) | Expr::Repeat { .. } => {
                    format!("({})", structure(expr, rules))
                }
                _ => structure(expr, rules),
            };
            format!("{body}{}", suffix(*min, *max))
        }
        Expr::Rule(name) => match rules.get(name) {
            Some(rule) if rule.lexeme => terminal_name(name),
            _ => rule_name(name),
        },
        Expr::Json => "%json {}".to_owned(),
    }
}

fn suffix(min: u32, max: Option<u32>) -> String {
    match (min, max) {
        (0, Some(1)) => "?".to_owned(),
        (0, None) => "*".to_owned(),
        (1, None) => "+".to_owned(),
        (min, None) => format!("{{{min},}}"),
        (min, Some(max)) if min == max => format!("{{{min}}}"),
        (min, Some(max)) => format!("{{{min},{max}}}"),
    }
}

/// A lexeme's expression as one regular expression, the lexemes it names
/// written in place.
fn regex(e: &Expr, rules: &Rules) -> String {
    match e {
        Expr::Lit(text) => {
            let mut out = String::new();
            for c in text.chars() {
                escape(c, &mut out, "\\.+*?()|[]{}^$#&-~/");
            }
            out
        }
        Expr::Class(class) => class_regex(class),
        Expr::Seq(items) => items
            .iter()
            .map(|item| match item {
                Expr::Alt(_) => format!("(?:{})", regex(item, rules)),
                item => regex(item, rules),
            })
            .collect(),
        Expr::Alt(items) => items
            .iter()
            .map(|item| regex(item, rules))
            .collect::<Vec<_>>()
            .join("|"),
        Expr::Repeat { expr, min, max } => {
            let body = match &**expr {
                Expr::Class(class) => class_regex(class),
                Expr::Lit(text) if text.chars().count() == 1 => regex(expr, rules),
                _ => format!("(?:{})", regex(expr, rules)),
            };
            format!("{body}{}", suffix(*min, *max))
        }
        Expr::Rule(name) => match rules.get(name) {
            Some(rule) => format!("(?:{})", regex(&rule.expr, rules)),
            None => String::new(),
        },
        // Never inside a lexeme: `build.rs` makes JSON values rules.
        Expr::Json => String::new(),
    }
}

fn class_regex(class: &Class) -> String {
    let mut out = String::from("[");
    if class.negated {
        out.push('^');
    }
    for &(from, to) in &class.ranges {
        escape(from, &mut out, "\\[]^-&~/");
        if from != to {
            out.push('-');
            escape(to, &mut out, "\\[]^-&~/");
        }
    }
    out.push(']');
    out
}

fn escape(c: char, out: &mut String, special: &str) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if special.contains(c) => {
            out.push('\\');
            out.push(c);
        }
        c if c.is_control() || (c.is_whitespace() && c != ' ') => {
            let _ = write!(out, "\\x{{{:X}}}", c as u32);
        }
        c => out.push(c),
    }
}
