use twr_runtime::Sections;

fn check(_: &Ticket) -> Result<(), String> {
    Ok(())
}

#[derive(Sections)]
#[sections(validate = check, concerns = [refund, totl])]
struct Ticket {
    refund: f64,
    total: f64,
    #[section(skip)]
    note: String,
}

#[derive(Sections)]
#[sections(validate = check, concerns = [note])]
struct Skipped {
    refund: f64,
    #[section(skip)]
    note: String,
}

fn main() {}
