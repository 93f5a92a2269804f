//! The check of the crate docs' layer list (`lib.rs`, "Layers"): every
//! path in the source that leaves its top-level module names a module of a
//! lower layer than its own. Such a path is written `crate::x`, through a
//! name `crate` was imported as (`use crate as twr;`, then `twr::x`), or
//! with as many `super::` as climb out of the module (`super::x` in a
//! top-level file, `super::super::x` one module down); each counts as the
//! `crate::` path it stands for. A crate-root name counts as the module it
//! is re-exported from.
//!
//! Written by hand over the source text: the rule is about this crate's
//! own paths, which a small reader of Rust's lexical shapes (comments,
//! strings, characters, attributes, braces) finds in one pass per file;
//! a full parser (`syn`) would add a dependency for no better answer.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The crate's `src` directory.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layers of the crate docs, from the leaves up: each top-level
/// module with the number of its line.
fn declared_layers(lib: &str) -> BTreeMap<String, usize> {
    let mut layers = BTreeMap::new();
    let mut inside = false;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            continue;
        };
        let doc = doc.trim();
        if doc.starts_with("## ") {
            inside = doc == "## Layers";
            continue;
        }
        if !inside {
            continue;
        }
        let Some((number, rest)) = doc.split_once(". ") else {
            continue;
        };
        let Ok(number) = number.parse::<usize>() else {
            continue;
        };
        // The names are the backticked words before the line's first ": ".
        let names = rest.split_once(": ").map_or(rest, |(names, _)| names);
        for name in names.split(',') {
            let name = name.trim().trim_matches('`');
            assert!(!name.is_empty(), "an empty name on layer {number}: {line}");
            let earlier = layers.insert(name.to_owned(), number);
            assert_eq!(earlier, None, "`{name}` is on two lines of the layer list");
        }
    }
    layers
}

/// `source` with its comments, strings and characters blanked to spaces
/// (line breaks kept), so that only code is left to read.
fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    // Copies `from..to` as spaces, keeping the line breaks.
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        out.extend(
            bytes[from..to]
                .iter()
                .map(|&b| if b == b'\n' { b'\n' } else { b' ' }),
        );
    };
    while i < bytes.len() {
        let rest = &bytes[i..];
        let start = i;
        if rest.starts_with(b"//") {
            i += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            blank(&mut out, start, i);
        } else if rest.starts_with(b"/*") {
            // Block comments nest.
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if bytes[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            blank(&mut out, start, i);
        } else if let Some(hashes) = raw_string_at(bytes, i) {
            // r"..", r#".."#, br#".."#: up to the quote and as many `#`s.
            let open = i + bytes[i..].iter().position(|&b| b == b'"').unwrap() + 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            i = open
                + bytes[open..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(bytes.len() - open, |at| at + close.len());
            blank(&mut out, start, i);
        } else if rest[0] == b'"' || (rest.starts_with(b"b\"") && !is_ident_byte(before(bytes, i)))
        {
            i += if rest[0] == b'"' { 1 } else { 2 };
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
            blank(&mut out, start, i);
        } else if rest[0] == b'\'' {
            // A character ('a', '\n', '\u{7f}', '"') or a lifetime ('a).
            match char_literal_len(&rest[1..]) {
                Some(len) => {
                    i += 1 + len;
                    blank(&mut out, start, i);
                }
                None => {
                    out.push(b'\'');
                    i += 1;
                }
            }
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII was blanked")
}

fn before(bytes: &[u8], i: usize) -> u8 {
    if i == 0 {
        b' '
    } else {
        bytes[i - 1]
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The number of `#`s of a raw string starting at `i`, if one does.
fn raw_string_at(bytes: &[u8], i: usize) -> Option<usize> {
    if is_ident_byte(before(bytes, i)) {
        return None;
    }
    let mut j = i;
    if bytes.get(j) == Some(&b'b') {
        j += 1;
    }
    if bytes.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = bytes[j..].iter().take_while(|&&b| b == b'#').count();
    (bytes.get(j + hashes) == Some(&b'"')).then_some(hashes)
}

/// After a `'`: the length of a character literal's rest (to its closing
/// quote, included), or `None` for a lifetime.
fn char_literal_len(rest: &[u8]) -> Option<usize> {
    if rest.first() == Some(&b'\\') {
        let close = rest.iter().skip(2).position(|&b| b == b'\'')?;
        return Some(close + 3);
    }
    let first = std::str::from_utf8(&rest[..rest.len().min(4)])
        .or_else(|e| std::str::from_utf8(&rest[..e.valid_up_to()]))
        .ok()?
        .chars()
        .next()?;
    let len = first.len_utf8();
    (rest.get(len) == Some(&b'\'')).then_some(len + 1)
}

/// `code` without its `#[cfg(test)]` items, and the names of the modules
/// declared as test-only files (`#[cfg(test)] mod tests;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut kept = String::with_capacity(code.len());
    let mut test_files = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        let end_brace = item.find('{');
        let end_semi = item.find(';');
        let end = match (end_brace, end_semi) {
            (Some(brace), _) if end_semi.is_none_or(|semi| brace < semi) => {
                let mut depth = 0;
                let mut end = item.len();
                for (i, b) in item.bytes().enumerate().skip(brace) {
                    match b {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (_, Some(semi)) => {
                if let Some(name) = item[..semi].trim().strip_prefix("mod ") {
                    test_files.push(name.trim().to_owned());
                }
                semi + 1
            }
            (_, None) => item.len(),
        };
        rest = &item[end..];
    }
    kept.push_str(rest);
    (kept, test_files)
}

/// The top-level modules that the crate-root names of `lib` come from:
/// `Think` from `think`, for `pub use think::{Think, ...};` (names from
/// other crates, such as the derives, are not the crate's modules).
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let modules = declared_modules(lib);
    let code = code_only(lib);
    let mut names = BTreeMap::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("pub use ") {
        let statement = &rest[at + "pub use ".len()..];
        let end = statement.find(';').unwrap_or(statement.len());
        let statement = &statement[..end];
        rest = &rest[at + end..];
        let module = statement.split("::").next().unwrap_or("").trim();
        if !modules.iter().any(|declared| declared == module) {
            continue;
        }
        let last = match statement.find('{') {
            Some(open) => &statement[open + 1..],
            None => statement.rsplit("::").next().unwrap_or(""),
        };
        for name in last.split([',', '}']) {
            let name = name.trim();
            let name = name.rsplit(" as ").next().unwrap_or(name).trim();
            if !name.is_empty() {
                names.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    names
}

/// `code` of the module at `module` (its path below the crate root:
/// `["think", "focus"]`) with every path that climbs out of it or names the
/// crate by another name written as the `crate::` path it stands for:
/// `super::super::parse::X` in `think/stream/events.rs` is
/// `crate::think::parse::X`, `twr::parse` after `use crate as twr;` is
/// `crate::parse`. A `super::` inside an inline `mod name { .. }` climbs
/// from that module.
fn as_crate_paths(code: &str, module: &[String]) -> String {
    let aliases = crate_aliases(code);
    let bytes = code.as_bytes();
    let mut out = String::with_capacity(code.len());
    // The inline modules open at this point, and for every open brace how
    // many were open inside it.
    let mut inline: Vec<String> = Vec::new();
    let mut braces: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_path = i == 0 || !(is_ident_byte(bytes[i - 1]) || bytes[i - 1] == b':');
        if starts_path && code[i..].starts_with("super::") {
            let mut climbs = 0;
            while code[i..].starts_with("super::") {
                climbs += 1;
                i += "super::".len();
            }
            let mut path: Vec<&str> = module.iter().map(String::as_str).collect();
            path.extend(inline.iter().map(String::as_str));
            let kept = path.len().saturating_sub(climbs);
            out.push_str("crate::");
            for segment in &path[..kept] {
                out.push_str(segment);
                out.push_str("::");
            }
            continue;
        }
        if starts_path {
            let len = bytes[i..].iter().take_while(|&&b| is_ident_byte(b)).count();
            let word = &code[i..i + len];
            if len > 0
                && aliases.iter().any(|alias| alias == word)
                && code[i + len..].starts_with("::")
            {
                out.push_str("crate::");
                i += len + 2;
                continue;
            }
        }
        match bytes[i] {
            b'{' => {
                if let Some(name) = inline_module_before(&code[..i]) {
                    inline.push(name);
                }
                braces.push(inline.len());
            }
            b'}' => {
                braces.pop();
                inline.truncate(braces.last().copied().unwrap_or(0));
            }
            _ => {}
        }
        let len = code[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&code[i..i + len]);
        i += len;
    }
    out
}

/// The names `code` imports the crate itself as: `use crate as twr;`,
/// `use crate::{self as twr};`, `extern crate self as twr;`.
fn crate_aliases(code: &str) -> Vec<String> {
    let mut aliases = Vec::new();
    for pattern in ["crate as ", "self as "] {
        let mut from = 0;
        while let Some(at) = code[from..].find(pattern) {
            let at = from + at;
            from = at + pattern.len();
            if at > 0 && is_ident_byte(code.as_bytes()[at - 1]) {
                continue;
            }
            // `self as` only within `crate::{..}` or after `extern crate`.
            if pattern == "self as " {
                let before = code[..at].trim_end();
                let in_group = before.ends_with('{')
                    && code[..at]
                        .rfind("crate::{")
                        .is_some_and(|open| !code[open..at].contains('}'));
                if !in_group && !before.ends_with("extern crate") {
                    continue;
                }
            }
            let rest = code[from..].trim_start();
            let len = rest.bytes().take_while(|&b| is_ident_byte(b)).count();
            if len > 0 && &rest[..len] != "_" {
                aliases.push(rest[..len].to_owned());
            }
        }
    }
    aliases
}

/// The name of the inline module whose body the `{` after `code` opens:
/// `code` ends in `mod name` (with white space around).
fn inline_module_before(code: &str) -> Option<String> {
    let code = code.trim_end();
    let len = code.bytes().rev().take_while(|&b| is_ident_byte(b)).count();
    let name = &code[code.len() - len..];
    let before = code[..code.len() - len].trim_end();
    let is_mod = before.ends_with("mod")
        && before.len() > 3
        && !is_ident_byte(before.as_bytes()[before.len() - 4]);
    (len > 0 && (is_mod || before == "mod")).then(|| name.to_owned())
}

/// The top-level modules that `code` names by `crate::` paths (a crate-root
/// name counts as the module it comes from): each with the path as written.
fn named_modules(code: &str, roots: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let mut named = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let at = from + at;
        from = at + "crate::".len();
        // `$crate::` is this crate too; `my_crate::` is not.
        if at > 0 && is_ident_byte(bytes[at - 1]) {
            continue;
        }
        let rest = &code[from..];
        let firsts: Vec<&str> = match rest.strip_prefix('{') {
            // `crate::{a::X, b}`: the first segment of each part.
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                group
                    .split(',')
                    .map(|part| part.trim().split("::").next().unwrap_or("").trim())
                    .collect()
            }
            None => {
                let len = rest.bytes().take_while(|&b| is_ident_byte(b)).count();
                vec![&rest[..len]]
            }
        };
        for first in firsts.into_iter().filter(|first| !first.is_empty()) {
            let module = roots.get(first).map_or(first, String::as_str);
            named.push((module.to_owned(), format!("crate::{first}")));
        }
    }
    named
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("src is readable").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The modules lib.rs declares (`mod x;`, `pub mod x;`).
fn declared_modules(lib: &str) -> Vec<String> {
    let code = code_only(lib);
    let (code, _) = without_tests(&code);
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = line
                .strip_prefix("pub ")
                .or_else(|| line.strip_prefix("pub(crate) "))
                .unwrap_or(line);
            let name = line.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect()
}

/// Every import of a module on a layer not below the importer's, as
/// `file: path (module on layer n) ...` lines.
fn violations(src: &Path) -> Vec<String> {
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs is readable");
    let layers = declared_layers(&lib);
    let roots = root_names(&lib);
    let mut found = Vec::new();
    for module in declared_modules(&lib) {
        if !layers.contains_key(&module) {
            found.push(format!(
                "module `{module}` is on no line of the layer list in lib.rs"
            ));
        }
    }
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    // Files that only hold tests: `#[cfg(test)] mod tests;` of their parent.
    let mut test_files = Vec::new();
    let mut sources = Vec::new();
    for path in files {
        let relative = path.strip_prefix(src).expect("under src").to_path_buf();
        let (code, tests) = without_tests(&code_only(&fs::read_to_string(&path).unwrap()));
        let dir = match relative.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs") => relative.parent().unwrap().to_path_buf(),
            _ => relative.with_extension(""),
        };
        for test in tests {
            test_files.push(dir.join(format!("{test}.rs")));
            test_files.push(dir.join(test).join("mod.rs"));
        }
        sources.push((relative, code));
    }
    for (relative, code) in sources {
        if relative == Path::new("lib.rs") || test_files.contains(&relative) {
            continue;
        }
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_str().unwrap().trim_end_matches(".rs").to_owned();
        let Some(&layer) = layers.get(&module) else {
            found.push(format!(
                "{}: module `{module}` is on no line of the layer list in lib.rs",
                relative.display()
            ));
            continue;
        };
        let path: Vec<String> = relative
            .with_extension("")
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .filter(|part| part != "mod")
            .collect();
        let code = as_crate_paths(&code, &path);
        for (named, path) in named_modules(&code, &roots) {
            if named == module {
                continue;
            }
            match layers.get(&named) {
                Some(&other) if other < layer => {}
                Some(&other) => found.push(format!(
                    "{}: `{module}` (layer {layer}) names {path} (`{named}`, layer {other})",
                    relative.display()
                )),
                None => found.push(format!(
                    "{}: {path} names `{named}`, which is on no line of the layer list",
                    relative.display()
                )),
            }
        }
    }
    found
}

#[test]
fn every_module_imports_only_layers_below_its_own() {
    let found = violations(&src());
    assert!(
        found.is_empty(),
        "imports against the layers of lib.rs:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_layer_list_names_every_module_once() {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let layers = declared_layers(&lib);
    let mut declared = declared_modules(&lib);
    declared.sort();
    let mut listed: Vec<String> = layers.keys().cloned().collect();
    listed.sort();
    assert_eq!(listed, declared);
    assert_eq!(layers["vocab"], 1);
    assert!(layers["vocab"] < layers["parse"] && layers["parse"] < layers["think"]);
}

/// The reader sees paths in code only, and every path there.
#[test]
fn only_code_paths_count() {
    let source = r##"
//! [`Think`](crate::Think) in a doc comment
/* crate::think in /* a nested */ block */
use crate::feedback::Feedback;
use crate::{json::Report, prompt};
const S: &str = "crate::think in a string";
const R: &str = r#"crate::think in a "raw" string"#;
const C: char = '"';
fn f<'a>(x: &'a str) -> &'a str { let _ = crate::Think::new; x }
#[cfg(test)]
mod tests {
    use crate::think::Think;
    fn g() { let _ = "}"; }
}
fn h() { crate::parse::split_sections("", &[]); }
#[cfg(test)]
mod more;
"##;
    let roots = BTreeMap::from([("Think".to_owned(), "think".to_owned())]);
    let (code, test_files) = without_tests(&code_only(source));
    let named: Vec<String> = named_modules(&code, &roots)
        .into_iter()
        .map(|(module, _)| module)
        .collect();
    assert_eq!(named, ["feedback", "json", "prompt", "think", "parse"]);
    assert_eq!(test_files, ["more"]);
}

/// An import from a lower layer to a higher one is found, with its file.
#[test]
fn an_upward_import_is_reported() {
    let dir = std::env::temp_dir().join(format!("twr-layers-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("low")).unwrap();
    fs::write(
        dir.join("lib.rs"),
        "//! ## Layers\n//!\n//! 1. `low`: below\n//! 2. `high`: above\n//!\n//! ## Next\nmod low;\nmod high;\npub use high::Top;\n",
    )
    .unwrap();
    fs::write(dir.join("low/mod.rs"), "use crate::Top;\n").unwrap();
    fs::write(dir.join("high.rs"), "use crate::low::X;\npub struct Top;\n").unwrap();
    let found = violations(&dir);
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        ["low/mod.rs: `low` (layer 1) names crate::Top (`high`, layer 2)"]
    );
}

/// Paths that climb out of a module with `super::`, and the crate under
/// another name, count as the `crate::` paths they stand for.
#[test]
fn super_paths_and_crate_aliases_count() {
    let module = ["think".to_owned(), "stream".to_owned(), "events".to_owned()];
    let code = code_only(
        "use super::super::focus::X;\nuse super::super::super::parse::Y;\nuse crate as twr;\nfn f() { twr::json::extract_value(\"\"); my_twr::x(); }\nmod inner { use super::super::super::prompt::Z; }\n",
    );
    let rewritten = as_crate_paths(&code, &module);
    let named: Vec<String> = named_modules(&rewritten, &BTreeMap::new())
        .into_iter()
        .map(|(module, _)| module)
        .collect();
    // `inner` is one module further down: three `super::` leave it at `think`.
    assert_eq!(named, ["think", "parse", "json", "think"]);
    assert_eq!(crate_aliases("use crate::{self as twr, parse};"), ["twr"]);
    assert_eq!(crate_aliases("extern crate self as twr;"), ["twr"]);
    assert_eq!(
        crate_aliases("use std::io::{self as io};"),
        Vec::<String>::new()
    );
}

/// An upward import written with `super::` or through `use crate as x` is
/// found as well as one written `crate::`.
#[test]
fn an_upward_import_by_super_or_alias_is_reported() {
    let dir = std::env::temp_dir().join(format!("twr-layers-super-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("low/deep")).unwrap();
    fs::write(
        dir.join("lib.rs"),
        "//! ## Layers\n//!\n//! 1. `low`: below\n//! 2. `high`: above\n//!\n//! ## Next\nmod low;\nmod high;\n",
    )
    .unwrap();
    fs::write(dir.join("low/mod.rs"), "mod deep;\nuse super::high::A;\n").unwrap();
    fs::write(dir.join("low/deep/mod.rs"), "use super::super::high::B;\n").unwrap();
    fs::write(
        dir.join("low/other.rs"),
        "use crate as twr;\nuse twr::high::C;\n",
    )
    .unwrap();
    fs::write(dir.join("high.rs"), "use super::low::X;\npub struct A;\n").unwrap();
    let found = violations(&dir);
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [
            "low/deep/mod.rs: `low` (layer 1) names crate::high (`high`, layer 2)",
            "low/mod.rs: `low` (layer 1) names crate::high (`high`, layer 2)",
            "low/other.rs: `low` (layer 1) names crate::high (`high`, layer 2)",
        ]
    );
}
