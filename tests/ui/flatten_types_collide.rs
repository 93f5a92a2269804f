use twr_runtime::Sections;

#[derive(Sections)]
struct Customer {
    name: String,
}

#[derive(Sections)]
struct Agent {
    #[section(header = "[NAME]")]
    agent: String,
}

#[derive(Sections)]
struct Ticket {
    summary: String,
    #[section(flatten)]
    customer: Customer,
    #[section(flatten)]
    agent: Agent,
}

fn main() {}
