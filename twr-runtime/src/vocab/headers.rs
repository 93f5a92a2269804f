//! The derive's check that a flattened type's headers differ from the
//! flattening type's own, run by the compiler as a constant's evaluation
//! (`check_headers`): the derive sees its own fields' names, but a
//! flattened type's only as a path, known to the compiler alone.

use super::SectionSpec;

/// One group of names whose headers must differ from every other group's:
/// a field's header and aliases, or a flattened type's sections.
pub enum Names<'a> {
    /// Names written in the deriving type: who owns them (`field
    /// `refund``) and the names, without brackets.
    Own(&'a str, &'a [&'a str]),
    /// A flattened type's sections: who they come from and their specs.
    Flattened(&'a str, &'a [SectionSpec]),
}

/// Fails compilation (as a constant's evaluation) when the first group
/// shares a header or alias with any other, compared as the parser compares
/// them (ASCII case and runs of white space ignored), with a message naming
/// the header and both owners. The derive checks its own fields' names when
/// it runs; the names of a flattened type (the first group) are known only
/// to the compiler, hence this.
pub const fn check_headers(groups: &[Names<'_>]) {
    let Some((first, others)) = groups.split_first() else {
        return;
    };
    let mut i = 0;
    while i < names_len(first) {
        let name = name_at(first, i);
        let mut other = 0;
        while other < others.len() {
            if has_name(&others[other], name) {
                shared_header(name, owner(first), owner(&others[other]));
            }
            other += 1;
        }
        i += 1;
    }
}

const fn owner<'a>(group: &Names<'a>) -> &'a str {
    match group {
        Names::Own(owner, _) | Names::Flattened(owner, _) => owner,
    }
}

/// How many names the group has: every section's name and aliases.
const fn names_len(group: &Names<'_>) -> usize {
    match group {
        Names::Own(_, names) => names.len(),
        Names::Flattened(_, specs) => {
            let mut count = 0;
            let mut i = 0;
            while i < specs.len() {
                count += 1 + specs[i].aliases.len();
                i += 1;
            }
            count
        }
    }
}

/// The `index`-th name of the group, in the order [`names_len`] counts.
const fn name_at<'a>(group: &Names<'a>, mut index: usize) -> &'a str {
    match group {
        Names::Own(_, names) => names[index],
        Names::Flattened(_, specs) => {
            let mut i = 0;
            while i < specs.len() {
                if index == 0 {
                    return specs[i].name;
                }
                index -= 1;
                if index < specs[i].aliases.len() {
                    return specs[i].aliases[index];
                }
                index -= specs[i].aliases.len();
                i += 1;
            }
            ""
        }
    }
}

const fn has_name(group: &Names<'_>, name: &str) -> bool {
    let mut i = 0;
    while i < names_len(group) {
        if same_name(name_at(group, i), name) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether two names are one for the parser: ASCII case and runs of white
/// space ignored, surrounding white space too.
const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_ascii().as_bytes(), b.trim_ascii().as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.is_ascii_whitespace() && y.is_ascii_whitespace() {
            i = skip_space(a, i);
            j = skip_space(b, j);
            continue;
        }
        if !x.eq_ignore_ascii_case(&y) {
            return false;
        }
        i += 1;
        j += 1;
    }
    i == a.len() && j == b.len()
}

const fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && bytes[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// Stops compilation with "the header `[Name]` of field `a` is also a
/// header of the flattened `Customer` (field `customer`)".
const fn shared_header(name: &str, first: &str, second: &str) {
    const CAP: usize = 400;
    let mut buffer = [0u8; CAP];
    let mut len = 0;
    let pieces = [
        "the header `[",
        name,
        "]` of ",
        first,
        " is also a header of ",
        second,
        "; headers are matched ignoring case, so give one of them another header",
    ];
    let mut p = 0;
    while p < pieces.len() {
        // Whole pieces only, so no character is cut in two.
        let bytes = pieces[p].as_bytes();
        if len + bytes.len() <= CAP {
            let mut i = 0;
            while i < bytes.len() {
                buffer[len] = bytes[i];
                len += 1;
                i += 1;
            }
        }
        p += 1;
    }
    let (message, _) = buffer.split_at(len);
    match core::str::from_utf8(message) {
        Ok(message) => panic!("{}", message),
        Err(_) => panic!("two sections share a header"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::ValueKind;

    #[test]
    fn names_compare_as_the_parser_compares_headers() {
        assert!(same_name("Research Plan", "research  plan"));
        assert!(same_name(" Plan ", "PLAN"));
        assert!(!same_name("Plan", "Plans"));
        assert!(!same_name("Plan A", "PlanA"));
        assert!(!same_name("Plan ", "Plan A"));
        assert!(same_name("计划", "计划"));
    }

    static SPECS: [SectionSpec; 2] = [
        SectionSpec::new("name", "[Name]", "Name", ValueKind::Text),
        SectionSpec::new("email", "[Email]", "Email", ValueKind::Text).with_aliases(&["Mail"]),
    ];

    #[test]
    fn distinct_headers_pass_and_a_shared_alias_is_named() {
        check_headers(&[
            Names::Flattened("the flattened `Customer`", &SPECS),
            Names::Own("field `summary`", &["Summary", "Gist"]),
        ]);
        let shared = std::panic::catch_unwind(|| {
            check_headers(&[
                Names::Flattened("the flattened `Customer`", &SPECS),
                Names::Own("field `summary`", &["Summary"]),
                Names::Own("field `contact`", &["Contact", "mail"]),
            ]);
        })
        .unwrap_err();
        assert_eq!(
            shared.downcast_ref::<String>().map(String::as_str),
            Some("the header `[Mail]` of the flattened `Customer` is also a header of field `contact`; headers are matched ignoring case, so give one of them another header")
        );
    }
}
