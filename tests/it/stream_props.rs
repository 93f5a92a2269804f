//! The incremental section parser against the whole-reply parser: random
//! replies (every header style, reasoning blocks, a lone `</think>`, fences,
//! CRLF, drafts repeated, invalid values, unknown headers) cut into random
//! chunks give exactly what `parse_sections` and `split_sections` give on the
//! whole text, and report the same sections in the same order whatever the
//! chunking.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use twr_runtime::parse::{split_sections, SectionStream, StreamEvent};
use twr_runtime::{Choice, Sections};

#[derive(Debug, Clone, PartialEq, Choice)]
enum Priority {
    Low,
    High,
}

#[derive(Debug, Clone, PartialEq, Sections)]
struct Report {
    plan: Vec<String>,
    #[section(aliases = ["Schedule"])]
    timeline: String,
    weeks: u32,
    notes: Option<String>,
    priority: Priority,
    #[section(default)]
    tags: Vec<String>,
}

/// What a stream reported: `(index, content)` per closed section, `None`
/// for a restart.
type Reported = Vec<Option<(usize, String)>>;

/// What stands after the last restart, and whether there was one: the
/// sections reported before a restart were reasoning, and how many there
/// were depends on where the chunks ended.
fn settled(reported: &Reported) -> (bool, &[Option<(usize, String)>]) {
    match reported.iter().rposition(Option::is_none) {
        Some(at) => (true, &reported[at + 1..]),
        None => (false, reported),
    }
}

/// Feeds `raw` cut at `cuts` (sorted char boundaries) and checks the result
/// against the whole-reply parsers; returns what was reported.
fn check(raw: &str, cuts: &[usize]) -> Result<Reported, TestCaseError> {
    let mut stream = SectionStream::<Report>::new();
    let mut reported = Vec::new();
    let mut record = |stream: &SectionStream<Report>, events: Vec<StreamEvent>| {
        for event in events {
            match event {
                StreamEvent::Closed(section) => {
                    reported.push(Some((section.index, stream.content(&section).to_owned())))
                }
                StreamEvent::Restart => reported.push(None),
                _ => {}
            }
        }
    };
    let mut from = 0;
    for &cut in cuts.iter().chain([&raw.len()]) {
        let events = stream.push(&raw[from..cut]);
        record(&stream, events);
        from = cut;
    }
    let events = stream.finish();
    record(&stream, events);
    prop_assert_eq!(stream.raw(), raw);
    let whole = split_sections(raw, Report::specs());
    prop_assert_eq!(stream.sections(), Some(whole.clone()));
    prop_assert_eq!(stream.value(), Report::parse_sections(raw));
    // After the last restart, each section of the map was reported, its
    // last report being its content, and nothing else was reported.
    let after = reported
        .iter()
        .rposition(Option::is_none)
        .map_or(0, |at| at + 1);
    for index in 0..Report::specs().len() {
        let last = reported[after..]
            .iter()
            .flatten()
            .rfind(|(i, _)| *i == index)
            .map(|(_, content)| content.as_str());
        prop_assert_eq!(last, whole.content(index), "section {}", index);
    }
    Ok(reported)
}

/// An empty section followed by blank lines and a reasoning block: its
/// range is the same in the stream as in the whole reply (right after the
/// header, not after the blank lines, which the block splits differently).
#[test]
fn an_empty_section_before_a_block_has_the_same_range() {
    let raw = "[Plan]\n\n<think>\n[Weeks]\nmany\n</think>\n\n";
    check(raw, &[]).unwrap();
    check(raw, &[3, 9]).unwrap();
    assert_eq!(
        split_sections(raw, Report::specs()).range("Plan"),
        Some(6..6)
    );
}

/// A reply wrapped whole in a fence whose closing fence line also holds
/// the closing tag of the section being read (```` ```</weeks> ````): the
/// tag closed the section with the fence in its content, and only at the
/// end is the fence known to close the reply; the stream then reports the
/// section again with what the whole reply's map holds. Found by
/// `any_chunking_gives_the_whole_replys_result` (it reported `5\n```` `).
#[test]
fn a_section_closed_on_the_closing_fence_line_is_reported_as_the_map_has_it() {
    for raw in [
        "```\n<weeks>```\n[Weeks]\n5\n```</weeks>\n",
        "Here you go:\n```\n<weeks>\n5\n```</weeks>\n",
        "```markdown\r\n[Plan]\r\n- a\r\n<weeks>5\r\n```</weeks>\r\n",
    ] {
        let whole = split_sections(raw, Report::specs());
        assert_eq!(whole.get("Weeks"), Some("5"), "{raw:?}");
        check(raw, &[]).unwrap();
        let bounds: Vec<usize> = raw.char_indices().map(|(i, _)| i).skip(1).collect();
        check(raw, &bounds).unwrap();
        for &cut in &bounds {
            check(raw, &[cut]).unwrap();
        }
    }
}

/// Cuts `raw` at `picks` (indices into its char boundaries).
fn cuts(raw: &str, picks: &[prop::sample::Index]) -> Vec<usize> {
    let bounds: Vec<usize> = raw.char_indices().map(|(i, _)| i).skip(1).collect();
    if bounds.is_empty() {
        return Vec::new();
    }
    let mut cuts: Vec<usize> = picks
        .iter()
        .map(|i| bounds[i.index(bounds.len())])
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// A header for `name` in one of the contract's styles, or as another tool
/// taught models to write it: DSPy's `[[ ## name ## ]]`, a numbered line.
fn header(style: usize, name: &str) -> String {
    let number = style / 16 % 4 + 1;
    match style % 14 {
        0 => format!("[{name}]"),
        1 => format!("[{}]", name.to_lowercase()),
        2 => format!("## {name}"),
        3 => format!("**[{name}]**"),
        4 => format!("**{name}:**"),
        5 => format!("{}:", name.to_uppercase()),
        6 => format!("【{name}】"),
        7 => format!("__{name}__"),
        8 => format!("### 2. {name}"),
        9 => format!("  [{name}]  "),
        10 => format!("[[ ## {} ## ]]", name.to_lowercase().replace(' ', "_")),
        11 => format!("{number}. {name}"),
        12 => format!("{number}) **{name}**"),
        _ => name.to_owned(),
    }
}

/// One piece of a reply.
fn part() -> impl Strategy<Value = String> {
    let name = prop::sample::select(vec![
        "Plan", "Timeline", "Schedule", "Weeks", "Notes", "Priority", "Tags", "Summary",
    ]);
    let content = prop::sample::select(vec![
        "- Visit the temples\n- Eat ramen",
        "1. Fushimi Inari\n2) Gion at dusk\n   then walk",
        "Day 1: Arashiyama. Day 2: Nara.",
        "6 weeks",
        "about six",
        "$1,200",
        "High",
        "medium",
        "N/A",
        "",
        "See the [Weeks] section below: 3 or 4.",
        "```\n[Weeks]\n5\n```",
        "---",
        "中文内容：第一天",
        "a <b> c <thin",
        "1. Weeks\n2. Notes",
        "Go east.[[ ## weeks ## ]] 5 [[ ## completed ## ]]",
        "x[[ ## notes ## ]][[ ## tags ## ]]\n- a",
        "1. Fushimi Inari\n2. Timeline\n3) Tags",
    ]);
    prop_oneof![
        4 => (any::<usize>(), name.clone(), any::<bool>(), content.clone()).prop_map(
            |(style, name, inline, content)| {
                // XML-style tag pairs, closed or not, on lines of their own
                // or around the content.
                if style % 13 >= 11 {
                    let tag = name.to_lowercase();
                    return match (style % 13 == 11, inline) {
                        (true, true) => format!("<{tag}>{content}</{tag}>\n"),
                        (true, false) => format!("<{tag}>\n{content}\n</{tag}>\n"),
                        (false, _) => format!("<{tag}>\n{content}\n"),
                    };
                }
                let header = header(style, name);
                if inline && !content.contains('\n') {
                    format!("{header} {content}\n")
                } else {
                    format!("{header}\n{content}\n")
                }
            }
        ),
        2 => content.prop_map(|c| format!("{c}\n")),
        1 => prop::sample::select(vec![
            "Sure! Here is my answer.\n",
            "<think>\n[Weeks]\nmany\n</think>\n",
            "<thinking>draft [Plan]</thinking>",
            "</think>\n",
            "<THINK>x</Think>",
            "```markdown\n",
            "```\n",
            "~~~\n",
            "\n",
            "\r\n",
            "---\n",
            "[Plan], [Timeline] and [Weeks] follow.\n",
            "[[ ## completed ## ]]\n",
            "2. Weeks\n",
        ])
        .prop_map(str::to_owned),
    ]
}

/// A reply: parts, perhaps wrapped in a fence, perhaps with CRLF.
fn reply() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(part(), 0..14),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(parts, fence, crlf)| {
            let mut raw = parts.concat();
            if fence {
                raw = format!("Here you go:\n```\n{raw}```\n");
            }
            if crlf {
                raw = raw.replace('\n', "\r\n");
            }
            raw
        })
}

/// Random replies, each whole, in several random chunkings and in
/// one-character pieces (one in ten also split in two at every character);
/// prints how many chunkings were tried.
#[test]
fn any_chunking_gives_the_whole_replys_result() {
    let chunkings = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config::with_cases(600));
    let strategy = (
        reply(),
        prop::collection::vec(
            prop::collection::vec(any::<prop::sample::Index>(), 0..40),
            1..8,
        ),
    );
    runner
        .run(&strategy, |(raw, chunkings_of_case)| {
            let reference = check(&raw, &[])?;
            chunkings.fetch_add(1, Ordering::Relaxed);
            let mut tried: Vec<Vec<usize>> = chunkings_of_case
                .iter()
                .map(|picks| cuts(&raw, picks))
                .collect();
            tried.push(raw.char_indices().map(|(i, _)| i).skip(1).collect());
            // Every split into two pieces, for one reply in ten.
            if raw.len() % 10 == 0 {
                tried.extend(raw.char_indices().skip(1).map(|(i, _)| vec![i]));
            }
            for cuts in tried {
                let reported = check(&raw, &cuts)?;
                prop_assert_eq!(settled(&reported), settled(&reference), "cut at {:?}", cuts);
                chunkings.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    let tried = chunkings.load(Ordering::Relaxed);
    println!("the incremental parser agreed with parse_sections on {tried} chunkings");
    assert!(tried > 600 * 3, "{tried} chunkings");
}

/// Replies made of any pieces at all, cut anywhere: never a panic, and the
/// same result as the whole reply.
#[test]
fn any_soup_in_any_chunks_gives_the_whole_replys_result() {
    let mut runner = TestRunner::new(Config::with_cases(1500));
    let soup = prop::collection::vec(
        prop::sample::select(vec![
            "[Plan]",
            "[plan",
            "]",
            "【",
            "】",
            "Plan",
            "Weeks",
            "Notes:",
            "：",
            ":",
            "\n",
            "\r",
            "\r\n",
            " ",
            "<think>",
            "</think>",
            "<thinking>",
            "</thinking>",
            "<plan>",
            "</plan>",
            "</weeks>",
            "</",
            ">",
            "<thi",
            "nk>",
            "<",
            "```",
            "~~~",
            "#",
            "**",
            "_",
            "- ",
            "1.",
            "42",
            "-7",
            "计划",
            "é",
            "N/A",
            "---",
            "\u{3000}",
            "High",
            "Schedule:",
        ]),
        0..60,
    );
    let strategy = (
        soup,
        prop::collection::vec(any::<prop::sample::Index>(), 0..30),
    );
    runner
        .run(&strategy, |(pieces, picks)| {
            let raw = pieces.concat();
            let reference = check(&raw, &[])?;
            let reported = check(&raw, &cuts(&raw, &picks))?;
            prop_assert_eq!(settled(&reported), settled(&reference));
            Ok(())
        })
        .unwrap();
}

/// One example spelled out: a section is reported the moment the next
/// header line ends, even when every chunk is one character.
#[test]
fn sections_are_reported_as_soon_as_the_next_header_line_ends() {
    let raw = "<think>plan first</think>\r\n[Plan]\r\n- a\r\n[Weeks]\r\n3\r\n[Priority]: High\r\n";
    let mut stream = SectionStream::<Report>::new();
    let mut seen = Vec::new();
    for (at, c) in raw.char_indices() {
        for event in stream.push(&c.to_string()) {
            if let StreamEvent::Closed(section) = event {
                seen.push((at, section.header, stream.content(&section).to_owned()));
            }
        }
    }
    for event in stream.finish() {
        if let StreamEvent::Closed(section) = event {
            seen.push((
                raw.len(),
                section.header,
                stream.content(&section).to_owned(),
            ));
        }
    }
    let at = |s: &str| raw.find(s).unwrap();
    assert_eq!(
        seen,
        [
            (at("[Weeks]") + 8, "[Plan]", "- a".to_owned()),
            (at("High") + 5, "[Weeks]", "3".to_owned()),
            (raw.len(), "[Priority]", "High".to_owned()),
        ]
    );
}
