"""Lists an engine's registered reasoning parsers and probes each one (run in its env).

    python probe.py ENGINE_FOLDER < probes.json > listing.json

An engine registers parsers by name (`--reasoning-parser NAME`); which names exist,
which code each one runs and which delimiters it splits are facts of the installed
release, so they are read here, from the engine, and never copied by hand. The
engine's folder holds `driver.py`, which offers two functions:

- `names()`: every registered name, each as `{"name": ..., "code": ...}`, where
  `code` says which implementation the name selects (module and class), so that two
  names selecting the same code are seen to be one parser;
- `open_stream(name, tags, context)`: one parser for one stream, with `feed(delta)`
  and `flush()` returning `(reasoning, content)`; `tags` are the texts the made-up
  tokenizer holds as single tokens.

stdin holds the probes the harness built from its format registry (for each
reasoning delimiter, the deltas of a stream that opens, reasons, closes and
answers) and the tokenizer's tags. Each name is run on each probe twice: once as
a request that starts in content and once as one whose template pre-filled the
open (the engine's thinking flag on), and once more on an answer with no tags at
all, to see where a stream starts. Whatever a parser raises is caught and
reported for that name alone, and a name whose probes take over a minute
(SCRUBCHECK_ENGINE_PROBE_SECONDS) is reported as hanging.
stdout gets one JSON object: `{"version", "parsers": [{"name", "code", "error",
"probes": {probe id: {"content": [ok, ok], "prefilled": ok}}, "plain": [reasoning,
content]}]}`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
import traceback
from pathlib import Path

REASONING, ANSWER = "R", "A"
#: seconds one name's probes may take; a parser that hangs is reported, not waited for
PER_NAME_S = int(os.environ.get("SCRUBCHECK_ENGINE_PROBE_SECONDS", "60"))


class _Hung(Exception):
    pass


def _alarm(signum, frame):
    raise _Hung(f"its probes did not finish within {PER_NAME_S} s (a hang)")


def _driver(folder: Path):
    spec = importlib.util.spec_from_file_location("scrubcheck_engine_driver",
                                                  folder / "driver.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(folder))
    spec.loader.exec_module(module)
    return module


def _run(driver, name: str, tags: list[str], deltas: list[str],
         prefilled: bool) -> tuple[str, str]:
    stream = driver.open_stream(name, tags, {"starts_in_reasoning": prefilled})
    reasoning, content = [], []
    for delta in deltas:
        r, c = stream.feed(delta)
        reasoning.append(r)
        content.append(c)
    r, c = stream.flush()
    reasoning.append(r)
    content.append(c)
    return "".join(reasoning), "".join(content)


def _split(result: tuple[str, str]) -> bool:
    reasoning, content = result
    return reasoning.strip() == REASONING and content.strip() == ANSWER


def _said(exc: BaseException) -> str:
    return traceback.format_exception_only(type(exc), exc)[-1].strip()[:300]


def probe_name(driver, entry: dict, probes: list[dict], tags: list[str]) -> dict:
    """One name's probes. A run that raises counts as not split (a parser may refuse a
    mode, e.g. one that must start in reasoning); the name's `error` is set only when
    every run raised, or when its probes hang."""
    name = entry["name"]
    out: dict = {**entry, "error": "", "probes": {}, "plain": []}
    raised: list[str] = []
    runs = 0

    def split(deltas: list[str], prefilled: bool) -> bool:
        nonlocal runs
        runs += 1
        try:
            return _split(_run(driver, name, tags, deltas, prefilled))
        except _Hung:
            raise
        except Exception as exc:  # noqa: BLE001 -- reported as this name's, never fatal
            raised.append(_said(exc))
            return False

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(PER_NAME_S)
    try:
        for probe in probes:
            opened = [*probe["open"], REASONING, *probe["close"], ANSWER]
            after_open = [REASONING, *probe["close"], ANSWER]
            out["probes"][probe["id"]] = {
                "content": [split(opened, False), split(opened, True)],
                "prefilled": split(after_open, True),
            }
        try:
            out["plain"] = list(_run(driver, name, tags, [ANSWER], False))
        except _Hung:
            raise
        except Exception as exc:  # noqa: BLE001
            raised.append(_said(exc))
            out["plain"] = list(_run(driver, name, tags, [ANSWER], True))
    except Exception as exc:  # noqa: BLE001 -- a hang, or a mode every run refuses
        raised.append(_said(exc))
        out["error"] = raised[-1] if isinstance(exc, _Hung) else raised[0]
        out["probes"], out["plain"] = {}, []
    finally:
        signal.alarm(0)
    if raised and len(raised) >= runs and not out["error"]:
        out["error"], out["probes"], out["plain"] = raised[0], {}, []
    return out


def main() -> None:
    os.environ["SCRUBCHECK_PEERLOOP_IMPORT_ONLY"] = "1"  # a driver may load peerloop
    folder = Path(sys.argv[1]).resolve()
    given = json.load(sys.stdin)
    probes, tags = given["probes"], given["tags"]
    driver = _driver(folder)
    names = driver.names()
    listing = {"version": driver.version(), "parsers": [
        probe_name(driver, entry, probes, tags) for entry in names]}
    sys.stdout.write(json.dumps(listing) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    main()
