use twr_runtime::Choice;

#[derive(Choice)]
struct Priority {
    level: u8,
}

fn main() {}
