"""The bugs behind a run's failures in words: the console's list, the Markdown
section, the HTML section and each bug's report.

Every place a failure is shown leads with these: what a reader acts on is the bug,
with its smallest stream, and not the hundreds of scenarios it fails. They are made
here once, from the explanation as the run records it (`RunResult.explanation`, the
dict `scrubcheck.explain.Explanation.to_dict` gives), so that a report read back from
report.json says what the run that wrote it said.

A bug report is written to be filed upstream as it stands: a title, the
implementation and its version, the smallest stream delta by delta and as a call of
the implementation's own API (for a Python scrubber named `module:Factory`), what
SPEC expects with the rule quoted, what came out, and the commands that reproduce it.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any

from scrubcheck.spec import RULES

#: how many scenario ids a root cause lists before "and N more"
SHOWN_IDS = 5
#: how many characters of a smallest stream the console shows (one that did not shrink
#: in time can be long; the reports hold all of it)
SHOWN_CHARS = 240
#: the settings of a context at their defaults, as the explanation records them
_DEFAULTS: dict[str, Any] = {"starts_in_reasoning": False, "inline_answer": False,
                             "finish_reason": "stop", "may_skip_reasoning": False}

Cause = dict[str, Any]  # one root cause as `RootCause.to_dict` writes it


def show(text: str) -> str:
    """A string as a Python literal: every invisible character escaped, a lone surrogate
    (which no UTF-8 file can hold) too."""
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c
                   for c in json.dumps(text, ensure_ascii=False))


def clipped(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit:,} more)"


def settings_text(context: dict[str, Any]) -> str:
    """The settings of a context that are not the default, as keyword arguments."""
    parts = []
    for key, value in context.items():
        if key == "conformance_class" or value in ((), [], None) and key != "finish_reason":
            continue
        if key in _DEFAULTS and value == _DEFAULTS[key]:
            continue
        parts.append(f"{key}={list(value)!r}" if isinstance(value, list | tuple)
                     else f"{key}={value!r}")
    return ", ".join(parts)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _ids(cause: Cause) -> str:
    ids = cause["scenarios"]
    text = ", ".join(ids[:SHOWN_IDS])
    return text + (f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


def quoted_rules(cause: Cause) -> str:
    return "; ".join(f"{rule} ({RULES[rule].level}): {RULES[rule].title}"
                     for rule in cause["rules"] if rule in RULES) or "(no SPEC rule)"


def field_text(cause: Cause) -> str:
    """Where the project's field notes cite public reports of this kind of bug ("" when
    they do not, or the explanation predates the mark)."""
    return "; ".join(f"{seen['title']} ({seen['link']})" for seen in cause.get("field", []))


def shrunk(cause: Cause) -> bool:
    """Whether a root cause has a smallest stream (errors and hangs are grouped by their
    message, with no stream of their own)."""
    return cause["smallest"]["label"] not in ("ERROR", "TIMEOUT")


def headline(data: dict[str, Any]) -> str:
    """One line: how many bugs explain how many failing scenarios."""
    bugs = data["bugs"]
    text = (f"{_plural(bugs, 'bug')} explain{'s' if bugs == 1 else ''} "
            f"{data['explained_scenarios']:,} of "
            f"{_plural(data['failing_scenarios'], 'failing scenario')}")
    missing = len(data["unexplained"])
    if missing:
        text += f" ({missing:,} not explained: listed below)"
    return text + f" [{data['seconds']:.0f} s]"


def replay_command(cause: Cause, spec: str) -> str:
    """The command that shows the failure the smallest stream was shrunk from, as the
    run wrote it (the harness's own replay: chunking, seed, corpus, class; `--out` also
    writes the smallest streams as scenarios)."""
    small = cause["smallest"]
    return small.get("replay") or f"scrubcheck show {small['scenario']} --scrubber {spec}"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].strip("-")


def bug_id(number: int, cause: Cause) -> str:
    """The id of a root cause's smallest stream written as a scenario."""
    return f"bug-{number}-{slug(cause['name'])}"


def _stream_lines(cause: Cause, indent: str) -> list[str]:
    small = cause["smallest"]
    settings = settings_text(small["context"])
    calls = clipped(" ".join(f"feed({show(d)})" for d in small["deltas"]) + " flush()")
    return [f"{indent}smallest stream{' (' + settings + ')' if settings else ''}: {calls}",
            f"{indent}expected {clipped(show(small['expected']))}, got "
            f"{clipped(show(small['got']))}"
            + ("" if small["complete"] else " (shrinking stopped at its time limit)")]


def unexplained_lines(data: dict[str, Any]) -> list[str]:
    by_reason: dict[str, list[str]] = {}
    for scenario, reason in sorted(data["unexplained"].items()):
        by_reason.setdefault(reason, []).append(scenario)
    lines = []
    for reason, ids in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        more = f" and {len(ids) - 3} more" if len(ids) > 3 else ""
        lines.append(f"{len(ids)}: {reason} ({', '.join(ids[:3])}{more})")
    return lines


def console_lines(data: dict[str, Any], spec: str, limit: int = 10) -> list[str]:
    """The root causes as the console prints them, worst first (at most `limit`)."""
    lines = [headline(data) + ":"]
    causes = data["root_causes"]
    for number, cause in enumerate(causes[:limit], start=1):
        lines += [f"  {number}. {cause['kind'].upper():5} {cause['name']}",
                  f"     breaks {quoted_rules(cause)}",
                  f"     explains {_plural(len(cause['scenarios']), 'scenario')} "
                  f"({_ids(cause)}), seen by {', '.join(cause['checks'])}"]
        if shrunk(cause):
            lines += _stream_lines(cause, "     ")
            lines.append(f"     replay: {replay_command(cause, spec)}")
        else:
            lines.append("     (grouped by its message, not shrunk: each scenario's replay "
                         "is listed with it)")
    if len(causes) > limit:
        lines.append(f"  … {len(causes) - limit} more (see the reports)")
    if data["unexplained"]:
        lines.append(f"  not explained: {_plural(len(data['unexplained']), 'scenario')}")
        lines += [f"    {line}" for line in unexplained_lines(data)]
    return lines


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown_lines(data: dict[str, Any], spec: str, level: str = "##") -> list[str]:
    """The root causes as a Markdown section (reports lead with it)."""
    lines = [f"{level} Bugs: {headline(data)}", ""]
    if not data["root_causes"]:
        lines += ["No failure could be explained (see below)." if data["failing_scenarios"]
                  else "No failure to explain.", ""]
    for number, cause in enumerate(data["root_causes"], start=1):
        lines += [f"{level}# {number}. {cause['kind'].upper()}: {cause['name']}", "",
                  f"- breaks: {quoted_rules(cause)}",
                  f"- explains {_plural(len(cause['scenarios']), 'scenario')}: {_ids(cause)}",
                  f"- seen by: {', '.join(cause['checks'])}"]
        if field_text(cause):
            lines.append(f"- seen in the field: {field_text(cause)}")
        if shrunk(cause):
            small = cause["smallest"]
            settings = settings_text(small["context"])
            lines += [f"- smallest stream: {_code(' '.join(show(d) for d in small['deltas']))}"
                      + (f" with {_code(settings)}" if settings else ""),
                      f"- expected {_code(show(small['expected']))}, got "
                      f"{_code(show(small['got']))}",
                      f"- replay: {_code(replay_command(cause, spec))}"]
        lines.append("")
    if data["unexplained"]:
        lines += [f"{level}# Not explained", ""]
        lines += [f"- {line}" for line in unexplained_lines(data)]
        lines.append("")
    return lines


def html_section(data: dict[str, Any], spec: str, level: int = 2,
                 beside: Callable[[Cause], str] | None = None) -> str:
    """The root causes as an HTML section, each with its smallest stream; `level` is its
    heading's (a page that lists several implementations' bugs nests them); `beside`
    gives HTML to show with each bug (the site's triage standing)."""
    e = html.escape
    items = []
    for cause in data["root_causes"]:
        extra = beside(cause) if beside is not None else ""
        stream = ""
        if shrunk(cause):
            small = cause["smallest"]
            settings = settings_text(small["context"])
            stream = (f"<div>smallest stream{' (' + e(settings) + ')' if settings else ''}: "
                      f"<code>{e(' '.join(show(d) for d in small['deltas']))}</code></div>"
                      f"<div>expected <code>{e(show(small['expected']))}</code>, got "
                      f"<code>{e(show(small['got']))}</code></div>"
                      f"<div>replay: <code>{e(replay_command(cause, spec))}</code></div>")
        field = ("<div class=\"field\">seen in the field: " + "; ".join(
            f"{e(seen['title'])} (<code>{e(seen['link'])}</code>)"
            for seen in cause["field"]) + "</div>") if cause.get("field") else ""
        items.append(f"<li class=\"bug {e(cause['kind'])}\"><strong>{e(cause['kind'].upper())}"
                     f"</strong> {e(cause['name'])}{field}"
                     f"<div>breaks {e(quoted_rules(cause))}</div>"
                     f"<div>explains {len(cause['scenarios']):,} scenarios: "
                     f"{e(_ids(cause))}</div>{stream}{extra}</li>")
    unexplained = "".join(f"<li>{e(line)}</li>" for line in unexplained_lines(data))
    section = "<section id=\"bugs\">" if level == 2 else "<section class=\"bugs\">"
    return (f"{section}<h{level}>Bugs: {e(headline(data))}</h{level}><ol>{''.join(items)}</ol>"
            + (f"<h{level + 1}>Not explained</h{level + 1}><ul>{unexplained}</ul>"
               if unexplained else "")
            + "</section>")


def api_call(spec: str, cause: Cause) -> str | None:
    """The smallest stream as a call of the implementation's own Python API, when the
    scrubber is named `module:Factory` (None for a peer or a file)."""
    target = spec.split("=", 1)[-1]
    if ":" not in target or target.startswith(("peer:", "/", ".")) or ".py:" in target:
        return None
    module, _, factory = target.partition(":")
    if not module.replace(".", "").replace("_", "").isalnum():
        return None
    small = cause["smallest"]
    lines = [f"from {module} import {factory.split('.')[0]}", "",
             f"scrubber = {factory}({settings_text(small['context'])})", 'out = ""']
    lines += [f"out += scrubber.feed({show(d)})" for d in small["deltas"]]
    lines += ["out += scrubber.flush()",
              f"assert out == {show(small['expected'])}, out  # got {show(small['got'])}"]
    return "\n".join(lines)


def bug_report(cause: Cause, number: int, spec: str, version: str, spec_version: str,
               scenario_yaml: str | None, entry: str = "", kind: str = "") -> str:
    """A Markdown bug report for one root cause, ready to file upstream: it names the
    implementation's own entry point (a peer's manifest knows it), and carries the
    smallest stream as a scenario file to save, so it reproduces on the maintainer's
    machine with nothing of the reporter's."""
    small = cause["smallest"]
    settings = settings_text(small["context"])
    name = cause["name"]
    batch = kind.startswith("batch")
    lines = [f"# {name[0].upper()}{name[1:]}", "",
             f"**Implementation:** `{spec}`" + (f", {version}" if version else "")
             + (f"; entry point `{entry}`" if entry else "")
             + (f" ({kind}: it is given the stream as one text)" if batch else
                f" ({kind})" if kind else ""), "",
             ("The smallest stream that shows it" if shrunk(cause) else
              f"A stream that shows it (scenario {small['scenario']}, grouped by its message, "
              "not shrunk)") + f", {_plural(len(small['deltas']), 'delta')}"
             + (f", context `{settings}`" if settings else ", default context") + ":", "",
             "| # | delta |", "|---|---|"]
    lines += [f"| {i} | {_code(show(d))} |" for i, d in enumerate(small["deltas"], start=1)]
    if batch:
        lines += ["", f"As the one text it is given: {_code(show(''.join(small['deltas'])))}"]
    call = api_call(spec, cause) if shrunk(cause) else None
    if call is not None:
        lines += ["", "As a call of its API:", "", "```python", call, "```"]
    lines += ["", f"**Expected:** {_code(show(small['expected']))}.", "",
              f"**Actual:** {_code(show(small['got']))}"
              + (" (the answer part of what it returned)." if "splitter" in kind else "."), "",
              f"The reasoning-scrubber specification (scrubcheck SPEC {spec_version}) decides "
              "this by:", ""]
    lines += [f"- {rule} ({RULES[rule].level}): {RULES[rule].title}"
              for rule in cause["rules"] if rule in RULES] or ["- (no SPEC rule)"]
    lines += ["", f"It accounts for {_plural(len(cause['scenarios']), 'scenario')} of the "
              f"scrubcheck corpus failing ({', '.join(cause['checks'])} checks).", ""]
    if cause.get("field"):
        lines += ["This kind of bug has been reported against other implementations: "
                  + "; ".join(f"{seen['title']}, {seen['link']} in the scrubcheck repository"
                              for seen in cause["field"]) + ".", ""]
    lines += ["**Reproduce with scrubcheck:**", ""]
    if scenario_yaml:
        lines += ["Save the stream as `bug.yaml`:", "", "```yaml", scenario_yaml.rstrip("\n"),
                  "```", "", "then:", ""]
    lines += ["```sh", "pip install scrubcheck"]
    if scenario_yaml:
        lines.append(f"scrubcheck show {bug_id(number, cause)} --corpus bug.yaml "
                     f"--scrubber {spec}")
    else:
        lines.append(replay_command(cause, spec))
    lines += ["```", ""]
    if scenario_yaml:
        lines += [f"(The corpus scenario it was shrunk from: `{replay_command(cause, spec)}`.)",
                  ""]
    return "\n".join(lines)
