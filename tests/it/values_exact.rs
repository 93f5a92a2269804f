//! Never a wrong value: through a derived struct's `parse_sections`, every
//! value is read exactly (signs before currencies, scales, N/A lists) or is
//! feedback naming its section, in English and Chinese.

use twr_runtime::{Choice, Sections};

#[derive(Debug, PartialEq, Clone, Copy, Choice)]
enum Priority {
    Low,
    Medium,
    High,
}

#[derive(Debug, PartialEq, Sections)]
struct Forecast {
    /// Profit in US dollars; negative for a loss.
    #[section(example = "-$20")]
    profit: i64,
    #[section(example = "12000")]
    users: u32,
    #[section(example = "3.5")]
    revenue: f64,
    priority: Priority,
    approved: bool,
    risks: Vec<String>,
}

#[derive(Debug, PartialEq, Sections)]
#[sections(lang = "zh")]
struct Yuce {
    #[section(header = "[利润]", example = "-$20")]
    profit: i64,
    #[section(header = "[用户]", example = "12000")]
    users: u32,
    #[section(header = "[优先级]")]
    priority: Priority,
    #[section(header = "[批准]")]
    approved: bool,
    #[section(header = "[风险]")]
    risks: Vec<String>,
}

#[test]
fn signs_scales_and_not_applicable_lists_read_exactly() {
    let reply = "[Profit]\n-$20 (a small loss)\n[Users]\n12K users\n[Revenue]\n$3.5bn\n\
                 [Priority]\nHigh, because the launch is close\n[Approved]\nYes, it fits.\n\
                 [Risks]\nNone.";
    assert_eq!(
        Forecast::parse_sections(reply),
        Ok(Forecast {
            profit: -20,
            users: 12_000,
            revenue: 3.5e9,
            priority: Priority::High,
            approved: true,
            risks: vec![],
        })
    );
    let reply = "[利润]\n−¥1.5万\n[用户]\n2.5 million\n[优先级]\n不是很急，low\n\
                 [批准]\n否\n[风险]\n无";
    assert_eq!(
        Yuce::parse_sections(reply),
        Ok(Yuce {
            profit: -15_000,
            users: 2_500_000,
            priority: Priority::Low,
            approved: false,
            risks: vec![],
        })
    );
}

#[test]
fn what_cannot_be_read_exactly_is_feedback_naming_the_section() {
    let reply = "[Profit]\n$5k-$10k\n[Users]\n1.2345k\n[Revenue]\n300 K\n\
                 [Priority]\nnot high\n[Approved]\nYes and no.\n[Risks]\nN/A";
    let feedback = Forecast::parse_sections(reply).unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "Thank you. A few parts of your answer need fixing:

1. The [Profit] section should be a single whole number such as -$20; it says '$5k-$10k'.

2. The [Users] section should be a single whole number such as 12000; it says '1.2345k'.

3. The [Revenue] section should be a single number such as 3.5; it says '300 K'.

4. The [Priority] section should be one of: Low, Medium, High; it says 'not high'.

5. The [Approved] section should be yes or no; it says 'Yes and no.'.

Please write those sections again: each header on a line of its own, followed by its content."
    );
    // The N/A list is no problem: an empty list.
    assert_eq!(
        feedback.headers(),
        [
            "[Profit]",
            "[Users]",
            "[Revenue]",
            "[Priority]",
            "[Approved]"
        ]
    );
}

#[test]
fn the_same_feedback_in_chinese() {
    let reply =
        "[利润]\n5k-10k\n[用户]\n5 billion\n[优先级]\nnot high\n[批准]\n是也不是\n[风险]\nN/A";
    let feedback = Yuce::parse_sections(reply).unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "谢谢。你的回答有几处需要修改：

1. [利润] 部分应该是一个整数，例如 -$20；现在写的是“5k-10k”。

2. [用户] 部分应该是介于 0 和 4294967295 之间的一个整数；现在写的是“5 billion”。
   例如：
   [用户]
   12000

3. [优先级] 部分应该是以下之一：Low、Medium、High；现在写的是“not high”。

4. [批准] 部分应该是“是”或“否”；现在写的是“是也不是”。

请重新写出这些部分：每个标题单独占一行，内容写在标题下面。"
    );
}
