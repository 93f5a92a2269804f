//! Chinese (中文).

use super::Phrases;

pub(crate) static ZH: Phrases = Phrases {
    stop: '。',
    sentence_gap: "",
    comma: "、",
    and: "和",

    some_text: "一段文字",
    whole_number: "一个整数",
    whole_number_between: "介于 {min} 和 {max} 之间的{whole_number}",
    number: "一个数字",
    yes_no: "“是”或“否”",
    one_character: "一个字符",
    one_of: "以下之一：{values}",
    list: "一个列表，每行一项",
    such_as: "，例如 {example}",

    its_content: "内容",
    the_json_value: "JSON 值",
    its_value: "它的值",

    free_text: "自由文字",
    a_json_value: "一个 JSON 值",
    a_single_value: "一个值",
    yes: "是",

    guide_intro:
        "请先自由地思考。然后按下面的部分给出最终答案：每个标题单独占一行，内容写在标题下面。",
    guide_optional: "（可选：不适用时写“无”）",
    guide_may_omit: "（可选）",
    guide_example: "示例答案：",

    intro: "谢谢。你的回答有几处需要修改：",
    for_example: "例如：",
    closing_one: "请重新写出这个部分：标题单独占一行，内容写在标题下面。",
    closing_many: "请重新写出这些部分：每个标题单独占一行，内容写在标题下面。",

    missing: "缺少 {h} 部分。请补上：标题 {h} 单独占一行，下面写{kind}。",
    empty: "{h} 部分是空的。请在标题下面写{kind}。",
    bad_value: "{h} 部分应该是{expected}；现在写的是“{found}”。",
    bad_item: "{h} 列表的第 {index} 项应该是{expected}；现在写的是“{item}”。",
    json_shape: "{h} 部分应该是符合要求的 JSON：{message}",
    json_at: "{h} 部分的 JSON 在 `{path}` 处有误：{message}",
    reply_json_shape: "回复应该是符合要求的 JSON：{message}",
    reply_json_at: "回复中的 JSON 在 `{path}` 处有误：{message}",
    unreadable: "无法读取 {h} 部分（{message}）；现在写的是“{found}”。",
    invalid: "{h} 部分需要修改：{message}",
    near_miss: "你写的是 {wrote}；请把它改成 {h}，单独占一行。",
    not_on_own_line: "标题 {h} 必须单独占一行，但它出现在这一行里：“{line}”。",
    none_of: "你的回答里没有 {headers} 中的任何一个部分。请至少写出其中一个，每个标题单独占一行。",
    missing_divider: "请把最终答案写在一行五个或更多等号（=====）之后，或写在两行这样的等号之间。",

    sections_one: "{headers}部分",
    sections_many: "{headers}部分",
    ask_sections: "请只回复改正后的{sections}，写在各自的标题下；回答的其余部分我已保留。",
    ask_whole: "请重新写出包含所有部分的完整回答，并做好这些修改。",
    ask_free: "请做好这些修改后重新回答。",
    same_problems: "这些问题与上一次回答中的相同",
    escalate_with_guide: "{same}。请严格按照格式作答；下面再次给出格式说明和完整的示例回答：",
    escalate: "{same}；请仔细阅读，并据此修改你的回答。",
    cut_off: "你的回答因长度限制被截断，没有写完。",
    kept_one: "我已保留完整的{headers}部分。",
    kept_many: "我已保留完整的{headers}部分。",
    write_only: "请只写{sections}，每部分写在其标题下，并尽量简短，以免再次被截断。",
    rewrite_shorter: "请重新写出完整的回答，但要更简短，每部分都尽量精炼。",
};
