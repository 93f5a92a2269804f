use twr_runtime::Sections;

#[derive(Sections)]
#[sections(style = "html", lang = "en")]
struct Plan {
    steps: String,
}

#[derive(Sections)]
#[sections(style = "tags", lang = "fr")]
struct Both {
    steps: String,
}

fn main() {}
