use twr_runtime::Sections;

#[derive(Sections)]
enum Step {}

fn main() {
    // The fallback impl keeps uses of the type free of follow-up errors.
    let _ = Step::specs();
}
