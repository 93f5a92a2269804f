use twr_runtime::phrases::Phrases;
use twr_runtime::Sections;

static MINE: Phrases = Phrases {
    intro: "A few things:",
    ..Phrases::ENGLISH
};

#[derive(Sections)]
#[sections(lang = "zh", phrases = MINE)]
struct Plan {
    weeks: u32,
}

fn main() {}
