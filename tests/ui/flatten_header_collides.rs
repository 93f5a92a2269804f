use twr_runtime::Sections;

#[derive(Sections)]
struct Customer {
    name: String,
    #[section(aliases = ["Mail"])]
    email: String,
}

#[derive(Sections)]
struct Ticket {
    #[section(header = "[Summary]", aliases = ["mail"])]
    summary: String,
    #[section(flatten)]
    customer: Customer,
}

fn main() {}
