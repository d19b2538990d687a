"""What dynamo's reasoning parsers are, read from the installed engine.

Run with the dynamo environment's python; prints ONE JSON object to stdout:

    python registry.py [--no-v2] [NAME ...]

    {"engine": "dynamo", "package": "ai-dynamo-runtime", "version": ...,
     "parsers": [{"name", "variant", "code", "tokens", "alias_of", "runnable", "reason",
                  "flags", "prefill", "starts_in_reasoning"}, ...]}

How each field is learnt (nothing here is a hand list of parsers):

- `name`: `dynamo._core.get_reasoning_parser_names()`, once as installed ("default"
  rows) and once in a process with DYN_ENABLE_EXPERIMENTAL_PARSERS_V2=1 ("v2" rows,
  `variant: "v2"`; 1.6.1 lists the same names there, but routes them to the
  dynamo-parsers-v2 crate, so they are separate rows). `code` is `name` for default
  rows and `v2:name` for v2 rows: the key a caller passes to the adapter.
- `tokens`: candidate delimiters are harvested from the strings of the engine's own
  library (`dynamo/_core.abi3.so`: tag-shaped strings that name thinking, and the
  multi-part tags it spells out), each made one added token of the made-up
  tokenizer, and then tried through a running frontend: a candidate is an open tag
  when the text after it comes back as reasoning (or, for a parser that starts in
  reasoning, when it is swallowed), a close tag when the text after it comes back as
  content. The first pair found is checked end to end (open, text, close, text) and
  given as [open, close]; further open and close tags found follow. A name with no
  pair that splits is given `tokens: []` and a `reason`.
- `flags`: chat_template_kwargs that switch thinking on, tried (from the names the
  library spells, `thinking`, `enable_thinking`, `thinking_mode`) only when no tag
  splits without them.
- `prefill`: whether a prompt that ends in the open tag makes the parser start in
  reasoning (what the adapter relies on for `starts_in_reasoning`).
- `alias_of`: every runnable row is run on a fixed battery of small streams (whole,
  split and merged tags, a second block, no close, a pre-filled prompt, spaces and
  newlines), per frame; rows of one variant whose tokens, flags and battery outputs
  are all equal are one parser with one configuration, and all but the first (in
  sorted order) name that first one. This is evidence by behaviour, not a proof.
- `runnable`: false when the engine does not split any candidate pair (the `reason`
  says what it did), or when dynamo needs a file this machine lacks (gpt_oss: the
  harmony o200k vocabulary, see `harmony_vocabulary`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from client import DynamoError, DynamoServer  # noqa: E402

FLAG_CANDIDATES = ({"thinking": True}, {"enable_thinking": True}, {"thinking_mode": "enabled"})
#: the sha256 of the tiktoken o200k_base file (its name is the sha1 of its URL)
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
O200K_NAME = "fb374d419588a4632f3f557e76b4b70aebbca790"
_KEYWORD = re.compile(r"think|thought|reason", re.I)
_HARVEST = (
    rb"</?[a-z_:]{0,12}(?:think|thought|reason)[a-z_]{0,12}>",  # <think> </think> <seed:think>
    rb"\[/?[A-Z_]{0,8}THINK[A-Z_]{0,8}\]",  # [THINK] [/THINK]
    rb"<\|/?[a-z_]{0,16}(?:think|thought|reason)[a-z_]{0,16}\|>",  # <|content_thinking|>
    rb"<\|(?:open|close)\|> ?[a-z]{2,12}(?![a-z]) ?<\|sep\|>",  # <|open|>think<|sep|>
    rb"<\|channel>[a-z]{2,12}(?![a-z])(?:\\n)?",  # <|channel>thought (\n spelled in a template)
    rb"<channel\|>",
    rb"<\|channel\|>[a-z]{2,12}(?![a-z])(?:<\|message\|>)?",  # harmony
    rb"<\|(?:end|end_message|end_of_msg|content_text|message_model|return|start)\|>",
    "[◁◀]/?think[▷▶]".encode(),
)


def library_path() -> Path:
    import dynamo._core

    return Path(dynamo._core.__file__)


def harvest_candidates() -> list[str]:
    """Delimiter-shaped strings of the engine's library, longest first."""
    data = library_path().read_bytes()
    found: set[str] = set()
    for pattern in _HARVEST:
        for match in re.finditer(pattern, data):
            text = match.group().decode("utf-8", "replace").replace("\\n", "\n")
            found.add(text)
            if text.endswith("\n"):
                found.add(text[:-1])
    return sorted(found, key=lambda t: (-len(t), t))


def parser_names(v2: bool) -> list[str]:
    """The engine's names, asked in a process with or without the v2 switch."""
    import subprocess

    env = dict(os.environ)
    env.pop("DYN_ENABLE_EXPERIMENTAL_PARSERS_V2", None)
    if v2:
        env["DYN_ENABLE_EXPERIMENTAL_PARSERS_V2"] = "1"
    code = ("import json; from dynamo._core import get_reasoning_parser_names as g; "
            "print(json.dumps(g()))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def harmony_vocabulary() -> str | None:
    """The folder holding tiktoken's o200k file, checked by sha256 (TIKTOKEN_RS_CACHE_DIR),
    or None: looked for where TIKTOKEN_RS_CACHE_DIR points, then in an installed litellm
    (whose wheel ships it), then in the litellm peer environments beside this one."""
    places = [os.environ.get("TIKTOKEN_RS_CACHE_DIR", "")]
    try:
        import importlib.util

        spec = importlib.util.find_spec("litellm")
        if spec and spec.submodule_search_locations:
            places.append(os.path.join(spec.submodule_search_locations[0], "litellm_core_utils",
                                       "tokenizers"))
    except (ImportError, ValueError):
        pass
    peer_env = os.environ.get("SCRUBCHECK_PEER_ENV")
    if peer_env:
        places += sorted(str(p) for p in Path(peer_env).parent.glob(
            "pypi-litellm-*/venv/lib/python*/site-packages/litellm/litellm_core_utils/tokenizers"))
    for place in filter(None, places):
        path = Path(place) / O200K_NAME
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == O200K_SHA256:
            return str(path.parent)
    return None


class Prober:
    """Streams through one server; each probe is a fresh request."""

    def __init__(self, server: DynamoServer) -> None:
        self.server = server

    def run(self, name: str, frames: list[str], prefill: str = "", flags: dict | None = None
            ) -> list[tuple[str, str]]:
        stream = self.server.stream(name, prefill, flags)
        try:
            out = [stream.send(frame) for frame in frames]
            out.append(stream.finish())
        finally:
            stream.close()
        return out

    def total(self, *args, **kwargs) -> tuple[str, str]:
        out = self.run(*args, **kwargs)
        return "".join(r for r, _ in out), "".join(c for _, c in out)

    def starts_in_reasoning(self, name: str, flags: dict) -> bool:
        reasoning, _ = self.total(name, ["qa"], flags=flags)
        return "qa" in reasoning

    def open_tags(self, name: str, candidates: list[str], flags: dict, forced: bool) -> list[str]:
        found = []
        for tag in candidates:
            reasoning, content = self.total(name, [tag, "qx"], flags=flags)
            if (forced and reasoning.strip() == "qx" and tag not in content) or \
                    (not forced and "qx" in reasoning):
                found.append(tag)
        return found

    def close_tags(self, name: str, candidates: list[str], opener: str, flags: dict
                   ) -> list[str]:
        frames = [opener] if opener else []
        found = []
        for tag in candidates:
            if tag == opener:
                continue
            reasoning, content = self.total(name, [*frames, "qr", tag, "qc"], flags=flags)
            if "qc" in content and "qr" in reasoning and "qc" not in reasoning:
                found.append(tag)
        return found

    def battery(self, name: str, opener: str, closer: str, flags: dict, prefill: bool) -> list:
        o, c = opener or "<think>", closer or "</think>"
        streams = [
            ([o, "a", c, "b"], ""), (["a", c, "b"], ""), (["a"], ""), ([o, "a"], ""),
            (["b ", o, "a", c, " c"], ""), ([o, "a", c, "b", o, "c", c, "d"], ""),
            ([o[:3], o[3:] + "a", c[:3], c[3:] + "b"], ""), ([o + "a" + c + "b"], ""),
            (["a\n", o, "\nb\n", c, "\n\nc"], ""), ([c, "a", o, "b"], ""),
        ]
        if prefill and opener:
            streams += [(["a", c, "b"], o), (["a"], o), (["a", c, "b", o, "c"], o)]
        return [self.run(name, frames, prefill=pre, flags=flags) for frames, pre in streams]


def describe(prober: Prober, name: str, candidates: list[str]) -> dict:
    """One row, without alias_of (decided across rows)."""
    row = {"name": name, "tokens": [], "alias_of": None, "runnable": False, "reason": "",
           "flags": {}, "prefill": False, "starts_in_reasoning": False}
    for flags in ({}, *FLAG_CANDIDATES):
        forced = prober.starts_in_reasoning(name, flags)
        opens = prober.open_tags(name, candidates, flags, forced)
        closes: list[str] = []
        for opener in (opens or ([""] if forced else [])):  # the first opener with a clean pair
            closes = prober.close_tags(name, candidates, opener, flags)
            frames = lambda c, o=opener: [o, "qr", c, "qc"] if o else ["qr", c, "qc"]  # noqa: E731
            clean = [c for c in closes if tuple(s.strip() for s in prober.total(
                name, frames(c), flags=flags)) == ("qr", "qc")]
            if clean:
                closes = clean + [c for c in closes if c not in clean]
                break
        if closes:
            break
    else:
        reasoning, content = prober.total(name, ["<think>", "qr", "</think>", "qc"])
        row["reason"] = ("no candidate delimiter pair from the library splits reasoning, with or "
                         "without thinking flags; <think>qr</think>qc gives "
                         f"reasoning {reasoning!r} and content {content!r}")
        return row
    closer = closes[0]
    reasoning, content = prober.total(name, [opener, "qr", closer, "qc"] if opener else
                                      ["qr", closer, "qc"], flags=flags)
    row.update(flags=flags, starts_in_reasoning=forced, pair=[opener, closer],
               tokens=[t for t in (opener, closer) if t] +
               [t for t in (*opens[1:], *closes[1:]) if t not in (opener, closer)])
    if reasoning.strip() != "qr" or content.strip() != "qc":
        row["reason"] = (f"the pair {opener!r} {closer!r} does not split cleanly: reasoning "
                         f"{reasoning!r}, content {content!r}")
        return row
    if opener:
        pre_r, pre_c = prober.total(name, ["qr", closer, "qc"], prefill=opener, flags=flags)
        row["prefill"] = pre_r.strip() == "qr" and pre_c.strip() == "qc"
    row["runnable"] = True
    return row


def rows_for(names: list[str], v2: bool, candidates: list[str]) -> list[dict]:
    env_note = {}
    vocabulary = harmony_vocabulary()
    if vocabulary:
        env_note["TIKTOKEN_RS_CACHE_DIR"] = vocabulary
    saved = {k: os.environ.get(k) for k in env_note}
    os.environ.update(env_note)
    try:
        server = DynamoServer(names, tags=tuple(candidates), v2=v2)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    prober = Prober(server)
    rows = []
    try:
        for name in names:
            try:
                if name not in server.listed:
                    raise DynamoError(
                        "the frontend never listed the model registered with this parser "
                        "(dynamo keeps retrying its materialization; with the v2 switch "
                        "1.6.1 logs: no compatible unified v2 implementation)")
                row = describe(prober, name, candidates)
            except DynamoError as exc:
                row = {"name": name, "tokens": [], "alias_of": None, "runnable": False,
                       "reason": str(exc), "flags": {}, "prefill": False,
                       "starts_in_reasoning": False}
            if name == "gpt_oss" and not vocabulary:
                row.update(runnable=False, reason=(
                    "needs the harmony o200k vocabulary (TIKTOKEN_RS_CACHE_DIR with "
                    f"{O200K_NAME}, sha256 {O200K_SHA256[:12]}...); without it dynamo "
                    "falls back silently to a <think> parser"))
            row["variant"] = "v2" if v2 else "default"
            row["code"] = f"v2:{name}" if v2 else name
            rows.append(row)
        _aliases(prober, rows)
    finally:
        for row in rows:
            row.pop("pair", None)
        server.stop()
    return rows


def _aliases(prober: Prober, rows: list[dict]) -> None:
    seen: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: r["name"]):
        if not row.get("runnable"):
            continue
        opener, closer = row["pair"]
        marks = prober.battery(row["name"], opener, closer, row["flags"], row["prefill"])
        key = json.dumps([row["tokens"], row["flags"], row["starts_in_reasoning"], marks])
        if key in seen:
            row["alias_of"] = seen[key]
        else:
            seen[key] = row["name"]


def registry(names: list[str] | None = None, v2: bool = True) -> dict:
    candidates = harvest_candidates()
    rows = []
    for variant in (False, True) if v2 else (False,):
        listed = parser_names(variant)
        wanted = [n for n in listed if not names or n in names]
        rows += rows_for(wanted, variant, candidates) if wanted else []
    return {"engine": "dynamo", "package": "ai-dynamo-runtime",
            "version": metadata.version("ai-dynamo-runtime"), "parsers": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only these parser names")
    parser.add_argument("--no-v2", action="store_true", help="skip the v2 rows")
    args = parser.parse_args()
    out = sys.stdout
    sys.stdout = sys.stderr  # anything else printed goes to stderr
    out.write(json.dumps(registry(args.names or None, v2=not args.no_v2), indent=1) + "\n")


if __name__ == "__main__":
    main()
