use twr_runtime::Choice;

#[derive(Choice)]
enum Priority {}

fn main() {}
