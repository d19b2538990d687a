"""Every reasoning parser the installed smg registers, per variant, learned from the engine.

Run with the smg environment's Python; prints one JSON object on stdout (progress on
stderr):

    {"engine": "smg", "package": "smg", "version": ..., "parsers": [
        {"name", "variant", "code", "tokens", "alias_of", "runnable", "reason", "flags",
         "starts_in_reasoning"}, ...]}

Options: `--names a,b` (only these), `--variants legacy,symphony`.

How each field is learned (nothing here is a hand list):

- names: `smg.smg_rs.get_available_reasoning_parsers()`, the list smg's CLI offers as
  `--reasoning-parser` choices (the Rust factory's registry).
- variant: every name is tried both ways, each in a real smg (smgrig.Rig). `legacy`:
  `smg launch --reasoning-parser NAME` starts and serves (smg refuses a name of no legacy
  parser at start: "unknown reasoning parser"). `symphony`: under `--parser symphony`,
  smg's debug log says "Symphony reads the response ... table=T" for a stream, or smg
  names it a Symphony table when refusing it as a legacy parser; a name whose streams
  Symphony does not read under `--parser symphony` (smg keeps the legacy parsers for it)
  has no symphony entry.
- code: what smg reads the stream with: for legacy, the factory's key (the name itself,
  the only identity smg exposes); for symphony, "symphony table T" with T the table its
  debug log names.
- tokens: probed. Candidates are the tag-like strings in smg's own library
  (smgrig.tag_strings: `<x>`, `</x>`, `<ns:x>`, `<|x|>`, `<|x>`, `<x|>`, `[X]`,
  `◁x▷`). Each is
  streamed as "x" + TAG + "y" with thinking off and on: a tag after which "y" arrives as
  reasoning with thinking off is an opening token; one after which "y" arrives as
  content with thinking on is a closing token; one that smg removes or changes without
  either is listed after them. A parser that starts in content whatever the flag is
  also sent the first opening token found + "x" + TAG + "y", for its closing token.
  Delimiters made of several tags or of a tag plus a word
  (a channel name) are not found this way; `reason` says so when nothing was found.
- alias_of: two names of one variant are aliases when the engine gives the same answers
  to every probe stream (the candidate probes above plus a fixed set of multi-block and
  split-tag streams, both modes); a symphony name is also an alias of the table it reads
  with when smg logs another table's name. The alias points to the first such name in
  smg's order; the first has alias_of null.
- runnable: a stream went through (`reason` gives smg's refusal otherwise).
- flags: the request's `chat_template_kwargs` that switch thinking on, when the probe
  shows it: with the rig's template toggle (`enable_thinking`), a stream sent with it
  true starts in reasoning and one without it does not. `starts_in_reasoning` says
  "always", "with-flag" or "never" as probed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from smgrig import Rig, RigError, Session, tag_strings  # noqa: E402

#: fixed streams whose answers join the probe answers in the alias fingerprint
FINGERPRINT_STREAMS = (
    ("<think>a</think>b<think>c</think>d",),
    ("<think>a</th", "ink>b"),
    ("a</think>b",),
    ("x<thi",),
    ("plain text",),
    ("<|START_THINKING|>a<|END_THINKING|>b",),
    ("◁think▷a◁/think▷b",),
)
_TABLE = re.compile(r'Symphony reads the response.*?table="?([^"\s]+)"?')
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run_stream(rig: Rig, thinking: bool, deltas) -> tuple[str, str]:
    session = Session(rig, {"starts_in_reasoning": thinking})
    try:
        got = [session.feed(d) for d in deltas] + [session.flush()]
    except RigError:
        session.abandon()
        raise
    reasoning = "".join(r for r, _ in got)
    content = "".join(c for _, c in got)
    return reasoning, content


def classify(tag: str, off: tuple[str, str], on: tuple[str, str],
             opened: tuple[str, str] | None) -> str | None:
    """'open', 'close', 'other' or None from the answers to "x" + tag + "y" with thinking
    off and on, and with thinking off after an opening token already found (`opened`).
    Unchanged means all of it in one channel, the tag kept."""
    plain = "x" + tag + "y"
    unchanged = (("", plain), (plain, ""))
    if off not in unchanged and off[0].endswith("y") and "y" not in off[1]:
        return "open"  # "y" goes to reasoning: it opened a block (or was stripped in one)
    for answer in (on, opened):
        if answer and "x" in answer[0] and "y" not in answer[0] and answer[1].endswith("y"):
            return "close"  # reasoning ends at it
    if off not in unchanged or on not in unchanged:
        return "other"
    return None


def probe(name: str, variant: str, candidates: list[str]) -> dict:
    entry = {"name": name, "variant": variant, "code": name, "tokens": [], "alias_of": None,
             "runnable": False, "reason": "", "flags": {}, "starts_in_reasoning": None,
             "_fingerprint": None, "_table": None}
    rig = Rig(name, variant, start_timeout=20, step_timeout=10, log_level="debug")
    try:
        rig.start()
    except RigError as exc:
        entry["reason"] = str(exc)
        entry["_refused"] = str(exc)
        return entry
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:  # smg serves streams side by side
            offs = pool.map(lambda t: run_stream(rig, False, ["x" + t + "y"]), candidates)
            ons = pool.map(lambda t: run_stream(rig, True, ["x" + t + "y"]), candidates)
            answers = dict(zip(candidates, zip(offs, ons, strict=True), strict=True))
            opens = [t for t in candidates if classify(t, *answers[t], None) == "open"]
            after = dict.fromkeys(candidates)
            if opens:  # closing tokens of a parser that starts in content whatever the flag
                after = dict(zip(candidates, pool.map(
                    lambda t: run_stream(rig, False, [opens[0] + "x" + t + "y"]), candidates),
                    strict=True))
            fixed = list(pool.map(lambda job: run_stream(rig, job[0], job[1]),
                                  [(mode, deltas) for deltas in FINGERPRINT_STREAMS
                                   for mode in (False, True)]))
        entry["_fingerprint"] = json.dumps([sorted(answers.items()), sorted(after.items()),
                                            fixed])
        kinds = {tag: classify(tag, *answers[tag], after[tag]) for tag in candidates}
        entry["tokens"] = ([t for t in candidates if kinds[t] == "open"]
                           + [t for t in candidates if kinds[t] == "close"]
                           + [t for t in candidates if kinds[t] == "other"])
        off = run_stream(rig, False, ["plain"])
        on = run_stream(rig, True, ["plain"])
        if off[0] and on[0]:
            entry["starts_in_reasoning"] = "always"
        elif on[0]:
            entry["starts_in_reasoning"] = "with-flag"
            entry["flags"] = {"enable_thinking": True}
        else:
            entry["starts_in_reasoning"] = "never"
        entry["runnable"] = True
        log = _ANSI.sub("", rig.stderr_path.read_text(encoding="utf-8", errors="replace"))
        tables = _TABLE.findall(log)
        entry["_table"] = tables[-1] if tables else None
        if variant == "symphony" and entry["_table"]:
            entry["code"] = f"symphony table {entry['_table']}"
        if not entry["tokens"]:
            entry["reason"] = ("no candidate tag changes its streams: it passes text "
                               "through, or its delimiters are not single tags")
        else:
            entry["reason"] = "streams go through"
    except RigError as exc:
        entry["reason"] = f"a probe stream failed: {exc}"
    finally:
        rig.stop()
    return entry


def main(argv=None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--names", default="")
    options.add_argument("--variants", default="legacy,symphony")
    args = options.parse_args(argv)
    from smg.smg_rs import get_available_reasoning_parsers

    names = list(get_available_reasoning_parsers())
    if args.names:
        wanted = args.names.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            raise SystemExit(f"smg has no reasoning parser {', '.join(unknown)}")
        names = [n for n in names if n in wanted]
    variants = args.variants.split(",")
    candidates = tag_strings()
    results = []
    for name in names:
        tried = {}
        for variant in variants:
            print(f"probing {name} ({variant}) ...", file=sys.stderr, flush=True)
            tried[variant] = probe(name, variant, candidates)
        legacy, symphony = tried.get("legacy"), tried.get("symphony")
        if legacy is not None:
            refused = legacy.get("_refused", "")
            if "unknown reasoning parser" not in refused:
                results.append(legacy)
            elif symphony is not None and "--parser symphony" in refused:
                symphony.setdefault("_named_table", True)
        if symphony is not None and (symphony["_table"] or symphony.get("_named_table")):
            if not symphony["runnable"] and not symphony["reason"]:
                symphony["reason"] = "no stream went through"
            results.append(symphony)
    # aliases: the same answers to every probe (and, for symphony, another table logged)
    first: dict[tuple[str, str], str] = {}
    for entry in results:
        table = entry["_table"]
        if entry["variant"] == "symphony" and table and table != entry["name"]:
            entry["alias_of"] = table
            continue
        if entry["_fingerprint"] is None:
            continue
        key = (entry["variant"], entry["_fingerprint"])
        if key in first:
            entry["alias_of"] = first[key]
        else:
            first[key] = entry["name"]
    for entry in results:
        for key in [k for k in entry if k.startswith("_")]:
            del entry[key]
    print(json.dumps({"engine": "smg", "package": "smg", "version": metadata.version("smg"),
                      "parsers": results}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
