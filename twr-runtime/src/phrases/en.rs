//! English.

use super::Phrases;

pub(crate) static EN: Phrases = Phrases {
    stop: '.',
    sentence_gap: " ",
    comma: ", ",
    and: " and ",

    some_text: "some text",
    whole_number: "a single whole number",
    whole_number_between: "{whole_number} from {min} to {max}",
    number: "a single number",
    yes_no: "yes or no",
    one_character: "a single character",
    one_of: "one of: {values}",
    list: "a list, one item per line",
    such_as: " such as {example}",

    its_content: "its content",
    the_json_value: "the JSON value",
    its_value: "its value",

    free_text: "free text",
    a_json_value: "a JSON value",
    a_single_value: "a single value",
    yes: "yes",

    guide_intro: "Think it through freely first. Then give your final answer in the sections below, each header on a line of its own followed by its content.",
    guide_optional: " (optional: write N/A if it does not apply)",
    guide_may_omit: " (optional)",
    guide_example: "Example answer:",

    intro: "Thank you. A few parts of your answer need fixing:",
    for_example: "For example:",
    closing_one: "Please write that section again: the header on a line of its own, followed by its content.",
    closing_many: "Please write those sections again: each header on a line of its own, followed by its content.",

    missing: "The {h} section is missing. Please add it: the header {h} on a line of its own, then {kind}.",
    empty: "The {h} section is empty. Please write {kind} under its header.",
    bad_value: "The {h} section should be {expected}; it says '{found}'.",
    bad_item: "Item {index} of the {h} list should be {expected}; it says '{item}'.",
    json_shape: "The {h} section should be JSON of the expected shape: {message}",
    json_at: "The JSON in the {h} section is wrong at `{path}`: {message}",
    reply_json_shape: "The reply should be JSON of the expected shape: {message}",
    reply_json_at: "The JSON in the reply is wrong at `{path}`: {message}",
    unreadable: "The {h} section could not be read ({message}); it says '{found}'.",
    invalid: "The {h} section needs a change: {message}",
    near_miss: "You wrote {wrote}; name it {h}, on a line of its own.",
    not_on_own_line: "The {h} header must stand on a line of its own; it appears inside the line '{line}'.",
    none_of: "None of the sections {headers} is in your answer. Please give at least one of them, each header on a line of its own.",
    missing_divider: "Please put your final answer after a line of five or more equals signs (=====), or between two such lines.",

    sections_one: "{headers} section, under its header on a line of its own",
    sections_many: "{headers} sections, each under its header on a line of its own",
    ask_sections: "Reply with only the corrected {sections}; I have kept the rest of your answer.",
    ask_whole: "Reply with your whole answer again, every section included and each header on a line of its own, with these fixes made.",
    ask_free: "Please answer again with these fixes made.",
    same_problems: "These are the same problems as in your previous answer",
    escalate_with_guide: "{same}. Please follow the format exactly; here it is again, with a complete example answer:",
    escalate: "{same}; please read them carefully and change your answer accordingly.",
    cut_off: "Your answer was cut off by the length limit before it was finished.",
    kept_one: "I have kept the complete {headers} section.",
    kept_many: "I have kept the complete {headers} sections.",
    write_only: "Please write only the {sections}, and keep it short so that it fits.",
    rewrite_shorter: "Please write the whole answer again, shorter, so that it fits: keep each part brief.",
};
