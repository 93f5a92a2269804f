//! Demonstrations learned from earlier runs ([`Think::learn_from`]): for a
//! new prompt, the earlier prompts of the same type most like it whose runs
//! ended typed, each shown with its answer as an earlier turn.
//!
//! Similarity is lexical: the Sørensen–Dice coefficient of the two texts'
//! character trigrams (lower-cased, every run of characters other than
//! letters and digits one space). Trigrams catch shared words, stems and
//! numbers across small differences of spelling, need no tokenizer for any
//! language, and cost one pass over each text: picking is linear in the
//! store. Written here rather than taken from a crate: `strsim`'s Dice works
//! on bigrams of the text with its spaces removed (word boundaries lost)
//! and builds the query's table again for every candidate, and the search
//! crates build an index to keep; this needs the query's table once and an
//! exact score, a ratio of whole numbers, so that equal scores are equal and
//! ties fall to a stable order, never to rounding.
//!
//! Not every typed answer teaches. A grammar holds a reply to the format,
//! not to the sense, and a small model that has not understood the format
//! fills its sections with what it was told: the guide's slots and
//! descriptions, the feedback it was sent (which names the sections), or
//! one line over and over. Such an answer parses, and shown as an earlier
//! turn it is copied again; [`unfit`] keeps it out, and of the answers
//! left the ones typed without a grammar go first (see [`pick`]).
//!
//! [`Think::learn_from`]: super::Think::learn_from
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::model::{ChatModel, Message};
use crate::parse::split_sections;
use crate::sections::{Lang, SectionSpec, ValueKind, WaysSpec};
use crate::stored_model::JobRuns;

use super::{Think, ThinkError};

/// How many learned demonstrations a run shows unless
/// [`Think::learned_demonstrations`](super::Think::learned_demonstrations)
/// says otherwise.
pub const DEFAULT_LEARNED: usize = 2;

/// One demonstration a run was shown from an earlier run of a job given to
/// [`Think::learn_from`](super::Think::learn_from): which job, which prompt,
/// and how alike it was. Its answer is the assistant turn that follows the
/// prompt in [`Outcome::transcript`](super::Outcome::transcript).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Learned {
    /// The job it came from ([`Job::name`](crate::journal::Job::name)).
    pub job: String,
    /// The earlier prompt, as its program wrote it.
    pub prompt: String,
    /// How alike the two prompts are, from 0 (no trigram in common) to 1
    /// (the same trigrams): the Dice coefficient of their character
    /// trigrams.
    pub similarity: f64,
}

/// What a run learns from and records for later runs.
#[derive(Default)]
pub(crate) struct Lessons {
    /// The learned demonstrations to show, after the written ones.
    pub(crate) demonstrations: Vec<(String, String)>,
    /// Their ledger entries.
    pub(crate) learned: Vec<Learned>,
    /// The shape of the run's type, when a value it ends with is recorded
    /// in the job of [`Think::journal`].
    pub(crate) record_as: Option<String>,
}

/// What a type's answers are checked against before one is shown as a
/// demonstration ([`unfit`]).
#[derive(Clone, Copy)]
pub(crate) struct Shape<'a> {
    pub(crate) specs: &'a [SectionSpec],
    /// The format guide the runs were shown.
    pub(crate) guide: Option<&'a str>,
    pub(crate) lang: Lang,
}

impl<M: ChatModel> Think<'_, M> {
    /// The lessons of a run for `prompt`, of a type with `specs` and
    /// `ways` (none for a run that is not of a `Sections` type): a job
    /// that cannot be read ends the run before its first request, as an
    /// attachment that cannot be sent does.
    pub(super) async fn lessons(
        &self,
        prompt: &Message,
        specs: Option<&[SectionSpec]>,
        ways: &[WaysSpec],
        guide: Option<&str>,
        lang: Lang,
    ) -> Result<Lessons, Box<ThinkError>> {
        if let Some(specs) = specs {
            // Nothing recorded, nothing learned (always so without the
            // journal): the run goes on without reading anything.
            let Some(shape) = self.stores.shape_of(specs, ways) else {
                return Ok(Lessons::default());
            };
            let checked = Shape { specs, guide, lang };
            let lessons = self
                .stores
                .typed_runs(&shape, self.learned)
                .await
                .map(|jobs| demonstrations(jobs, checked, prompt.content.as_str(), self.learned))
                .map_err(|error| {
                    tracing::warn!(%error, "twr could not read the typed runs to learn from");
                    let source = crate::ModelError::Other(error);
                    Box::new(ThinkError::new(
                        super::ThinkErrorKind::Model { source, retries: 0 },
                        Vec::new(),
                        None,
                        Default::default(),
                    ))
                })?;
            return Ok(Lessons {
                record_as: self.stores.records().then_some(shape),
                ..lessons
            });
        }
        Ok(Lessons::default())
    }
}

/// A text's character trigrams, with how often each occurs.
struct Trigrams {
    counts: HashMap<[char; 3], u32>,
    total: u32,
}

impl Trigrams {
    fn of(text: &str) -> Trigrams {
        let mut counts = HashMap::new();
        let mut total = 0;
        let mut window = [' '; 3];
        let mut filled = 1; // the leading space
        let mut space = true;
        let mut push = |c: char, window: &mut [char; 3], filled: &mut usize| {
            *window = [window[1], window[2], c];
            *filled += 1;
            if *filled >= 3 {
                *counts.entry(*window).or_insert(0) += 1;
                total += 1;
            }
        };
        // The window starts as "  " + first character: a leading space
        // marks the start of the first word, as spaces mark the others.
        for c in text.chars() {
            if c.is_alphanumeric() {
                for lower in c.to_lowercase() {
                    push(lower, &mut window, &mut filled);
                }
                space = false;
            } else if !space {
                push(' ', &mut window, &mut filled);
                space = true;
            }
        }
        if !space {
            push(' ', &mut window, &mut filled);
        }
        Trigrams { counts, total }
    }
}

/// A similarity as an exact ratio: `2 * shared / total`.
#[derive(Clone, Copy)]
struct Score {
    shared: u64,
    total: u64,
}

impl Score {
    fn between(query: &Trigrams, text: &str) -> Score {
        let other = Trigrams::of(text);
        let shared: u64 = other
            .counts
            .iter()
            .map(|(gram, &n)| u64::from(n.min(query.counts.get(gram).copied().unwrap_or(0))))
            .sum();
        Score {
            shared,
            total: u64::from(query.total) + u64::from(other.total),
        }
    }

    fn value(self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            2.0 * self.shared as f64 / self.total as f64
        }
    }

    /// Compares two ratios exactly, by cross-multiplying.
    fn cmp(self, other: Score) -> Ordering {
        let left = u128::from(self.shared) * u128::from(other.total.max(1));
        let right = u128::from(other.shared) * u128::from(self.total.max(1));
        left.cmp(&right)
    }
}

/// An earlier run a demonstration may be drawn from.
pub(crate) struct Candidate {
    pub(crate) prompt: String,
    /// The answer its value was read from, in the soft format.
    pub(crate) answer: String,
    /// Whether it was typed only with a grammar's help (it sent a
    /// constrained attempt).
    pub(crate) constrained: bool,
}

/// The `k` runs of `candidates` to show before `prompt`, each with the
/// index of the job it came from: first the runs typed free (with no
/// constrained attempt), then the others, each group most alike first; then
/// by the job's place in `candidates`, by prompt, then by answer, so that a
/// given store and prompt give the same picks every time. A run typed free
/// goes first whatever its similarity: its answer is the model's own reply
/// to the format, while a constrained one's sections were held in shape by
/// the server. A prompt equal to `prompt` is skipped (its own answer would
/// be shown, not an example), and of equal prompts only the first is taken.
pub(crate) fn pick<'c>(
    prompt: &str,
    candidates: &'c [(String, Vec<Candidate>)],
    k: usize,
) -> Vec<(&'c str, &'c Candidate, f64)> {
    if k == 0 {
        return Vec::new();
    }
    let query = Trigrams::of(prompt);
    let mut scored: Vec<(Score, usize, &Candidate)> = Vec::new();
    for (job, (_, runs)) in candidates.iter().enumerate() {
        for run in runs {
            if run.prompt == prompt {
                continue;
            }
            scored.push((Score::between(&query, &run.prompt), job, run));
        }
    }
    scored.sort_by(|a, b| {
        a.2.constrained
            .cmp(&b.2.constrained)
            .then(b.0.cmp(a.0))
            .then(a.1.cmp(&b.1))
            .then(a.2.prompt.cmp(&b.2.prompt))
            .then(a.2.answer.cmp(&b.2.answer))
    });
    let mut picked: Vec<(&str, &Candidate, f64)> = Vec::with_capacity(k);
    for (score, job, run) in scored {
        if picked.len() == k {
            break;
        }
        if picked.iter().any(|(_, p, _)| p.prompt == run.prompt) {
            continue;
        }
        picked.push((&candidates[job].0, run, score.value()));
    }
    picked
}

/// Why an earlier typed answer is not shown as a demonstration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unfit {
    /// A section repeats the format guide instead of answering: its
    /// description, its slot (`<a single whole number>`), or a line of
    /// the guide of at least [`COPIED_CHARS`] characters.
    CopiesGuide,
    /// A section's line is a placeholder: wholly in angle brackets
    /// (`<item1>`) or, outside JSON, table and record sections, square
    /// brackets (`[Your name]`, `- [x]`).
    Placeholder,
    /// A section names one of the type's own headers (`The [Stars]
    /// section needs a number`): the model wrote about the format, most
    /// often copying the feedback it was sent.
    NamesHeaders,
    /// A line of at least [`REPEATED_CHARS`] characters occurs twice: a
    /// reply running on in a loop.
    Repeats,
}

/// How long a line of an answer must be to count as copied from the guide
/// when the guide holds it: shorter ones (`3`, `Easy`, `$600`) may well
/// be the answer.
pub(crate) const COPIED_CHARS: usize = 12;

/// How long a line must be for a second occurrence to count as a
/// repetition: short items (`- salt`) may recur in a good answer.
pub(crate) const REPEATED_CHARS: usize = 8;

/// Whether `answer`, a typed answer in the soft format, is unfit to be
/// shown as a demonstration of `shape`, and why (the first reason found, in
/// the order of [`Unfit`]'s variants per line). Every rule reads the answer
/// alone, against the type and its guide: nothing about the prompts the
/// answers are for, so it holds for any type. A line is compared trimmed,
/// without its list marker (`-`, `*`, `+`, `•`, `1.`, `1)`), ignoring
/// case. Linear in the answer's lines times the guide's length.
pub(crate) fn unfit(answer: &str, shape: Shape<'_>) -> Option<Unfit> {
    let map = split_sections(answer, shape.specs);
    if super::focus::copies_the_guide(&map, shape.specs, shape.lang) {
        return Some(Unfit::CopiesGuide);
    }
    let guide = shape.guide.map(str::to_lowercase);
    let headers: Vec<String> = shape
        .specs
        .iter()
        .map(|spec| spec.header.to_lowercase())
        .filter(|header| !header.is_empty())
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    for (index, spec) in shape.specs.iter().enumerate() {
        let Some(content) = map.content(index) else {
            continue;
        };
        // A whole line in brackets is a copied placeholder (`[your plan]`)
        // unless the kind's own values may be written so (a JSON array).
        let bracketed = match spec.kind {
            ValueKind::Json | ValueKind::Table | ValueKind::Record | ValueKind::Map(_) => false,
            ValueKind::Text
            | ValueKind::Integer
            | ValueKind::Float
            | ValueKind::Bool
            | ValueKind::Char
            | ValueKind::Choice(_)
            | ValueKind::List(_)
            | ValueKind::Custom => true,
        };
        for line in content.lines() {
            let line = without_marker(line.trim()).to_lowercase();
            if line.is_empty() {
                continue;
            }
            let chars = line.chars().count();
            if guide
                .as_deref()
                .is_some_and(|guide| chars >= COPIED_CHARS && guide.contains(&line))
            {
                return Some(Unfit::CopiesGuide);
            }
            if (line.starts_with('<') && line.ends_with('>'))
                || (bracketed && line.starts_with('[') && line.ends_with(']'))
            {
                return Some(Unfit::Placeholder);
            }
            if headers.iter().any(|header| line.contains(header.as_str())) {
                return Some(Unfit::NamesHeaders);
            }
            if chars >= REPEATED_CHARS && !seen.insert(line) {
                return Some(Unfit::Repeats);
            }
        }
    }
    None
}

/// `line` without a list marker: `-`, `*`, `+`, `•`, or a number followed
/// by `.` or `)`, then white space.
fn without_marker(line: &str) -> &str {
    let rest = line.strip_prefix(['-', '*', '+', '•']).or_else(|| {
        let digits = line.trim_start_matches(|c: char| c.is_ascii_digit());
        (digits.len() < line.len())
            .then(|| digits.strip_prefix(['.', ')']))
            .flatten()
    });
    match rest {
        Some(rest) if rest.is_empty() || rest.starts_with(char::is_whitespace) => rest.trim_start(),
        _ => line,
    }
}

/// The demonstrations for `prompt` from `jobs`, the typed runs of the
/// run's shape in each job learned from: (question, answer) pairs to show,
/// and their ledger entries. An answer [`unfit`] for `checked` is
/// never a candidate.
fn demonstrations(jobs: Vec<JobRuns>, checked: Shape<'_>, prompt: &str, k: usize) -> Lessons {
    if k == 0 || jobs.is_empty() {
        return Lessons::default();
    }
    let mut candidates = Vec::with_capacity(jobs.len());
    let mut refused = 0usize;
    for (job, runs) in jobs {
        let runs: Vec<Candidate> = runs
            .into_iter()
            .filter(|(_, answer, _)| {
                let fit = unfit(answer, checked).is_none();
                refused += usize::from(!fit);
                fit
            })
            .map(|(prompt, answer, constrained)| Candidate {
                prompt,
                answer,
                constrained,
            })
            .collect();
        candidates.push((job, runs));
    }
    if refused > 0 {
        tracing::debug!(refused, "twr left out typed answers unfit to be shown");
    }
    let mut picked = pick(prompt, &candidates, k);
    // Shown best last, next to the prompt: a small model copies the turn
    // nearest its own most. Measured on SmolLM2-135M (20 held-out runs,
    // same seeds, learning from three tuning rounds), first tries typed
    // went from 5 to 8 with k = 2 and from 6 to 8 with k = 3; from one
    // round, 5 to 4.
    picked.reverse();
    let demonstrations = picked
        .iter()
        .map(|(_, run, _)| (run.prompt.clone(), run.answer.clone()))
        .collect();
    let learned = picked
        .into_iter()
        .map(|(job, run, similarity)| Learned {
            job: job.to_string(),
            prompt: run.prompt.clone(),
            similarity,
        })
        .collect();
    Lessons {
        demonstrations,
        learned,
        record_as: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grams(text: &str) -> Vec<String> {
        let mut grams: Vec<String> = Trigrams::of(text)
            .counts
            .iter()
            .flat_map(|(g, &n)| std::iter::repeat_n(g.iter().collect::<String>(), n as usize))
            .collect();
        grams.sort();
        grams
    }

    #[test]
    fn trigrams_fold_case_and_mark_word_edges() {
        assert_eq!(grams("Ab, c"), [" ab", " c ", "ab ", "b c"]);
        assert_eq!(grams("  AB!!"), [" ab", "ab "]);
        assert!(grams("").is_empty());
        assert_eq!(Trigrams::of("Ab, c").total, 4);
    }

    #[test]
    fn scores_are_exact_ratios() {
        let query = Trigrams::of("plan a trip");
        assert_eq!(Score::between(&query, "plan a trip").value(), 1.0);
        assert_eq!(Score::between(&query, "zzz").value(), 0.0);
        assert_eq!(Score::between(&Trigrams::of(""), "").value(), 0.0);
        // " ab", "ab " against " ab", "abc", "bc ": one shared of five.
        let score = Score::between(&Trigrams::of("ab"), "abc");
        assert_eq!((score.shared, score.total), (1, 5));
        assert_eq!(score.value(), 0.4);
    }

    fn runs(items: &[(&str, &str, bool)]) -> Vec<Candidate> {
        items
            .iter()
            .map(|&(prompt, answer, constrained)| Candidate {
                prompt: prompt.to_string(),
                answer: answer.to_string(),
                constrained,
            })
            .collect()
    }

    fn names<'c>(picked: &[(&'c str, &'c Candidate, f64)]) -> Vec<(&'c str, &'c str, &'c str)> {
        picked
            .iter()
            .map(|(job, run, _)| (*job, run.prompt.as_str(), run.answer.as_str()))
            .collect()
    }

    #[test]
    fn picks_the_most_alike_then_by_job_prompt_and_answer() {
        let candidates = vec![
            (
                "a".to_string(),
                runs(&[("trip to kyoto", "A1", false), ("bake bread", "A2", false)]),
            ),
            (
                "b".to_string(),
                runs(&[
                    ("trip to kyoto", "B1", false),
                    ("trip to osaka", "B2", false),
                ]),
            ),
        ];
        let picked = pick("a trip to kyoto in may", &candidates, 2);
        // The equal prompt of job b is a duplicate of job a's.
        assert_eq!(
            names(&picked),
            [("a", "trip to kyoto", "A1"), ("b", "trip to osaka", "B2")]
        );
        assert!(picked[0].2 > picked[1].2);
        assert!(pick("x", &candidates, 0).is_empty());
        // The prompt itself is never its own example.
        let own = pick("trip to kyoto", &candidates, 1);
        assert_eq!(own[0].1.prompt, "trip to osaka");
    }

    #[test]
    fn runs_typed_free_go_before_constrained_ones() {
        let candidates = vec![(
            "a".to_string(),
            runs(&[
                ("trip to kyoto", "K", true),
                ("bake bread", "B", false),
                ("trip to osaka", "O", true),
            ]),
        )];
        let picked = pick("a trip to kyoto in may", &candidates, 3);
        assert_eq!(
            names(&picked),
            [
                ("a", "bake bread", "B"),
                ("a", "trip to kyoto", "K"),
                ("a", "trip to osaka", "O")
            ]
        );
        assert_eq!(picked[0].2, 0.0);
    }

    static TRIP: [SectionSpec; 3] = [
        SectionSpec::new("plan", "[Plan]", "Plan", ValueKind::List(&ValueKind::Text))
            .with_description("What to see and do, one item per line."),
        SectionSpec::new("days", "[Days]", "Days", ValueKind::Integer)
            .with_description("How many days the trip takes."),
        SectionSpec::new("budget", "[Budget]", "Budget", ValueKind::Json)
            .with_description("The budget, as JSON."),
    ];

    fn trip(answer: &str) -> Option<Unfit> {
        let guide = "[Plan]\nWhat to see and do, one item per line.\n\n[Days]\nHow many days \
                     the trip takes. A single whole number.\n\n[Budget]\nThe budget, as JSON.";
        unfit(
            answer,
            Shape {
                specs: &TRIP,
                guide: Some(guide),
                lang: Lang::En,
            },
        )
    }

    #[test]
    fn a_sensible_answer_is_fit() {
        let answer = "[Plan]\n- Gion at dusk\n- Gion at dusk tomorrow\n- Tea\n- Tea\n[Days]\n3\n\
                      [Budget]\n[1, 2]\n[1, 2]";
        // Short items may recur, and a JSON section's lines are brackets.
        assert_eq!(trip(answer), None);
        assert_eq!(trip("[Plan]\n1. Fushimi Inari\n[Days]\n2"), None);
    }

    #[test]
    fn answers_that_copy_the_format_are_unfit() {
        // The description echoed (the loop's own check).
        assert_eq!(
            trip("[Plan]\nWhat to see and do, one item per line: temples\n[Days]\n2"),
            Some(Unfit::CopiesGuide)
        );
        // A line of the guide, whatever its case, inside a list item.
        assert_eq!(
            trip("[Plan]\n- Temples\n- ONE ITEM PER LINE.\n[Days]\n2"),
            Some(Unfit::CopiesGuide)
        );
        // Shorter than 12 characters, a line the guide holds may be the answer.
        assert_eq!(trip("[Plan]\n- the budget\n[Days]\n2"), None);
        assert_eq!(
            trip("[Plan]\n- <item1>\n[Days]\n2"),
            Some(Unfit::Placeholder)
        );
        assert_eq!(
            trip("[Plan]\n2) [Your name]\n[Days]\n2"),
            Some(Unfit::Placeholder)
        );
        assert_eq!(
            trip("[Plan]\n- Add [budget] to the plan\n[Days]\n2"),
            Some(Unfit::NamesHeaders)
        );
        assert_eq!(
            trip("[Plan]\n- See the temples\n* see the temples\n[Days]\n2"),
            Some(Unfit::Repeats)
        );
    }

    #[test]
    fn list_markers_are_taken_off() {
        assert_eq!(without_marker("- a"), "a");
        assert_eq!(without_marker("12) a"), "a");
        assert_eq!(without_marker("3. a"), "a");
        assert_eq!(without_marker("• a"), "a");
        assert_eq!(without_marker("-a"), "-a");
        assert_eq!(without_marker("3.5 km"), "3.5 km");
        assert_eq!(without_marker("-"), "");
    }
}
