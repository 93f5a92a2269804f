use twr_runtime::Sections;

// Every mistake is reported in one compile, each at its own token, and uses
// of `Plan` below get no follow-up errors.
#[derive(Sections)]
#[sections(lang = "de")]
struct Plan {
    #[section(header = "")]
    summary: String,
    #[section(jsn)]
    budget: u32,
    #[section(default)]
    notes: Option<String>,
    steps: Vec<String>,
    #[section(aliases = ["STEPS"])]
    timeline: String,
}

fn main() {
    let _ = Plan::parse_sections("[Steps]\nread");
}
