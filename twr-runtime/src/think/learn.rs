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
//! [`Think::learn_from`]: super::Think::learn_from
// Without the journal there is nothing to learn from: the similarity is
// built but only its tests use it.
#![cfg_attr(not(feature = "journal"), allow(dead_code))]

use std::cmp::Ordering;
use std::collections::HashMap;

#[cfg(feature = "journal")]
use crate::journal::{JournalError, TypedRun};
use crate::model::{ChatModel, Message};
use crate::sections::{ChoiceSpec, SectionSpec};

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

impl<M: ChatModel> Think<'_, M> {
    /// The lessons of a run for `prompt`, of a type with `specs` and
    /// `choices` (none for a run that is not of a `Sections` type): a job
    /// that cannot be read ends the run before its first request, as an
    /// attachment that cannot be sent does.
    pub(super) fn lessons(
        &self,
        prompt: &Message,
        specs: Option<&[SectionSpec]>,
        choices: &[ChoiceSpec],
    ) -> Result<Lessons, Box<ThinkError>> {
        #[cfg(feature = "journal")]
        if let Some(specs) = specs {
            let records = self.stores.job.is_some();
            if !records && self.learn_from.is_empty() {
                return Ok(Lessons::default());
            }
            let shape = crate::journal::shape_of(specs, choices);
            let lessons = demonstrations(
                &self.learn_from,
                &shape,
                prompt.content.as_str(),
                self.learned,
            )
            .map_err(|error| {
                tracing::warn!(%error, "twr could not read the typed runs to learn from");
                let source = crate::ModelError::Other(Box::new(error));
                Box::new(ThinkError::new(
                    super::ThinkErrorKind::Model { source, retries: 0 },
                    Vec::new(),
                    None,
                    Default::default(),
                ))
            })?;
            return Ok(Lessons {
                record_as: records.then_some(shape),
                ..lessons
            });
        }
        let _ = (prompt, specs, choices);
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

/// The `k` runs of `candidates` most like `prompt`, most alike first, each
/// with the index of the job it came from: by similarity, then by the
/// job's place in `candidates`, then by prompt, then by answer, so that a
/// given store and prompt give the same picks every time. A prompt equal
/// to `prompt` is skipped (its own answer would be shown, not an example),
/// and of equal prompts only the first is taken.
pub(crate) fn pick<'c>(
    prompt: &str,
    candidates: &'c [(String, Vec<(String, String)>)],
    k: usize,
) -> Vec<(&'c str, &'c str, &'c str, f64)> {
    if k == 0 {
        return Vec::new();
    }
    let query = Trigrams::of(prompt);
    let mut scored: Vec<(Score, usize, &str, &str)> = Vec::new();
    for (job, (_, runs)) in candidates.iter().enumerate() {
        for (earlier, answer) in runs {
            if earlier == prompt {
                continue;
            }
            scored.push((Score::between(&query, earlier), job, earlier, answer));
        }
    }
    scored.sort_by(|a, b| {
        b.0.cmp(a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(b.2))
            .then(a.3.cmp(b.3))
    });
    let mut picked: Vec<(&str, &str, &str, f64)> = Vec::with_capacity(k);
    for (score, job, earlier, answer) in scored {
        if picked.len() == k {
            break;
        }
        if picked.iter().any(|(_, p, _, _)| *p == earlier) {
            continue;
        }
        picked.push((&candidates[job].0, earlier, answer, score.value()));
    }
    picked
}

/// The demonstrations for `prompt` from the typed runs of shape `shape` in
/// `jobs`: (question, answer) pairs to show, and their ledger entries.
#[cfg(feature = "journal")]
fn demonstrations(
    jobs: &[crate::journal::Job],
    shape: &str,
    prompt: &str,
    k: usize,
) -> Result<Lessons, JournalError> {
    if k == 0 || jobs.is_empty() {
        return Ok(Lessons::default());
    }
    let mut candidates = Vec::with_capacity(jobs.len());
    for job in jobs {
        let runs = job
            .typed_runs_of(shape)?
            .into_iter()
            .map(|TypedRun { prompt, answer, .. }| (prompt, answer))
            .collect();
        candidates.push((job.name().to_string(), runs));
    }
    let picked = pick(prompt, &candidates, k);
    let demonstrations = picked
        .iter()
        .map(|(_, question, answer, _)| (question.to_string(), answer.to_string()))
        .collect();
    let learned = picked
        .into_iter()
        .map(|(job, prompt, _, similarity)| Learned {
            job: job.to_string(),
            prompt: prompt.to_string(),
            similarity,
        })
        .collect();
    Ok(Lessons {
        demonstrations,
        learned,
        record_as: None,
    })
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

    #[test]
    fn picks_the_most_alike_then_by_job_prompt_and_answer() {
        let runs = |items: &[(&str, &str)]| {
            items
                .iter()
                .map(|(p, a)| (p.to_string(), a.to_string()))
                .collect::<Vec<_>>()
        };
        let candidates = vec![
            (
                "a".to_string(),
                runs(&[("trip to kyoto", "A1"), ("bake bread", "A2")]),
            ),
            (
                "b".to_string(),
                runs(&[("trip to kyoto", "B1"), ("trip to osaka", "B2")]),
            ),
        ];
        let picked = pick("a trip to kyoto in may", &candidates, 2);
        let names: Vec<(&str, &str, &str)> = picked.iter().map(|p| (p.0, p.1, p.2)).collect();
        // The equal prompt of job b is a duplicate of job a's.
        assert_eq!(
            names,
            [("a", "trip to kyoto", "A1"), ("b", "trip to osaka", "B2")]
        );
        assert!(picked[0].3 > picked[1].3);
        assert!(pick("x", &candidates, 0).is_empty());
        // The prompt itself is never its own example.
        let own = pick("trip to kyoto", &candidates, 1);
        assert_eq!(own[0].1, "trip to osaka");
    }
}
