use twr_runtime::Sections;

fn check(_: &str) -> Result<(), String> {
    Ok(())
}

#[derive(Sections)]
#[sections(validate = check)]
struct Ticket {
    refund: f64,
}

fn main() {}
