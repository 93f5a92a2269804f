use twr_runtime::Sections;

#[derive(Sections)]
enum Plan {
    Short,
    Long,
}

fn main() {
    // The fallback impl keeps uses of the type free of follow-up errors.
    let _ = Plan::specs();
}
