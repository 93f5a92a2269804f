use twr_runtime::Choice;

#[derive(Choice)]
union Priority {
    level: u8,
}

fn main() {}
