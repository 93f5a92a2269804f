//! Feedback in your own words: a complete phrase table in German, a third
//! language twr does not ship, used by a type with
//! `#[sections(phrases = DEUTSCH)]`.
//!
//! ```text
//! cargo run --example german
//! ```
//!
//! Every sentence twr writes for a model (the guide, each problem, the
//! retry requests, the focused questions) comes from this table. A
//! validator's own text is sent as written, and the ledger records exactly
//! what was sent. Offline, a `ScriptedModel` answers twice: first with the
//! days in words and no budget, then with the fixes.
//!
//! The words the parser reads by meaning come from the same table: the
//! `bool` is answered "Nein, noch nicht" and the `Option` "Keine.", and both
//! read as German says (`false` and `None`).
//!
//! This table sets every phrase, so it stops compiling when twr adds one (a
//! reminder to translate it). A table of your own that changes only some
//! phrases ends with `..Phrases::ENGLISH` instead, and new phrases come
//! from there.

use std::error::Error;

use twr_runtime::phrases::{NumberStyle, Phrases};
use twr_runtime::{ScriptedModel, Sections, Think};

/// German (Deutsch).
static DEUTSCH: Phrases = Phrases {
    stop: '.',
    sentence_gap: " ",
    comma: ", ",
    and: " und ",
    or: " oder ",

    some_text: "etwas Text",
    whole_number: "eine einzelne ganze Zahl",
    whole_number_between: "{whole_number} von {min} bis {max}",
    number: "eine einzelne Zahl",
    number_between: "{number} von {min} bis {max}",
    at_least: "{number} von mindestens {min}",
    at_most: "{number} von höchstens {max}",
    yes_no: "ja oder nein",
    one_character: "ein einzelnes Zeichen",
    one_of: "eines von: {values}",
    list: "eine Liste, ein Eintrag pro Zeile",
    each_item: "jeder Eintrag ist {what}",
    such_as: " wie {example}",
    table: "eine Tabelle mit einer Kopfzeile und einer Zeile pro Eintrag (Markdown-Tabelle, CSV oder TSV)",
    record: "eine Zeile pro Feld, geschrieben `Bezeichnung: Wert`",
    map: "eine Zeile pro Eintrag, geschrieben `Name: Wert`",
    map_key: "Name",

    its_content: "seinen Inhalt",
    the_json_value: "den JSON-Wert",
    its_value: "seinen Wert",

    free_text: "freier Text",
    a_json_value: "ein JSON-Wert",
    a_single_value: "ein einzelner Wert",
    slot: "<{what}>",
    item: "Eintrag",
    column: "Spalte",
    label: "Bezeichnung",
    value: "Wert",
    per_line: "pro Zeile",

    // The words the parser reads by meaning: a German answer is read as it
    // is asked for.
    yes_words: &["ja", "jawohl", "wahr", "stimmt"],
    no_words: &["nein", "falsch"],
    none_words: &[
        "keine",
        "keiner",
        "kein",
        "entfällt",
        "keine angabe",
        "nicht angegeben",
        "k. a.",
        "n/a",
    ],
    joining_words: &["und", "oder", "bzw"],
    // German writes 1.049,95: a number section reads it so.
    number_style: NumberStyle::COMMA,
    degree_words: &[
        "sehr", "ziemlich", "eher", "etwas", "zu", "äußerst", "besonders", "extrem", "leicht", "kaum",
    ],

    guide_intro: "Denke zuerst frei nach. Gib dann deine endgültige Antwort in den folgenden Abschnitten, jede Überschrift in einer eigenen Zeile, gefolgt von ihrem Inhalt.",
    guide_intro_xml: "Denke zuerst frei nach. Gib dann deine endgültige Antwort in den folgenden Abschnitten, jeden zwischen seinem Tag-Paar: das öffnende Tag, der Inhalt, dann das schließende Tag.",
    guide_optional: " (optional: schreibe „keine“, wenn es nicht zutrifft)",
    none_answer: "keine",
    guide_may_omit: " (optional)",
    guide_example: "Beispielantwort:",
    guide_begin: "Beginne deine endgültige Antwort nach dem Nachdenken mit {h} in einer eigenen Zeile.",
    guide_ways: "Antworte auf eine dieser Arten, nur mit den Abschnitten dieser Art:",
    guide_way: "Art {n} ({name}):",
    guide_example_way: "Beispielantwort auf Art {n} ({name}):",

    intro: "Danke. Einige Teile deiner Antwort müssen korrigiert werden:",
    for_example: "Zum Beispiel:",
    closing_one: "Bitte schreibe diesen Abschnitt noch einmal: die Überschrift in einer eigenen Zeile, gefolgt von ihrem Inhalt.",
    closing_many: "Bitte schreibe diese Abschnitte noch einmal: jede Überschrift in einer eigenen Zeile, gefolgt von ihrem Inhalt.",

    missing: "Der Abschnitt {h} fehlt. Bitte ergänze ihn: die Überschrift {h} in einer eigenen Zeile, dann {kind}.",
    empty: "Der Abschnitt {h} ist leer. Bitte schreibe {kind} unter seine Überschrift.",
    bad_value: "Der Abschnitt {h} sollte {expected} sein; dort steht '{found}'.",
    bad_item: "Eintrag {index} der Liste {h} sollte {expected} sein; dort steht '{item}'.",
    json_shape: "Der Abschnitt {h} sollte JSON in der erwarteten Form sein: {message}",
    json_at: "Das JSON im Abschnitt {h} ist bei `{path}` falsch: {message}",
    reply_json_shape: "Die Antwort sollte JSON in der erwarteten Form sein: {message}",
    reply_json_at: "Das JSON in der Antwort ist bei `{path}` falsch: {message}",
    unreadable: "Der Abschnitt {h} konnte nicht gelesen werden ({message}); dort steht '{found}'.",
    invalid: "Der Abschnitt {h} muss geändert werden: {message}",
    near_miss: "Du hast {wrote} geschrieben; nenne ihn {h}, in einer eigenen Zeile.",
    unread_header: "Du hast '{wrote}' für den Abschnitt {h} geschrieben, was nicht als seine Überschrift gelesen wird: schreibe {h} allein in eine eigene Zeile und den Inhalt darunter.",
    not_on_own_line: "Die Überschrift {h} muss in einer eigenen Zeile stehen; sie steht in der Zeile '{line}'.",
    none_of: "Keiner der Abschnitte {headers} ist in deiner Antwort. Bitte gib mindestens einen davon an, jede Überschrift in einer eigenen Zeile.",
    no_way: "Deine Antwort hat keinen der Abschnitte von {enum_name}. Wähle eine Art und schreibe ihre Abschnitte: {ways}.",
    mixed_ways: "Deine Antwort mischt die Arten von {enum_name}: sie hat Abschnitte von {found}. Wähle eine Art und schreibe nur ihre Abschnitte: {ways}.",
    way_headers: "{name} ({headers})",
    missing_divider: "Bitte schreibe deine endgültige Antwort nach einer Zeile aus fünf oder mehr Gleichheitszeichen (=====) oder zwischen zwei solche Zeilen.",

    at_cell: "Zeile {row}, Spalte {column}",
    at_row: "Zeile {row}",
    at_label: "{label}",
    cell_empty: "In {h} ist {at} leer.",
    cell_bad: "In {h}, {at}: '{found}' ist nicht {expected}.",
    cell_bad_item: "In {h}, {at}: Eintrag {index} sollte {expected} sein; dort steht '{item}'.",
    cell_unreadable: "In {h}, {at}: '{found}' konnte nicht gelesen werden ({message}).",
    no_line: "Der Abschnitt {h} hat keine Zeile für {label}; bitte ergänze eine: {label}: ...",
    no_table: "Der Abschnitt {h} sollte eine Tabelle mit den Spalten {columns} enthalten; es gibt keine.",
    no_record: "Der Abschnitt {h} sollte eine Zeile für jedes von {labels} haben, geschrieben `Bezeichnung: Wert`; es gibt keine.",
    no_column: "Die Tabelle in {h} hat keine Spalte {column}; ihre Spalten sind {columns}.",
    unknown_label: "In {h} benennt die Zeile '{label}' kein Feld; die Bezeichnungen sind {labels}.",
    extra_cells: "In {h} hat {at} mehr Zellen als die {columns} Spalten der Tabelle: '{extra}'. Schreibe jeden Wert in seine eigene Spalte und ein | in einer Zelle als \\|.",
    omitted: "Es gibt {count} weitere Probleme dieser Art in {h}.",

    sections_one: "den Abschnitt {headers}, unter seiner Überschrift in einer eigenen Zeile",
    sections_many: "die Abschnitte {headers}, jeden unter seiner Überschrift in einer eigenen Zeile",
    ask_sections: "Antworte nur mit dem korrigierten Teil: {sections}; den Rest deiner Antwort habe ich behalten.",
    ask_after_stop: "Ich habe dort aufgehört, deine Antwort zu lesen. Antworte nur mit {sections}; die Abschnitte davor habe ich behalten.",
    ask_whole: "Antworte noch einmal mit deiner ganzen Antwort, mit jedem Abschnitt und jeder Überschrift in einer eigenen Zeile, und mit diesen Korrekturen.",
    ask_whole_way: "Antworte noch einmal mit deiner ganzen Antwort, auf nur eine Art, jede Überschrift in einer eigenen Zeile, und mit diesen Korrekturen.",
    ask_free: "Bitte antworte noch einmal mit diesen Korrekturen.",
    same_problems: "Das sind dieselben Probleme wie in deiner vorigen Antwort",
    escalate_with_guide: "{same}. Bitte halte dich genau an das Format; hier ist es noch einmal, mit einer vollständigen Beispielantwort:",
    escalate: "{same}; bitte lies sie sorgfältig und ändere deine Antwort entsprechend.",
    show_guide: "Bitte halte dich genau an das Format; hier ist es, mit einer vollständigen Beispielantwort:",
    cut_off: "Deine Antwort wurde von der Längenbegrenzung abgeschnitten, bevor sie fertig war.",
    kept_one: "Den vollständigen Abschnitt {headers} habe ich behalten.",
    kept_many: "Die vollständigen Abschnitte {headers} habe ich behalten.",
    write_only: "Bitte schreibe nur {sections}, und fasse dich kurz, damit es passt.",
    rewrite_shorter: "Bitte schreibe die ganze Antwort noch einmal, kürzer, damit sie passt: halte jeden Teil knapp.",
    left_out: "[... {bytes} Bytes dieser Antwort sind hier ausgelassen ...]",

    demo_question: "Zeig mir eine Beispielantwort in diesem Format.",
    same_format: "Antworte im selben Format, mit den Abschnitten {headers}, jede Überschrift in einer eigenen Zeile.",
    same_format_ways: "Antworte im selben Format, auf eine dieser Arten: {ways}; jede Überschrift in einer eigenen Zeile.",

    focused_nameless: "Bitte gib {name} für deine Antwort an.",
    focused_reply: "Antworte nur mit {what}.",
    focused_reply_example: "Antworte nur mit {what}, zum Beispiel: {example}.",
    focused_optional: "Wenn es nicht zutrifft, antworte „keine“.",
    the_number: "der Zahl",
    the_list: "der Liste, ein Eintrag pro Zeile",
    the_answer: "der Antwort",
    write_now: "Bitte schreibe sie jetzt, jede Überschrift in einer eigenen Zeile, gefolgt von ihrem Inhalt, so:",
    start_with: "Beginne mit der Überschrift {h} in einer eigenen Zeile.",
};

/// A weekend trip.
#[derive(Debug, Sections)]
#[sections(phrases = DEUTSCH)]
struct Reise {
    /// Was man sehen sollte, ein Ort pro Zeile.
    #[section(header = "[Plan]", example = "1. Dom\n2. Rheinufer")]
    plan: Vec<String>,
    /// Wie viele Tage die Reise dauert.
    #[section(header = "[Tage]", validate = hoechstens_eine_woche)]
    tage: u32,
    /// Das Budget pro Person in Euro.
    #[section(header = "[Budget]", example = "300 €")]
    budget: u32,
    /// Ob das Hotel schon gebucht ist.
    #[section(header = "[Hotel gebucht]", example = "ja")]
    hotel_gebucht: bool,
    /// Worauf man achten sollte.
    #[section(
        header = "[Hinweis]",
        example = "Sonntags sind viele Geschäfte geschlossen."
    )]
    hinweis: Option<String>,
}

/// A validator's text is sent as written, in the user's own words.
fn hoechstens_eine_woche(tage: &u32) -> Result<(), String> {
    if *tage <= 7 {
        Ok(())
    } else {
        Err("Eine Wochenendreise dauert höchstens sieben Tage.".into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    if let Err(unknown) = DEUTSCH.check() {
        return Err(format!("the table names blanks twr does not fill: {unknown:?}").into());
    }
    println!("=== the guide ===\n{}\n", Reise::format_guide());
    let model = ScriptedModel::new([
        "[Plan]\n1. Dom\n2. Altstadt\n[Tage]\nneun\n[Hotel gebucht]\nNein, noch nicht.\n[Hinweis]\nKeine.",
        "[Tage]\n9",
        "[Tage]\n2\n[Budget]\n250 €",
    ]);
    let outcome = Think::new(&model)
        .run::<Reise>("Plane ein Wochenende in Köln.")
        .await?;
    for attempt in &outcome.attempts {
        if let Some(sent) = &attempt.sent_back {
            println!(
                "=== sent back after attempt {} ===\n{sent}\n",
                attempt.number
            );
        }
    }
    let reise = outcome.value;
    println!(
        "=== typed ===\n{} Tage, {} € pro Person: {}\nHotel gebucht: {}, Hinweis: {:?}",
        reise.tage,
        reise.budget,
        reise.plan.join(", "),
        reise.hotel_gebucht,
        reise.hinweis,
    );
    // "Nein" and "Keine." were read by meaning, from the table's words.
    if reise.hotel_gebucht || reise.hinweis.is_some() {
        return Err("the German answers were not read as German".into());
    }
    Ok(())
}
