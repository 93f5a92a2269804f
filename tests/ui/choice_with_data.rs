use twr_runtime::Choice;

#[derive(Choice)]
enum Priority {
    Low,
    Medium(u8),
    High { urgent: bool },
}

fn main() {}
