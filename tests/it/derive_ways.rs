//! Enums of section sets: `#[derive(Sections)]` on an enum whose variants
//! are ways to answer. The reply's headers choose the variant; the guide
//! offers every way; a reply with no way, or with two, gets feedback naming
//! the enum and each way's headers.

use twr_runtime::{
    feedback::{ProblemKind, Way},
    sections::{Lang, WaySpec, WaysSpec},
    Sections,
};

#[derive(Debug, PartialEq, Sections)]
struct FinalAnswer {
    /// The answer, in one or two sentences.
    #[section(example = "Paris is the capital of France.")]
    answer: String,
    /// How sure you are, from 1 to 5.
    confidence: u8,
}

fn not_blank(query: &str) -> Result<(), String> {
    if query.split_whitespace().count() >= 2 {
        Ok(())
    } else {
        Err("write at least two words".into())
    }
}

#[derive(Debug, PartialEq, Sections)]
enum Step {
    /// Search the web before answering.
    Search {
        /// What to type into the search box.
        #[section(example = "capital of France", validate = not_blank, aliases = ["Search terms"])]
        query: String,
        /// Why the search is needed.
        reason: String,
    },
    /// Answer now.
    Answer(FinalAnswer),
}

#[test]
fn the_ways_sections_follow_each_other_and_the_ways_say_which_are_whose() {
    let headers: Vec<&str> = Step::specs().iter().map(|spec| spec.header).collect();
    assert_eq!(headers, ["[Query]", "[Reason]", "[Answer]", "[Confidence]"]);
    static WAYS: [WaySpec; 2] = [
        WaySpec::new("Search", 2).with_description("Search the web before answering."),
        WaySpec::new("Answer", 2).with_description("Answer now."),
    ];
    assert_eq!(Step::ways(), [WaysSpec::new("Step", 0, &WAYS)]);
}

#[test]
fn the_headers_choose_the_variant() {
    assert_eq!(
        Step::parse_sections(
            "Let me look.\n**Search terms:** capital of France\n## Reason\nI am not sure."
        ),
        Ok(Step::Search {
            query: "capital of France".into(),
            reason: "I am not sure.".into()
        })
    );
    assert_eq!(
        Step::parse_sections("[Answer]\nParis.\n[Confidence]\n5 out of 5"),
        Ok(Step::Answer(FinalAnswer {
            answer: "Paris.".into(),
            confidence: 5
        }))
    );
}

#[test]
fn problems_are_those_of_the_chosen_way_only() {
    let feedback = Step::parse_sections("[Query]\nParis").unwrap_err();
    let problems: Vec<(&str, &ProblemKind)> = feedback
        .problems()
        .iter()
        .map(|p| (p.header.as_str(), &p.kind))
        .collect();
    assert_eq!(
        problems,
        [
            (
                "[Query]",
                &ProblemKind::Invalid {
                    message: "write at least two words".into()
                }
            ),
            ("[Reason]", &ProblemKind::Missing),
        ]
    );
    let feedback = Step::parse_sections("[Answer]\nParis.").unwrap_err();
    assert_eq!(feedback.headers(), ["[Confidence]"]);
}

fn ways() -> Vec<Way> {
    vec![
        Way::new("Search", vec!["[Query]".into(), "[Reason]".into()]),
        Way::new("Answer", vec!["[Answer]".into(), "[Confidence]".into()]),
    ]
}

#[test]
fn a_reply_with_no_way_names_the_enum_and_every_ways_headers() {
    let feedback = Step::parse_sections("Paris, I think.").unwrap_err();
    assert_eq!(
        feedback.problems()[0].kind,
        ProblemKind::NoWay {
            enum_name: "Step".into(),
            ways: ways()
        }
    );
    assert_eq!(feedback.problems()[0].header, "");
    assert_eq!(
        feedback.to_string(),
        "Your answer has none of the sections of Step. Choose one way and write its sections: \
         Search ([Query] and [Reason]) or Answer ([Answer] and [Confidence])."
    );
}

#[test]
fn a_reply_with_two_ways_names_what_it_wrote_and_every_way() {
    let feedback =
        Step::parse_sections("[Query]\ncapital of France\n[Answer]\nParis.\n[Confidence]\n4")
            .unwrap_err();
    assert_eq!(
        feedback.problems()[0].kind,
        ProblemKind::MixedWays {
            enum_name: "Step".into(),
            found: vec![
                Way::new("Search", vec!["[Query]".into()]),
                Way::new("Answer", vec!["[Answer]".into(), "[Confidence]".into()]),
            ],
            ways: ways()
        }
    );
    assert_eq!(
        feedback.to_string(),
        "Your answer mixes the ways of Step: it has sections of Search ([Query]) and Answer ([Answer] and [Confidence]). \
         Choose one way and write only its sections: Search ([Query] and [Reason]) or Answer ([Answer] and [Confidence])."
    );
    // An empty section counts: the header was written.
    let feedback =
        Step::parse_sections("[Reason]\n\n[Answer]\nParis.\n[Confidence]\n4").unwrap_err();
    assert!(matches!(
        feedback.problems()[0].kind,
        ProblemKind::MixedWays { .. }
    ));
}

const GUIDE: &str = "Think it through freely first. Then give your final answer in the sections below, each header on a line of its own followed by its content.

Answer in one of these ways, with the sections of that way only:

Way 1 (Search): Search the web before answering.

[Query]
What to type into the search box.

[Reason]
Why the search is needed.

Way 2 (Answer): Answer now.

[Answer]
The answer, in one or two sentences.

[Confidence]
How sure you are, from 1 to 5.

Example answer in way 1 (Search):

[Query]
capital of France
[Reason]
<free text>

Example answer in way 2 (Answer):

[Answer]
Paris is the capital of France.
[Confidence]
<a single whole number>

After any thinking, begin your final answer with [Query] or [Answer] on a line of its own.";

#[test]
fn the_guide_offers_every_way_with_its_description_and_example() {
    assert_eq!(Step::format_guide(), GUIDE);
}

#[derive(Debug, PartialEq, Sections)]
#[sections(lang = "zh", style = "xml")]
enum StepZh {
    /// 先搜索再回答。
    Search {
        #[section(header = "[查询]", example = "法国首都")]
        query: String,
    },
    /// 直接回答
    Answer {
        #[section(header = "[回答]")]
        answer: String,
    },
}

#[test]
fn in_chinese_and_in_xml() {
    assert_eq!(
        StepZh::format_guide(),
        "请先自由地思考。然后按下面的部分给出最终答案：每个部分写在它的一对标签之间：先写开始标签，再写内容，最后写结束标签。

请从下面几种方式中选择一种作答，只写这种方式的部分：

方式1（Search）：先搜索再回答。

<查询>
自由文字。

方式2（Answer）：直接回答。

<回答>
自由文字。

方式1（Search）的示例答案：

<查询>
法国首都
</查询>

方式2（Answer）的示例答案：

<回答>
<自由文字>
</回答>

思考之后，请以单独一行的<查询>或<回答>开始你的最终答案。"
    );
    assert_eq!(
        StepZh::parse_sections("<回答>巴黎</回答>"),
        Ok(StepZh::Answer {
            answer: "巴黎".into()
        })
    );
    assert_eq!(
        StepZh::parse_sections("嗯。").unwrap_err().to_string(),
        "你的回答里没有StepZh的任何部分。请选择一种方式，写出它的部分：Search（[查询]）或Answer（[回答]）。"
    );
    assert_eq!(
        StepZh::parse_sections("[查询]\n法国首都\n[回答]\n巴黎")
            .unwrap_err()
            .to_string(),
        "你的回答混用了StepZh的几种方式：其中有Search（[查询]）和Answer（[回答]）的部分。请只选择一种方式，只写它的部分：Search（[查询]）或Answer（[回答]）。"
    );
}

#[derive(Debug, PartialEq, Sections)]
#[sections(style = "markdown")]
enum Verdict {
    /// The claim holds.
    Accept { because: String },
    /// The claim does not hold.
    Reject { because_not: String },
}

#[test]
fn in_markdown() {
    let guide = Verdict::format_guide();
    assert!(
        guide.contains("Way 1 (Accept): The claim holds.\n\n## Because\n"),
        "{guide}"
    );
    assert!(
        guide.ends_with(
            "begin your final answer with ## Because or ## Because Not on a line of its own."
        ),
        "{guide}"
    );
}

/// An agent's step: a shared thought, then the sections of one action.
#[derive(Debug, PartialEq, Sections)]
struct AgentStep {
    thought: String,
    #[section(flatten)]
    next: Step,
}

#[test]
fn flattened_ways_follow_shared_sections() {
    assert_eq!(
        AgentStep::ways(),
        [WaysSpec::new("Step", 1, Step::ways()[0].ways)]
    );
    assert_eq!(
        AgentStep::parse_sections("[Thought]\nI know this.\n[Answer]\nParis.\n[Confidence]\n5"),
        Ok(AgentStep {
            thought: "I know this.".into(),
            next: Step::Answer(FinalAnswer {
                answer: "Paris.".into(),
                confidence: 5
            })
        })
    );
    // The shared section alone chooses nothing.
    let feedback = AgentStep::parse_sections("[Thought]\nHmm.").unwrap_err();
    assert_eq!(
        feedback.problems()[0].kind,
        ProblemKind::NoWay {
            enum_name: "Step".into(),
            ways: ways()
        }
    );
    assert_eq!(feedback.lang(), Lang::En);
    let guide = AgentStep::format_guide();
    assert!(
        guide.contains("[Thought]\nFree text.\n\nAnswer in one of these ways"),
        "{guide}"
    );
    assert!(
        guide.contains("Example answer in way 2 (Answer):\n\n[Thought]\n<free text>\n[Answer]\n"),
        "{guide}"
    );
    assert!(guide.ends_with("begin your final answer with [Thought] on a line of its own."));
}

/// Ways inside a way: the answer way flattens another enum of ways.
#[derive(Debug, PartialEq, Sections)]
enum Delivery {
    Email { address: String },
    Post { street: String, city: String },
}

#[derive(Debug, PartialEq, Sections)]
struct Order {
    item: String,
    #[section(flatten)]
    delivery: Delivery,
}

#[derive(Debug, PartialEq, Sections)]
enum Request {
    Ask { question: String },
    Place(Order),
}

#[test]
fn ways_inside_a_way() {
    let ways: Vec<(&str, std::ops::Range<usize>)> = Request::ways()
        .iter()
        .map(|enum_ways| (enum_ways.name, enum_ways.range()))
        .collect();
    assert_eq!(ways, [("Request", 0..5), ("Delivery", 2..5)]);
    assert_eq!(
        Request::parse_sections("[Item]\nA kettle\n[Street]\n1 Main St\n[City]\nLyon"),
        Ok(Request::Place(Order {
            item: "A kettle".into(),
            delivery: Delivery::Post {
                street: "1 Main St".into(),
                city: "Lyon".into()
            }
        }))
    );
    let feedback = Request::parse_sections("[Item]\nA kettle").unwrap_err();
    assert!(matches!(
        &feedback.problems()[0].kind,
        ProblemKind::NoWay { enum_name, .. } if enum_name == "Delivery"
    ));
    let guide = Request::format_guide();
    assert!(
        guide.contains("Way 2 (Place):\n\n[Item]\nFree text.\n\nAnswer in one of these ways, with the sections of that way only:\n\nWay 1 (Email):\n\n[Address]"),
        "{guide}"
    );
}

/// Generic enums work like generic structs.
#[derive(Debug, PartialEq, Sections)]
enum Measured<T> {
    Exact { value: T },
    Unknown { why: String },
}

#[test]
fn a_generic_enum() {
    assert_eq!(
        Measured::<u32>::parse_sections("[Value]\n42 kg"),
        Ok(Measured::Exact { value: 42 })
    );
    assert_eq!(
        Measured::<bool>::parse_sections("[Why]\nNo scale."),
        Ok(Measured::Unknown {
            why: "No scale.".into()
        })
    );
}
