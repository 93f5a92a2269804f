//! Hints for missing sections: a header written under another name
//! (`[Schedule]` for `[Timeline]`), or written inside a line of text.

use super::header::{folded, same_name, unread_header};
use super::split::UnknownHeader;

/// Pairs missing sections with unknown header lines: first by similar
/// names, then, when as many bracketed unknown headers remain as sections
/// are missing, by position, each where its section belongs (after the
/// sections before it, before the ones after it). `missing` lists, per
/// missing section, its index and names (its own, then aliases); the result
/// holds, per missing section, the index of its unknown header.
pub(crate) fn near_misses(
    missing: &[(usize, Vec<&str>)],
    unknown: &[UnknownHeader],
) -> Vec<Option<usize>> {
    let mut paired: Vec<Option<usize>> = vec![None; missing.len()];
    let mut used = vec![false; unknown.len()];
    for (slot, (_, names)) in paired.iter_mut().zip(missing) {
        let best = unknown
            .iter()
            .enumerate()
            .filter(|(u, _)| !used[*u])
            .map(|(u, header)| {
                let score = names
                    .iter()
                    .map(|name| similarity(name, &header.name))
                    .fold(0.0, f64::max);
                (u, score)
            })
            .filter(|(_, score)| *score >= 0.5)
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        if let Some((u, _)) = best {
            used[u] = true;
            *slot = Some(u);
        }
    }
    // By position: only bracketed lines, as asked, count; a markdown heading
    // inside a section is more likely part of its content.
    let left: Vec<usize> = (0..unknown.len())
        .filter(|&u| !used[u] && unknown[u].bracketed)
        .collect();
    let unpaired: Vec<usize> = (0..missing.len())
        .filter(|&m| paired[m].is_none())
        .collect();
    if !unpaired.is_empty() && left.len() == unpaired.len() {
        let fits = unpaired.iter().zip(&left).all(|(&m, &u)| {
            let section = missing[m].0;
            unknown[u].after.is_none_or(|after| after < section)
                && unknown[u].before.is_none_or(|before| before > section)
        });
        if fits {
            for (&m, &u) in unpaired.iter().zip(&left) {
                paired[m] = Some(u);
            }
        }
    }
    paired
}

/// How alike two header names are, from 0 to 1: one minus their edit
/// distance over the longer length; a name inside the other counts 0.8.
fn similarity(a: &str, b: &str) -> f64 {
    // Names are short; bound the work on hostile input anyway.
    let a: Vec<char> = folded(a).take(64).collect();
    let b: Vec<char> = folded(b).take(64).collect();
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let longest = a.len().max(b.len()) as f64;
    let edit = 1.0 - levenshtein(&a, &b) as f64 / longest;
    let inside = |x: &[char], y: &[char]| x.len() >= 3 && y.windows(x.len()).any(|w| w == x);
    if inside(&a, &b) || inside(&b, &a) {
        edit.max(0.8)
    } else {
        edit
    }
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Per missing section (the names it answers to), the first line of `text`
/// that names it in a style not read as a header (`- **Budget:** $5`,
/// `{budget}`, `2. Budget` inside a list: see
/// [`unread_header`](super::header::unread_header)), shortened. One pass over
/// the lines, each looked at only as far as the longest name could reach.
pub(crate) fn unread_lines(text: &str, missing: &[Vec<&str>]) -> Vec<Option<String>> {
    let mut found: Vec<Option<String>> = vec![None; missing.len()];
    let longest = missing.iter().flatten().map(|n| n.len()).max().unwrap_or(0);
    let max_name = longest * 2 + 16;
    for line in text.lines() {
        if found.iter().all(Option::is_some) {
            break;
        }
        let Some(name) = unread_header(line, max_name) else {
            continue;
        };
        for (slot, names) in found.iter_mut().zip(missing) {
            if slot.is_none() && names.iter().any(|n| same_identifier(n, name)) {
                *slot = Some(super::excerpt(line.trim()));
            }
        }
    }
    found
}

/// Whether two names are the same, with `_` and `-` counting as spaces
/// (`{research_plan}` names Research Plan).
fn same_identifier(a: &str, b: &str) -> bool {
    let spaced = |c: char| if matches!(c, '_' | '-') { ' ' } else { c };
    folded(a).map(spaced).eq(folded(b).map(spaced))
}

/// The line of `text` where one of `names` appears in brackets inside the
/// text rather than alone on a line (`Day 2: [Budget]`), shortened.
pub(crate) fn inline_mention(text: &str, names: &[&str]) -> Option<String> {
    let longest = names.iter().map(|n| n.len()).max().unwrap_or(0) * 2 + 16;
    let bytes = text.as_bytes();
    for open in memchr::memchr2_iter(b'[', 0xE3, bytes) {
        let close = if bytes[open] == b'[' {
            "]"
        } else if text.is_char_boundary(open) && text[open..].starts_with('【') {
            "】"
        } else {
            continue;
        };
        let inner_start = open + if close == "]" { 1 } else { '【'.len_utf8() };
        let window_end = (inner_start + longest).min(bytes.len());
        let Some(len) = memchr::memmem::find(&bytes[inner_start..window_end], close.as_bytes())
        else {
            continue;
        };
        let inner = &text[inner_start..inner_start + len];
        if names.iter().any(|name| same_name(name, inner)) {
            let line_start = memchr::memrchr(b'\n', &bytes[..open]).map_or(0, |i| i + 1);
            let line_end = memchr::memchr(b'\n', &bytes[open..]).map_or(bytes.len(), |i| open + i);
            return Some(super::excerpt(&text[line_start..line_end]));
        }
    }
    None
}

/// Where in `content` (a section's value) one of `names` is written as a
/// label, `Final Answer:`: the name as declared, starting a
/// word, then a colon (after closing emphasis, `**Final Answer:**`). A
/// value holding another section's label is two answers at once
/// (`Action: search Final Answer: 42`); a name in a sentence without the
/// colon (`the final answer is near`) is no label.
pub(crate) fn label_inside(content: &str, names: &[&str]) -> Option<usize> {
    let bytes = content.as_bytes();
    for name in names.iter().filter(|name| !name.is_empty()) {
        let finder = memchr::memmem::Finder::new(name.as_bytes());
        // Each name is looked for once over the content: linear in its
        // length for the few names of a type.
        for at in finder.find_iter(bytes) {
            let starts_word = !content[..at]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            let after = content[at + name.len()..].trim_start_matches(['*', '_', ' ']);
            if starts_word && after.starts_with([':', '：']) {
                return Some(at);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(name: &str, bracketed: bool) -> UnknownHeader {
        UnknownHeader {
            line: if bracketed {
                format!("[{name}]")
            } else {
                format!("## {name}")
            },
            name: name.to_owned(),
            bracketed,
            after: None,
            before: None,
        }
    }

    fn between(name: &str, after: Option<usize>, before: Option<usize>) -> UnknownHeader {
        UnknownHeader {
            after,
            before,
            ..unknown(name, true)
        }
    }

    #[test]
    fn pairs_by_similar_name_first() {
        let missing = vec![(1, vec!["Timeline"]), (2, vec!["Budget"])];
        let found = [
            unknown("Budgets", false),
            unknown("Time line", true),
            unknown("Notes", true),
        ];
        assert_eq!(near_misses(&missing, &found), vec![Some(1), Some(0)]);
    }

    #[test]
    fn pairs_by_position_when_counts_match_and_places_fit() {
        let missing = vec![(1, vec!["Timeline"])];
        let schedule = between("Schedule", Some(0), Some(2));
        assert_eq!(near_misses(&missing, &[schedule]), vec![Some(0)]);
        // A heading is not paired by position, nor are two candidates for one slot.
        assert_eq!(
            near_misses(&missing, &[unknown("Schedule", false)]),
            vec![None]
        );
        let two = [unknown("Schedule", true), unknown("Notes", true)];
        assert_eq!(near_misses(&missing, &two), vec![None]);
        // An extra section after the last one is not the missing first one.
        let friend = between("Friend", Some(2), None);
        assert_eq!(near_misses(&[(0, vec!["Plan"])], &[friend]), vec![None]);
        let first = between("Steps", None, Some(1));
        assert_eq!(near_misses(&[(0, vec!["Plan"])], &[first]), vec![Some(0)]);
    }

    #[test]
    fn aliases_count_for_similarity() {
        let missing = vec![(1, vec!["Timeline", "Schedule"])];
        let found = [unknown("Schedules", false)];
        assert_eq!(near_misses(&missing, &found), vec![Some(0)]);
    }

    #[test]
    fn similarity_scores() {
        assert_eq!(similarity("Plan", "plan"), 1.0);
        assert_eq!(similarity("Research Plan", "Plan"), 0.8);
        assert!(similarity("Schedule", "Timeline") < 0.5);
    }

    #[test]
    fn finds_headers_written_in_styles_not_read() {
        let missing = vec![vec!["Budget"], vec!["Research Plan"], vec!["Notes"]];
        let text = "[Steps]\n1. Walk\n- **Budget:** $500\n{research_plan}\n> Notes";
        assert_eq!(
            unread_lines(text, &missing),
            [
                Some("- **Budget:** $500".to_owned()),
                Some("{research_plan}".to_owned()),
                Some("> Notes".to_owned()),
            ]
        );
        let lines = [
            "* Budget",
            "+ [Budget]: 5",
            "• Budget:",
            "(2) Budget",
            "1. Budget: $5",
            "2. Budget",
            "Section: Budget",
            "Section 3 - Budget",
            "Step 2. **Budget**",
            "{{budget}}",
            "<<Budget>>",
            "`[Budget]`",
            "=== Budget ===",
            "--- Budget ---",
            "  > **Budget:** 5  ",
        ];
        for line in lines {
            assert_eq!(
                unread_lines(line, &[vec!["Budget"]]),
                [Some(line.trim().to_owned())],
                "line {line:?}"
            );
        }
        for line in [
            "Budget",
            "[Budget]",
            "- Budgets",
            "Section Budget",
            "== =",
            "the budget",
        ] {
            assert_eq!(
                unread_lines(line, &[vec!["Budget"]]),
                [None],
                "line {line:?}"
            );
        }
    }

    #[test]
    fn finds_a_header_written_inside_a_line() {
        let text = "Visit temples\nDay 2: [budget]\n$500";
        assert_eq!(
            inline_mention(text, &["Budget"]),
            Some("Day 2: [budget]".to_owned())
        );
        assert_eq!(
            inline_mention("预算见【预算】。", &["预算"]),
            Some("预算见【预算】。".to_owned())
        );
        assert_eq!(inline_mention("[Budgets] [x", &["Budget"]), None);
    }
}
