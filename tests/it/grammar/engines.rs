//! Every rendering of every grammar of the corpus, checked by the engines
//! that run them (`scripts/grammar-check.py`): GBNF by llama.cpp's own
//! grammar parser, Lark by llguidance, JSON schemas by the JSON-Schema
//! metaschema and OpenAI's strict-mode rules, sampled replies fed token by
//! token to llama.cpp and llguidance, and replies drawn from each schema
//! validated against it, and pairs of replies that differ in one place,
//! the first accepted and the second refused (a zero-width character
//! hiding a header, a number its type does not hold). Needs the venv of `scripts/local-llm.sh` with llguidance
//! and jsonschema; without it the test says so and passes, unless
//! `TWR_GRAMMAR_ENGINES=required` (as `.ci/run` sets).

use std::path::PathBuf;
use std::process::Command;

use super::corpus;

/// Replies sampled per grammar and fed to both engines.
const SAMPLES: u64 = 12;

/// The python of the local-llm venv, when it exists.
fn python() -> Option<PathBuf> {
    let home = std::env::var_os("TWR_LLM_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/twr-llm")))?;
    let python = home.join("venv/bin/python");
    python.exists().then_some(python)
}

#[test]
fn the_engines_accept_every_rendering_and_every_sample() {
    let required = std::env::var("TWR_GRAMMAR_ENGINES").is_ok_and(|v| v == "required");
    let Some(python) = python() else {
        assert!(
            !required,
            "TWR_GRAMMAR_ENGINES=required, but there is no local-llm venv"
        );
        eprintln!(
            "skipped: no venv of scripts/local-llm.sh (run `bash scripts/local-llm.sh install`)"
        );
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("grammars");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let grammars = corpus::grammars();
    for (name, grammar) in &grammars {
        std::fs::write(dir.join(format!("{name}.gbnf")), grammar.gbnf()).unwrap();
        std::fs::write(dir.join(format!("{name}.lark")), grammar.lark()).unwrap();
        let schema = grammar.json_schema();
        std::fs::write(
            dir.join(format!("{name}.schema.json")),
            serde_json::to_string_pretty(&schema).unwrap(),
        )
        .unwrap();
        let mut rng = fastrand::Rng::with_seed(11);
        let instances: Vec<serde_json::Value> = (0..SAMPLES)
            .map(|_| super::json::instance(&schema, "", &mut rng))
            .collect();
        std::fs::write(
            dir.join(format!("{name}.instances.json")),
            serde_json::to_string(&instances).unwrap(),
        )
        .unwrap();
        let samples: Vec<String> = (0..SAMPLES).map(|seed| grammar.sample(seed)).collect();
        std::fs::write(
            dir.join(format!("{name}.samples.json")),
            serde_json::to_string(&samples).unwrap(),
        )
        .unwrap();
    }
    let contrasts = contrasts(&grammars);
    for (name, pairs) in &contrasts {
        std::fs::write(
            dir.join(format!("{name}.contrasts.json")),
            serde_json::to_string(pairs).unwrap(),
        )
        .unwrap();
    }
    let contrasted: u64 = contrasts.iter().map(|(_, pairs)| pairs.len() as u64).sum();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/grammar-check.py");
    let output = Command::new(&python)
        .arg(script)
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(2) && !required {
        eprintln!("skipped: the engines are not all installed: {stderr}");
        return;
    }
    assert!(output.status.success(), "the engines refused:\n{stderr}");
    let counts: serde_json::Value = serde_json::from_slice(output.stdout.trim_ascii()).unwrap();
    let n = grammars.len() as u64;
    assert_eq!(
        counts,
        serde_json::json!({
            "gbnf": n,
            "lark": n,
            "json_schema": n,
            "samples_llama_cpp": n * SAMPLES,
            "samples_llguidance": n * SAMPLES,
            "instances_jsonschema": n * SAMPLES,
            "contrasts_llama_cpp": contrasted,
            "contrasts_llguidance": contrasted,
        })
    );
    eprintln!("engines: {counts}");
}

/// `reply` with the line after `header`'s line, or everything after it
/// when `to_end`, replaced by `value`.
fn with_value(reply: &str, header: &str, value: &str, to_end: bool) -> String {
    let at = reply
        .find(&format!("{header}\n"))
        .unwrap_or_else(|| panic!("no {header} in {reply:?}"))
        + header.len()
        + 1;
    let end = if to_end {
        reply.len()
    } else {
        at + reply[at..].find('\n').unwrap()
    };
    format!("{}{value}{}", &reply[..at], &reply[end..])
}

/// Pairs of replies for corpus grammars, the first accepted and the
/// second refused, built on a sample so that they differ in one place.
fn contrasts(
    grammars: &[(String, twr_runtime::grammar::Grammar)],
) -> Vec<(String, Vec<(String, String)>)> {
    let sample = |name: &str| {
        let (_, grammar) = grammars.iter().find(|(n, _)| n == name).unwrap();
        grammar.sample(3)
    };
    let plain = sample("scalars-plain");
    let plan = |text: &str| with_value(&plain, "[Research Plan]", text, true);
    let bounded = sample("bounded");
    let score = |text: &str| with_value(&bounded, "[Score]", text, false);
    let tilt = |text: &str| with_value(&bounded, "[Tilt]", text, false);
    vec![
        (
            "scalars-plain".to_owned(),
            vec![
                // A zero-width character between a section's name and its
                // colon would hide the header `Days:` from the grammar.
                (
                    plan("See the temples.\n"),
                    plan("See the temples.\nDays\u{200B}: 4\n"),
                ),
                (
                    plan("See the temples.\n"),
                    plan("See the\u{200B} temples.\n"),
                ),
                (
                    plan("See the temples.\n"),
                    plan("See the temples.\nDays\u{2060}\n"),
                ),
            ],
        ),
        (
            "bounded".to_owned(),
            vec![
                (score("255"), score("256")),
                (score("7"), score("123456789")),
                (tilt("-32768"), tilt("-32769")),
                (tilt("32767"), tilt("40000")),
            ],
        ),
    ]
}
