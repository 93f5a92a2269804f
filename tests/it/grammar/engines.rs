//! Every rendering of every grammar of the corpus, checked by the engines
//! that run them (`scripts/grammar-check.py`): GBNF by llama.cpp's own
//! grammar parser, Lark by llguidance, JSON schemas by the JSON-Schema
//! metaschema and OpenAI's strict-mode rules, sampled replies fed token by
//! token to llama.cpp and llguidance, and replies drawn from each schema
//! validated against it. Needs the venv of `scripts/local-llm.sh` with llguidance
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
        })
    );
    eprintln!("engines: {counts}");
}
