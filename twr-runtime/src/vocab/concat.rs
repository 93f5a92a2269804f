//! A derived type's specs and ways as constants: each flattened type's
//! joined to the type's own where they lie (`concat_specs`,
//! `concat_ways`), evaluated by the compiler.

use super::{SectionSpec, ValueKind, WaysSpec};

/// The specs of a derived type: `parts` one after another. `N` is their
/// total length, which the derive computes as a constant.
pub const fn concat_specs<const N: usize>(parts: &[&[SectionSpec]]) -> [SectionSpec; N] {
    let mut out = [SectionSpec::new("", "", "", ValueKind::Text); N];
    let mut at = 0;
    let mut part = 0;
    while part < parts.len() {
        let mut i = 0;
        while i < parts[part].len() {
            out[at] = parts[part][i];
            at += 1;
            i += 1;
        }
        part += 1;
    }
    assert!(
        at == N,
        "twr: the derive computed a wrong number of sections"
    );
    out
}

/// The ways of a derived type: those of each part of its specs, each
/// part given as its number of sections and its ways (positions within
/// the part), shifted to where the part lies. `N` is their total number.
pub const fn concat_ways<const N: usize>(parts: &[(usize, &[WaysSpec])]) -> [WaysSpec; N] {
    let mut out = [WaysSpec::new("", 0, &[]); N];
    let mut at = 0;
    let mut offset = 0;
    let mut part = 0;
    while part < parts.len() {
        let (len, ways) = parts[part];
        let mut i = 0;
        while i < ways.len() {
            out[at] = ways[i].shifted(offset);
            at += 1;
            i += 1;
        }
        offset += len;
        part += 1;
    }
    assert!(at == N, "twr: the derive computed a wrong number of ways");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::WaySpec;

    static SPECS: [SectionSpec; 2] = [
        SectionSpec::new("name", "[Name]", "Name", ValueKind::Text),
        SectionSpec::new("email", "[Email]", "Email", ValueKind::Text).with_aliases(&["Mail"]),
    ];

    #[test]
    fn ways_shift_to_where_their_part_lies() {
        static INNER: [WaysSpec; 1] = [WaysSpec::new("Step", 1, &[WaySpec::new("A", 2)])];
        let ways = concat_ways::<2>(&[(3, &INNER), (1, &[]), (2, &INNER)]);
        assert_eq!(ways[0].start, 1);
        assert_eq!(ways[1].start, 3 + 1 + 1);
        let specs = concat_specs::<4>(&[&SPECS, &SPECS[..1], &SPECS[1..]]);
        let fields: Vec<&str> = specs.iter().map(|spec| spec.field).collect();
        assert_eq!(fields, ["name", "email", "name", "email"]);
    }
}
