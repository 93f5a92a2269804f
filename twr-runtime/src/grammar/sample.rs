//! Random strings of a grammar's language: what a model writing under the
//! grammar could write, for tests of the grammar against the parser.

use super::expr::{Class, Expr, Rules};

/// Characters a negated class is sampled from: every class of the grammar
/// excludes a few of them, so each is tried near a header's name, a
/// delimiter, a digit, white space and letters of other scripts.
const POOL: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \t.,;:!?-+*/_()[]{}#<>|'\"`~@$%&=\\^：。，【】计划无是否é€\u{3000}";

/// A random string of the language of `rules`, from `seed`.
pub(crate) fn sample(rules: &Rules, seed: u64) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = String::new();
    if let Some(root) = rules.iter().next() {
        walk(&root.expr, rules, &mut rng, &mut out, 0);
    }
    out
}

fn walk(expr: &Expr, rules: &Rules, rng: &mut fastrand::Rng, out: &mut String, depth: u32) {
    match expr {
        Expr::Lit(text) => out.push_str(text),
        Expr::Class(class) => {
            if let Some(c) = pick(class, rng) {
                out.push(c);
            }
        }
        Expr::Seq(items) => {
            for item in items {
                walk(item, rules, rng, out, depth);
            }
        }
        Expr::Alt(items) => {
            // Deep in a recursive rule (a type that holds itself), a way
            // that refers to no rule, when there is one, so the value ends.
            let shallow = (depth > DEEP)
                .then(|| items.iter().find(|item| !refers(item)))
                .flatten();
            let item = shallow.unwrap_or_else(|| &items[rng.usize(..items.len())]);
            walk(item, rules, rng, out, depth);
        }
        Expr::Repeat { expr, min, .. } if depth > DEEP => {
            for _ in 0..*min {
                walk(expr, rules, rng, out, depth);
            }
        }
        Expr::Repeat { expr, min, max } => {
            // Mostly a few repetitions; sometimes up to the bound, so that
            // long values are tried too.
            let max = max.unwrap_or(min + 12);
            let top = if rng.u8(..8) == 0 {
                max
            } else {
                max.min(min + 8)
            };
            let count = rng.u32(*min..=top.max(*min));
            for _ in 0..count {
                walk(expr, rules, rng, out, depth);
            }
        }
        Expr::Rule(name) => {
            if let Some(rule) = rules.get(name) {
                walk(&rule.expr, rules, rng, out, depth + 1);
            }
        }
        Expr::Json => json(rng, out, 0),
    }
}

/// The rule depth past which a sample takes the shortest way it sees: a
/// reply's own rules nest a few deep, a recursive type's without end.
const DEEP: u32 = 12;

/// Whether `expr` refers to a rule (or any JSON, which nests too).
fn refers(expr: &Expr) -> bool {
    match expr {
        Expr::Rule(_) | Expr::Json => true,
        Expr::Lit(_) | Expr::Class(_) => false,
        Expr::Seq(items) | Expr::Alt(items) => items.iter().any(refers),
        Expr::Repeat { expr, min, .. } => *min > 0 && refers(expr),
    }
}

/// A character of `class`.
fn pick(class: &Class, rng: &mut fastrand::Rng) -> Option<char> {
    if !class.negated {
        let &(from, to) = class.ranges.get(rng.usize(..class.ranges.len().max(1)))?;
        return char::from_u32(rng.u32(from as u32..=to as u32)).filter(|c| class.contains(*c));
    }
    let allowed: Vec<char> = POOL.chars().filter(|c| class.contains(*c)).collect();
    if allowed.is_empty() {
        return None;
    }
    Some(allowed[rng.usize(..allowed.len())])
}

/// A small random JSON value.
fn json(rng: &mut fastrand::Rng, out: &mut String, depth: u32) {
    let pick = if depth >= 3 { rng.u8(..4) } else { rng.u8(..6) };
    match pick {
        0 => out.push_str(["true", "false", "null"][rng.usize(..3)]),
        1 => out.push_str(&rng.i32(-999..999).to_string()),
        2 => out.push_str(&format!("{}.{}", rng.i32(-99..99), rng.u8(..99))),
        3 => {
            let words = [
                "\"Kyoto\"",
                "\"a \\\"b\\\"\"",
                "\"\"",
                "\"计划\"",
                "\"x\\ny\"",
            ];
            out.push_str(words[rng.usize(..words.len())]);
        }
        4 => {
            out.push('[');
            for i in 0..rng.usize(..4) {
                if i > 0 {
                    out.push_str(", ");
                }
                json(rng, out, depth + 1);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.usize(..4) {
                if i > 0 {
                    out.push_str(",\n  ");
                }
                out.push_str(&format!("\"k{i}\": "));
                json(rng, out, depth + 1);
            }
            out.push('}');
        }
    }
}
