//! `--truth`: typed and right. Held-out short texts whose every field has
//! one right value, run per strategy with `Think::confidence(true)`; the
//! report says how many fields were right, how many runs had every field
//! right, and how well each field's confidence tells a right value from a
//! wrong one: the area under the ROC curve, and at the default threshold
//! the share of wrong values flagged for review and of right ones flagged.

use std::fmt::Write as _;

use twr_runtime::grammar::Dialect;
use twr_runtime::{Choice, OpenAiCompatible, Outcome, Sections, Think};

/// What kind of event a text describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Choice)]
pub enum EventKind {
    Concert,
    Conference,
    Match,
    Festival,
    Exhibition,
}

/// An event, as a short text describes it.
#[derive(Debug, Sections)]
pub struct Event {
    /// The event's name, exactly as the text gives it.
    pub name: String,
    /// The city where it takes place.
    pub city: String,
    /// The year it takes place.
    pub year: u32,
    /// How many people attend.
    pub attendees: u32,
    /// Whether entry is free.
    pub free: bool,
    /// What kind of event it is.
    pub kind: EventKind,
}

/// A text and its right answer.
pub struct Truth {
    pub text: &'static str,
    pub name: &'static str,
    pub city: &'static str,
    pub year: u32,
    pub attendees: u32,
    pub free: bool,
    pub kind: EventKind,
}

macro_rules! truth {
    ($text:literal, $name:literal, $city:literal, $year:literal, $attendees:literal, $free:literal, $kind:ident) => {
        Truth {
            text: $text,
            name: $name,
            city: $city,
            year: $year,
            attendees: $attendees,
            free: $free,
            kind: EventKind::$kind,
        }
    };
}

/// Held out: no strategy is tuned on these.
pub const TRUTHS: &[Truth] = &[
    truth!("The Harbor Lights Concert is held in Oslo in 2025. About 1200 people attend, and entry is free.", "Harbor Lights Concert", "Oslo", 2025, 1200, true, Concert),
    truth!("RustConf takes place in Portland in 2024 with 900 attendees. Tickets cost $300.", "RustConf", "Portland", 2024, 900, false, Conference),
    truth!("The city derby between Lyon and Saint-Etienne is played in Lyon in 2023 before 56000 fans who paid for tickets.", "city derby", "Lyon", 2023, 56000, false, Match),
    truth!("Green Fields Festival returns to Utrecht in 2026. Entry is free and 15000 visitors are expected.", "Green Fields Festival", "Utrecht", 2026, 15000, true, Festival),
    truth!("The Blue Period exhibition opens in Madrid in 2025; 4000 visitors bought tickets on the first day.", "Blue Period", "Madrid", 2025, 4000, false, Exhibition),
    truth!("In 2022, 300 developers met in Tallinn for DevDays, a free conference.", "DevDays", "Tallinn", 2022, 300, true, Conference),
    truth!("Jazz by the River, a concert in Prague in 2024, sold 800 tickets.", "Jazz by the River", "Prague", 2024, 800, false, Concert),
    truth!("The Northern Cup final was played in Glasgow in 2021 in front of 40000 paying fans.", "Northern Cup final", "Glasgow", 2021, 40000, false, Match),
    truth!("Lantern Festival in Taipei, 2025: free entry, 100000 visitors.", "Lantern Festival", "Taipei", 2025, 100000, true, Festival),
    truth!("Modern Clay, an exhibition of ceramics, runs in Kyoto in 2023. Entry is free; 2500 people came.", "Modern Clay", "Kyoto", 2023, 2500, true, Exhibition),
    truth!("PyData Berlin 2024 brought 1100 attendees to Berlin. Tickets were paid.", "PyData Berlin", "Berlin", 2024, 1100, false, Conference),
    truth!("The Summer Strings concert in Vienna in 2026 is free for its 600 listeners.", "Summer Strings", "Vienna", 2026, 600, true, Concert),
    truth!("Over 70000 paying fans watched the Harbour Derby in Sydney in 2022.", "Harbour Derby", "Sydney", 2022, 70000, false, Match),
    truth!("Book Days is a free festival in Lisbon; in 2023 it drew 9000 readers.", "Book Days", "Lisbon", 2023, 9000, true, Festival),
    truth!("Light and Shadow, a photography exhibition in Montreal in 2024, had 3200 ticketed visitors.", "Light and Shadow", "Montreal", 2024, 3200, false, Exhibition),
    truth!("Cloud Summit, a paid conference, gathered 5000 people in Singapore in 2025.", "Cloud Summit", "Singapore", 2025, 5000, false, Conference),
    truth!("The Midnight Choir concert filled a church in Bergen in 2021: 450 people, free entry.", "Midnight Choir", "Bergen", 2021, 450, true, Concert),
    truth!("In 2026 the Derby of the Rivers in Buenos Aires drew 60000 paying spectators.", "Derby of the Rivers", "Buenos Aires", 2026, 60000, false, Match),
    truth!("Street Food Festival, Bangkok, 2024: 25000 visitors, free entry.", "Street Food Festival", "Bangkok", 2024, 25000, true, Festival),
    truth!("Maps of Time, an exhibition in Edinburgh in 2022, welcomed 1800 paying visitors.", "Maps of Time", "Edinburgh", 2022, 1800, false, Exhibition),
];

/// Tuning texts: the `learned` strategy learns from the answers typed for
/// these (the defaults, the last attempt constrained), never from the
/// held-out ones.
pub const TUNING: &[&str] = &[
    "The Riverside Blues concert is held in Dublin in 2023. About 700 people attend, and entry is free.",
    "DataCamp Days takes place in Warsaw in 2024 with 1500 attendees. Tickets cost $200.",
    "The Autumn Cup final is played in Porto in 2022 before 30000 paying fans.",
    "Harvest Festival returns to Ghent in 2025. Entry is free and 12000 visitors are expected.",
    "Glass and Light, an exhibition in Zurich in 2026, sold 2200 tickets.",
    "In 2023, 400 engineers met in Riga for EdgeConf, a paid conference.",
];

/// The question each text is asked with.
pub fn prompt(text: &str) -> String {
    format!("Read this text and fill in the event's details.\n\n{text}")
}

pub const FIELDS: [&str; 6] = ["name", "city", "year", "attendees", "free", "kind"];

/// The default threshold of `Think::review_below` this measures.
///
/// 0.3: on SmolLM2-135M's typed values of these texts the confidences are
/// low throughout (the model is unsure of right values too), and 0.3 is
/// where the most wrong values are flagged with at most 30% of the right
/// ones (75% and 27%); 0.8 flagged all of both.
pub const THRESHOLD: f64 = 0.3;

/// Each field of `event` right or not against `truth`, by field name.
pub fn right(event: &Event, truth: &Truth) -> [bool; 6] {
    let same = |a: &str, b: &str| {
        let norm = |s: &str| s.trim().trim_end_matches('.').to_lowercase();
        norm(a) == norm(b) || norm(a) == format!("the {}", norm(b))
    };
    [
        same(&event.name, truth.name),
        same(&event.city, truth.city),
        event.year == truth.year,
        event.attendees == truth.attendees,
        event.free == truth.free,
        event.kind == truth.kind,
    ]
}

/// One scored value: its field, its confidence (if measured), right or not.
pub struct Scored {
    pub field: &'static str,
    pub confidence: Option<f64>,
    pub right: bool,
    pub constrained: bool,
}

/// A strategy's runs, reduced.
#[derive(Default)]
pub struct Tally {
    pub runs: usize,
    pub typed: usize,
    pub all_right: usize,
    pub scored: Vec<Scored>,
}

impl Tally {
    pub fn add(&mut self, outcome: Option<&Outcome<Event>>, truth: &Truth) {
        self.runs += 1;
        let Some(outcome) = outcome else { return };
        self.typed += 1;
        let right = right(&outcome.value, truth);
        if right.iter().all(|&r| r) {
            self.all_right += 1;
        }
        for (index, field) in FIELDS.iter().enumerate() {
            // The attempt the field's value came from was constrained?
            let from = outcome
                .sources
                .iter()
                .find(|s| {
                    s.header
                        .trim_matches(['[', ']'])
                        .eq_ignore_ascii_case(field)
                })
                .map(|s| s.attempt)
                .unwrap_or(outcome.attempts.len());
            let constrained = outcome
                .attempts
                .iter()
                .find(|a| a.number == from)
                .is_some_and(|a| a.constrained);
            self.scored.push(Scored {
                field,
                confidence: outcome.confidence(field),
                right: right[index],
                constrained,
            });
        }
    }
}

/// The area under the ROC curve of `confidence` as a score of rightness:
/// the chance that a right value has a higher confidence than a wrong one
/// (ties count a half). `None` without both.
pub fn auroc(scored: &[&Scored]) -> Option<f64> {
    let right: Vec<f64> = scored
        .iter()
        .filter(|s| s.right)
        .filter_map(|s| s.confidence)
        .collect();
    let wrong: Vec<f64> = scored
        .iter()
        .filter(|s| !s.right)
        .filter_map(|s| s.confidence)
        .collect();
    if right.is_empty() || wrong.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for r in &right {
        for w in &wrong {
            sum += if r > w {
                1.0
            } else if r == w {
                0.5
            } else {
                0.0
            };
        }
    }
    Some(sum / (right.len() * wrong.len()) as f64)
}

/// The share of wrong values and of right values below `threshold`.
pub fn flagged(scored: &[&Scored], threshold: f64) -> (f64, f64) {
    let share = |right: bool| {
        let of: Vec<f64> = scored
            .iter()
            .filter(|s| s.right == right)
            .filter_map(|s| s.confidence)
            .collect();
        if of.is_empty() {
            return f64::NAN;
        }
        of.iter().filter(|&&c| c < threshold).count() as f64 / of.len() as f64
    };
    (share(false), share(true))
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "–".into()
    } else {
        format!("{:.0}%", x * 100.0)
    }
}

/// The report of one strategy: the line of the table, then per kind of
/// value and free against constrained.
pub fn report(name: &str, tally: &Tally) -> String {
    let mut out = String::new();
    let all: Vec<&Scored> = tally.scored.iter().collect();
    let right = all.iter().filter(|s| s.right).count();
    let measured = all.iter().filter(|s| s.confidence.is_some()).count();
    let (wrong_flagged, right_flagged) = flagged(&all, THRESHOLD);
    let _ = writeln!(
        out,
        "| {name} | {}/{} | {}/{} | {}/{} | {} | {} | {} | {}/{} |",
        tally.typed,
        tally.runs,
        right,
        all.len(),
        tally.all_right,
        tally.runs,
        auroc(&all).map_or("–".into(), |a| format!("{a:.2}")),
        pct(wrong_flagged),
        pct(right_flagged),
        measured,
        all.len(),
    );
    for field in FIELDS {
        let of: Vec<&Scored> = all.iter().copied().filter(|s| s.field == field).collect();
        let right = of.iter().filter(|s| s.right).count();
        let (w, r) = flagged(&of, THRESHOLD);
        let _ = writeln!(
            out,
            "|   {field} | | {right}/{} | | {} | {} | {} | |",
            of.len(),
            auroc(&of).map_or("–".into(), |a| format!("{a:.2}")),
            pct(w),
            pct(r),
        );
    }
    for constrained in [false, true] {
        let of: Vec<&Scored> = all
            .iter()
            .copied()
            .filter(|s| s.constrained == constrained)
            .collect();
        if of.is_empty() {
            continue;
        }
        let right = of.iter().filter(|s| s.right).count();
        let (w, r) = flagged(&of, THRESHOLD);
        let _ = writeln!(
            out,
            "|   {} values | | {right}/{} | | {} | {} | {} | |",
            if constrained { "constrained" } else { "free" },
            of.len(),
            auroc(&of).map_or("–".into(), |a| format!("{a:.2}")),
            pct(w),
            pct(r),
        );
    }
    out
}

/// The thresholds a program could choose, with what each flags.
pub fn thresholds(tally: &Tally) -> String {
    let all: Vec<&Scored> = tally.scored.iter().collect();
    let mut out = String::from("threshold: wrong flagged / right flagged —");
    for t in [0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.8] {
        let (w, r) = flagged(&all, t);
        let _ = write!(out, " {t}: {}/{}", pct(w), pct(r));
    }
    out
}

/// Runs every text once with `think`, one after another.
pub async fn run_all(think: &Think<'_, &OpenAiCompatible>, limit: Option<usize>) -> Tally {
    let mut tally = Tally::default();
    for (number, truth) in TRUTHS
        .iter()
        .take(limit.unwrap_or(TRUTHS.len()))
        .enumerate()
    {
        let outcome = think.run::<Event>(prompt(truth.text)).await;
        if let Err(error) = &outcome {
            eprintln!("  untyped: {}", error);
        }
        let scored = tally.scored.len();
        tally.add(outcome.as_ref().ok(), truth);
        // Each run as it ends, for a measurement cut short: its fields,
        // right or wrong, with their confidences.
        let fields: Vec<String> = tally.scored[scored..]
            .iter()
            .map(|s| {
                format!(
                    "{}={}{}{}",
                    s.field,
                    if s.right { "right" } else { "wrong" },
                    s.confidence.map_or(String::new(), |c| format!("@{c:.3}")),
                    if s.constrained { "/c" } else { "" },
                )
            })
            .collect();
        eprintln!(
            "  run {}: {} {}",
            number + 1,
            if outcome.is_ok() { "typed" } else { "untyped" },
            fields.join(" ")
        );
    }
    tally
}

/// The two strategies measured: the defaults, and the defaults with the
/// client told its server's grammar dialect (the last attempt constrained).
pub fn client(base: &OpenAiCompatible, constrained: bool) -> OpenAiCompatible {
    let client = base.clone();
    if constrained {
        client.grammar(Dialect::LlamaCpp)
    } else {
        client
    }
}
