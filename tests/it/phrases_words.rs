//! Values read in the user's language: the words the parser reads by
//! meaning (a `bool`'s yes and no, an `Option`'s none) come from the same
//! phrase table that words the guide.

use std::collections::BTreeMap;

use serde::Deserialize;
use twr_runtime::parse::SectionValue;
use twr_runtime::phrases::Phrases;
use twr_runtime::{ScriptedModel, Sections, Think};

static FRANCAIS: Phrases = Phrases {
    yes_no: "oui ou non",
    and: " et ",
    or: " ou ",
    yes_words: &["oui", "vrai"],
    no_words: &["non", "faux"],
    none_words: &["aucun", "aucune", "n/a"],
    ..Phrases::ENGLISH
};

#[derive(Debug, PartialEq, Deserialize)]
struct Etape {
    ville: String,
    reservee: bool,
    note: Option<String>,
}

#[derive(Debug, PartialEq, Sections)]
#[sections(phrases = FRANCAIS)]
struct Voyage {
    /// L'hôtel est-il réservé ?
    reserve: bool,
    /// Une remarque, s'il y en a une.
    remarque: Option<String>,
    /// Chaque jour : pluie prévue ?
    pluie: Vec<bool>,
    /// Par ville : visitée ?
    visites: BTreeMap<String, bool>,
    #[section(table)]
    etapes: Vec<Etape>,
}

const REPLY: &str = "[Reserve]\nNon, pas encore.\n\
    [Remarque]\n**Aucune.**\n\
    [Pluie]\n- oui\n- NON\n- Vrai\n\
    [Visites]\nLyon: oui\nNice: non\n\
    [Etapes]\n| ville | reservee | note |\n|---|---|---|\n| Lyon | oui | aucun |\n| Nice | faux | vue sur mer |";

#[test]
fn a_french_table_reads_french_answers() {
    let voyage = Voyage::parse_sections(REPLY).unwrap();
    assert_eq!(
        voyage,
        Voyage {
            reserve: false,
            remarque: None,
            pluie: vec![true, false, true],
            visites: BTreeMap::from([("Lyon".into(), true), ("Nice".into(), false)]),
            etapes: vec![
                Etape {
                    ville: "Lyon".into(),
                    reservee: true,
                    note: None
                },
                Etape {
                    ville: "Nice".into(),
                    reservee: false,
                    note: Some("vue sur mer".into())
                },
            ],
        }
    );
}

#[tokio::test]
async fn a_bool_answered_non_is_read_on_the_first_attempt() {
    let reply = REPLY.replace("Non, pas encore.", "non");
    let model = ScriptedModel::new([reply]);
    let outcome = Think::new(&model)
        .max_attempts(1)
        .run::<Voyage>("Où en est le voyage ?")
        .await
        .unwrap();
    assert!(!outcome.value.reserve);
    assert_eq!(outcome.attempts.len(), 1);
}

#[test]
fn a_table_accepts_its_own_words_only() {
    // English answers are not the French table's: they get feedback in
    // the table's words, which name what to write.
    let feedback = Voyage::parse_sections(&REPLY.replace("Non, pas encore.", "No")).unwrap_err();
    assert!(
        feedback
            .to_string()
            .starts_with("The [Reserve] section should be oui ou non; it says 'No'."),
        "{feedback}"
    );
    // "None" is no French none word: the remark is that text.
    let voyage = Voyage::parse_sections(&REPLY.replace("**Aucune.**", "None")).unwrap();
    assert_eq!(voyage.remarque.as_deref(), Some("None"));
}

#[test]
fn two_answers_joined_by_the_tables_own_and_or_are_no_answer() {
    for answer in ["oui et non", "Non ou oui", "oui/non"] {
        assert_eq!(
            bool::parse_section_with(answer, &FRANCAIS).map_err(|e| e.to_string()),
            Err(format!("expected yes or no, found '{answer}'")),
            "{answer}"
        );
    }
    assert_eq!(
        bool::parse_section_with("Oui, et non loin", &FRANCAIS),
        Ok(true)
    );
}

#[test]
fn the_built_in_tables_read_both_languages_as_before() {
    for table in [&Phrases::ENGLISH, &Phrases::CHINESE] {
        for (text, answer) in [
            ("Yes, it fits.", true),
            ("FALSE", false),
            ("是因为便宜", true),
            ("不是，太远了", false),
        ] {
            assert_eq!(bool::parse_section_with(text, table), Ok(answer), "{text}");
        }
        for text in ["oui", "是不是", "对不起", "Yes/No", "Nothing"] {
            assert!(bool::parse_section_with(text, table).is_err(), "{text}");
        }
        assert_eq!(Vec::<u32>::parse_section_with("无", table), Ok(Vec::new()));
    }
}

#[test]
fn a_table_whose_word_is_both_yes_and_no_is_caught() {
    let broken = Phrases {
        yes_words: &["oui", "Si"],
        no_words: &["non", "si"],
        none_words: &["aucun", " "],
        ..Phrases::ENGLISH
    };
    assert_eq!(
        broken.check(),
        Err(vec![
            "none_words: an empty word".to_owned(),
            "yes_words and no_words: 'Si'".to_owned(),
            // Written for an optional section left out of a learned
            // demonstration, it would be read back as the section's text.
            "none_answer: 'N/A' is not one of none_words".to_owned(),
        ])
    );
    assert_eq!(FRANCAIS.check(), Ok(()));
}

/// German as the newcomer wrote it: "keine Angabe" is none, "sehr hoch" is
/// no plain "Hoch", and the English table reads "None given" as none.
static DEUTSCH: Phrases = Phrases {
    none_words: &["keine", "kein", "keine angabe", "nicht angegeben", "k. a."],
    degree_words: &["sehr", "ziemlich", "etwas", "zu", "kaum"],
    ..Phrases::ENGLISH
};

#[derive(Debug, PartialEq, twr_runtime::Choice)]
enum Stufe {
    Niedrig,
    Mittel,
    Hoch,
}

#[derive(Debug, PartialEq, Sections)]
#[sections(phrases = DEUTSCH)]
struct Meldung {
    dringlichkeit: Stufe,
    hinweis: Option<String>,
}

#[derive(Debug, PartialEq, Sections)]
struct Report {
    urgency: Stufe,
    note: Option<String>,
}

#[test]
fn keine_angabe_and_none_given_are_none_and_sehr_hoch_is_no_plain_hoch() {
    for none in [
        "keine Angabe",
        "**Keine Angabe.**",
        "k. A.",
        "nicht angegeben",
    ] {
        let reply = format!("[Dringlichkeit]\nHoch\n[Hinweis]\n{none}");
        assert_eq!(
            Meldung::parse_sections(&reply),
            Ok(Meldung {
                dringlichkeit: Stufe::Hoch,
                hinweis: None
            }),
            "{none}"
        );
    }
    let feedback =
        Meldung::parse_sections("[Dringlichkeit]\nsehr hoch\n[Hinweis]\nkeine Angabe").unwrap_err();
    let problems: Vec<&str> = feedback
        .problems()
        .iter()
        .map(|p| p.header.as_str())
        .collect();
    assert_eq!(problems, ["[Dringlichkeit]"], "{feedback}");
    assert!(feedback.to_string().contains("'sehr hoch'"), "{feedback}");
    // The English table: "None given" is none, "very high" no plain High.
    assert_eq!(
        Report::parse_sections("[Urgency]\nHoch\n[Note]\nNone given"),
        Ok(Report {
            urgency: Stufe::Hoch,
            note: None
        })
    );
    assert!(Report::parse_sections("[Urgency]\nvery hoch\n[Note]\nNone given").is_err());
    assert_eq!(
        Report::parse_sections("[Urgency]\nHoch\n[Note]\nNone of the above").map(|r| r.note),
        Ok(Some("None of the above".to_string()))
    );
}
