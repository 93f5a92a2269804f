//! [`multi_section_parser`]: the section rules over plain header strings.

use super::prepare::without_reasoning;
use super::split::{split_plain, SectionMap};
use crate::feedback::{Feedback, Problem, ProblemKind};
use crate::phrases::Lang;

/// How many of the headers given to [`multi_section_parser`] the reply must
/// have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum MatchMode {
    /// Every header, each with some content.
    #[default]
    All,
    /// At least one header with some content.
    Any,
}

/// Splits `raw` into the sections named by `headers` (`"[Plan]"` or
/// `"Plan"`), with the same header rules as `#[derive(Sections)]`.
///
/// ```
/// use twr_runtime::parse::{multi_section_parser, MatchMode};
///
/// let raw = "Let me think.\n**Plan:** walk\n[Budget]\n$500";
/// let map = multi_section_parser(raw, &["[Plan]", "[Budget]"], MatchMode::All)?;
/// assert_eq!(map.get("Plan"), Some("walk"));
///
/// let feedback = multi_section_parser("[Plan]\nwalk", &["Plan", "Budget"], MatchMode::All).unwrap_err();
/// assert_eq!(feedback.headers(), ["[Budget]"]);
/// assert!(multi_section_parser("[Plan]\nwalk", &["Plan", "Budget"], MatchMode::Any).is_ok());
/// # Ok::<(), twr_runtime::Feedback>(())
/// ```
pub fn multi_section_parser<'a>(
    raw: &'a str,
    headers: &[&str],
    mode: MatchMode,
) -> Result<SectionMap<'a>, Feedback> {
    let map = split_plain(raw, headers);
    let mut feedback = Feedback::new(Lang::En);
    match mode {
        MatchMode::All => {
            let missing: Vec<(usize, Vec<&str>)> = map
                .headers_and_contents()
                .enumerate()
                .filter(|(_, (_, content))| content.is_none())
                .map(|(index, (header, _))| (index, vec![super::header::strip_brackets(header)]))
                .collect();
            let hints = super::hints::near_misses(&missing, map.unknown_headers());
            let names: Vec<Vec<&str>> = missing.iter().map(|(_, names)| names.clone()).collect();
            let unread = super::hints::unread_lines(&without_reasoning(raw), &names);
            let mut missing_hints = hints.into_iter().zip(unread);
            for (header, content) in map.headers_and_contents() {
                match content {
                    None => {
                        let kind = match missing_hints.next() {
                            Some((Some(u), _)) => ProblemKind::NearMiss {
                                wrote: map.unknown_headers()[u].line.clone(),
                            },
                            Some((None, Some(wrote))) => ProblemKind::UnreadHeader { wrote },
                            _ => ProblemKind::Missing,
                        };
                        feedback.push(Problem::new(header, kind));
                    }
                    Some("") => feedback.push(Problem::new(header, ProblemKind::Empty)),
                    Some(_) => {}
                }
            }
        }
        MatchMode::Any => {
            if map.iter().all(|(_, content)| content.is_empty()) {
                let headers = map
                    .headers_and_contents()
                    .map(|(h, _)| h.to_owned())
                    .collect();
                feedback.push(Problem::new(String::new(), ProblemKind::NoneOf { headers }));
            }
        }
    }
    if feedback.is_empty() {
        Ok(map)
    } else {
        Err(feedback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_needs_every_header_with_content() {
        let map = multi_section_parser(
            "[Plan]\nwalk\n[Budget]\n$5",
            &["Plan", "Budget"],
            MatchMode::All,
        )
        .unwrap();
        assert_eq!(
            map.iter().collect::<Vec<_>>(),
            [("[Plan]", "walk"), ("[Budget]", "$5")]
        );
        let feedback = multi_section_parser(
            "[Plan]\n\n[Budget]\n   ",
            &["[Plan]", "[Timeline]", "Budget", "Notes"],
            MatchMode::All,
        )
        .unwrap_err();
        let kinds: Vec<_> = feedback
            .problems()
            .iter()
            .map(|p| (p.header.as_str(), p.kind.clone()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("[Plan]", ProblemKind::Empty),
                ("[Timeline]", ProblemKind::Missing),
                ("[Budget]", ProblemKind::Empty),
                ("[Notes]", ProblemKind::Missing),
            ]
        );
    }

    #[test]
    fn a_single_unknown_header_for_a_single_missing_one_is_a_near_miss() {
        let feedback = multi_section_parser(
            "[Plan]\nwalk\n[Schedule]\nx",
            &["Plan", "Timeline"],
            MatchMode::All,
        )
        .unwrap_err();
        assert_eq!(
            feedback.problems()[0].kind,
            ProblemKind::NearMiss {
                wrote: "[Schedule]".to_owned()
            }
        );
    }

    #[test]
    fn any_needs_one_header_with_content() {
        let map =
            multi_section_parser("## Budget\n$5", &["Plan", "Budget"], MatchMode::Any).unwrap();
        assert_eq!(map.get("plan"), None);
        assert_eq!(map.get("budget"), Some("$5"));
        let feedback =
            multi_section_parser("[Plan]\n", &["Plan", "Budget"], MatchMode::Any).unwrap_err();
        assert_eq!(
            feedback.problems()[0].kind,
            ProblemKind::NoneOf {
                headers: vec!["[Plan]".to_owned(), "[Budget]".to_owned()]
            }
        );
    }
}
