use twr_runtime::{Choice, Sections};

#[derive(Choice)]
enum Priority {
    Low,
    High,
}

#[derive(Sections)]
struct Plan {
    #[section(default)]
    priority: Priority,
}

fn main() {}
