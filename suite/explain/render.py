"""Root causes in words: the console's list, the Markdown section, each bug's report.

Every place a failure is shown leads with these: what a reader acts on is the bug,
with its smallest stream, and not the hundreds of scenarios it fails. The texts are
made here once, and the console, the reports and `scrubcheck explain` print them.

A bug report is written to be filed upstream as it stands: a title, the
implementation and its version, the smallest stream delta by delta and as a call of
the implementation's own API (for a Python scrubber named `module:Factory`), what
SPEC expects with the rule quoted, what came out, and the commands that reproduce it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from scrubcheck.explain.causes import RootCause
from scrubcheck.explain.conduct import Explanation
from scrubcheck.model import Context

#: how many scenario ids a root cause lists before "and N more"
SHOWN_IDS = 5


def show(text: str) -> str:
    """A string as a Python literal: every invisible character escaped."""
    return json.dumps(text, ensure_ascii=False)


def context_text(context: Context) -> str:
    """The settings of a context that are not the default, as keyword arguments."""
    return _settings_text(dict(context.as_kwargs()))


def _settings_text(context: dict) -> str:
    defaults = {"starts_in_reasoning": False, "inline_answer": False, "finish_reason": "stop",
                "features": (), "may_skip_reasoning": False, "delimiters": []}
    parts = []
    for key, value in context.items():
        if key in defaults and (value == defaults[key] or value in ((), [])):
            continue
        if key == "conformance_class":
            continue
        parts.append(f"{key}={value!r}" if not isinstance(value, list | tuple)
                     else f"{key}={list(value)!r}")
    return ", ".join(parts)


def _ids(cause: RootCause) -> str:
    ids = cause.scenarios
    text = ", ".join(ids[:SHOWN_IDS])
    return text + (f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def headline(explanation: Explanation) -> str:
    """One line: how many bugs explain how many failing scenarios."""
    bugs = explanation.bugs
    text = (f"{_plural(bugs, 'bug')} explain{'s' if bugs == 1 else ''} "
            f"{explanation.explained:,} of {_plural(explanation.failing, 'failing scenario')}")
    missing = len(explanation.unexplained)
    if missing:
        text += f" ({missing:,} not explained: listed below)"
    return text + f" [{explanation.seconds:.0f} s]"


#: how many characters of a smallest stream the console shows (one that did not shrink
#: in time can be long; the reports hold all of it)
SHOWN_CHARS = 240


def clipped(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit:,} more)"


def smallest_lines(cause: RootCause, indent: str = "     ") -> list[str]:
    small = cause.smallest
    settings = context_text(small.context)
    calls = clipped(" ".join(f"feed({show(d)})" for d in small.deltas) + " flush()")
    lines = [f"{indent}smallest stream{' (' + settings + ')' if settings else ''}: {calls}",
             f"{indent}expected {clipped(show(small.expected))}, got {clipped(show(small.got))}"
             + ("" if small.complete else " (shrinking stopped at its time limit)")]
    return lines


def console_lines(explanation: Explanation, spec: str, limit: int = 10) -> list[str]:
    """The root causes as the console prints them, worst first (at most `limit`)."""
    lines = [headline(explanation) + ":"]
    for number, cause in enumerate(explanation.causes[:limit], start=1):
        lines.append(f"  {number}. {cause.kind.upper():5} {cause.name}")
        lines.append(f"     breaks {'; '.join(cause.quoted_rules()) or '(no SPEC rule)'}")
        lines.append(f"     explains {_plural(len(cause.scenarios), 'scenario')} ({_ids(cause)}),"
                     f" seen by {', '.join(cause.checks)}")
        if shrunk(cause):
            lines.extend(smallest_lines(cause))
            lines.append(f"     replay: {replay_command(cause, spec)}")
        else:
            lines.append("     (grouped by its message, not shrunk: each scenario's replay "
                         "is listed with it)")
    hidden = len(explanation.causes) - limit
    if hidden > 0:
        lines.append(f"  … {hidden} more (see the reports)")
    lines.extend(unexplained_lines(explanation))
    return lines


def unexplained_lines(explanation: Explanation) -> list[str]:
    if not explanation.unexplained:
        return []
    by_reason: dict[str, list[str]] = {}
    for scenario, reason in sorted(explanation.unexplained.items()):
        by_reason.setdefault(reason, []).append(scenario)
    lines = [f"  not explained: {_plural(len(explanation.unexplained), 'scenario')}"]
    for reason, ids in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        more = f" and {len(ids) - 3} more" if len(ids) > 3 else ""
        lines.append(f"    {len(ids)}: {reason} ({', '.join(ids[:3])}{more})")
    return lines


def shrunk(cause: RootCause) -> bool:
    """Whether a root cause has a smallest stream (errors and hangs are grouped by their
    message, with no stream of their own)."""
    return cause.smallest.label not in ("ERROR", "TIMEOUT")


def replay_command(cause: RootCause, spec: str) -> str:
    """The command that shows the scenario the smallest stream came from, under the
    stream label that failed (`scrubcheck explain --corpus-out` writes the smallest
    streams themselves as scenarios)."""
    small = cause.smallest
    label = f" --chunking {small.label}" if small.label and small.label != "recorded" else ""
    return f"scrubcheck show {small.scenario_id} --scrubber {spec}{label}"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].strip("-")


def bug_id(number: int, cause: RootCause) -> str:
    """The id of a root cause's smallest stream written as a scenario."""
    return f"bug-{number}-{slug(cause.name)}"


def markdown_lines(explanation: Explanation, spec: str) -> list[str]:
    """The root causes as a Markdown section (reports lead with it)."""
    lines = [f"## Bugs: {headline(explanation)}", ""]
    if not explanation.causes:
        lines.append("No failure to explain." if not explanation.failing
                     else "No failure could be explained (see below).")
    for number, cause in enumerate(explanation.causes, start=1):
        small = cause.smallest
        lines += [
            f"### {number}. {cause.kind.upper()}: {cause.name}", "",
            f"- breaks: {'; '.join(cause.quoted_rules()) or '(no SPEC rule)'}",
            f"- explains {_plural(len(cause.scenarios), 'scenario')}: {_ids(cause)}",
            f"- seen by: {', '.join(cause.checks)}",
        ]
        if shrunk(cause):
            lines += [
                f"- smallest stream: {_code(' '.join(show(d) for d in small.deltas))}"
                + (f" with {_code(context_text(small.context))}" if context_text(small.context)
                   else ""),
                f"- expected {_code(show(small.expected))}, got {_code(show(small.got))}",
                f"- replay: {_code(replay_command(cause, spec))}",
            ]
        lines.append("")
    if explanation.unexplained:
        lines += ["### Not explained", ""]
        lines += [f"- {line.strip()}" for line in unexplained_lines(explanation)[1:]]
        lines.append("")
    return lines


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def api_call(spec: str, cause: RootCause) -> str | None:
    """The smallest stream as a call of the implementation's own Python API, when the
    scrubber is named `module:Factory` (None for a peer or a file)."""
    target = spec.split("=", 1)[-1]
    if ":" not in target or target.startswith(("peer:", "/", ".")) or target.endswith(".py"):
        return None
    module, _, factory = target.partition(":")
    if not module.replace(".", "").replace("_", "").isalnum():
        return None
    small = cause.smallest
    settings = context_text(small.context)
    lines = [f"from {module} import {factory.split('.')[0]}", "",
             f"scrubber = {factory}({settings})", "out = \"\""]
    lines += [f"out += scrubber.feed({show(d)})" for d in small.deltas]
    lines += ["out += scrubber.flush()", f"assert out == {show(small.expected)}, out"
              f"  # got {show(small.got)}"]
    return "\n".join(lines)


def bug_report(cause: RootCause, spec: str, version: str, spec_version: str,
               corpus_file: str | None, number: int) -> str:
    """A Markdown bug report for one root cause, ready to file upstream."""
    small = cause.smallest
    settings = context_text(small.context)
    lines = [f"# {cause.name[0].upper()}{cause.name[1:]}", "",
             f"**Implementation:** `{spec}`" + (f", {version}" if version else ""), "",
             ("The smallest stream that shows it" if shrunk(cause) else
              f"A stream that shows it (scenario {small.scenario_id}, grouped by its message, "
              "not shrunk)") + f", {_plural(len(small.deltas), 'delta')}"
             + (f", context `{settings}`" if settings else ", default context") + ":", "",
             "| # | delta |", "|---|---|"]
    lines += [f"| {i} | {_code(show(d))} |" for i, d in enumerate(small.deltas, start=1)]
    call = api_call(spec, cause)
    if call is not None:
        lines += ["", "As a call of its API:", "", "```python", call, "```"]
    lines += ["", f"**Expected:** {_code(show(small.expected))}, as "
              + "; ".join(cause.quoted_rules()) + " of the reasoning-scrubber specification "
              f"(scrubcheck SPEC {spec_version}).", "",
              f"**Actual:** {_code(show(small.got))}.", "",
              f"It accounts for {_plural(len(cause.scenarios), 'scenario')} of the scrubcheck "
              f"corpus failing ({', '.join(cause.checks)} checks).", "",
              "**Reproduce with scrubcheck:**", "", "```sh", "pip install scrubcheck"]
    if corpus_file:
        lines.append(f"scrubcheck show {bug_id(number, cause)} --corpus {corpus_file} "
                     f"--scrubber {spec}")
    lines += [replay_command(cause, spec), "```", ""]
    return "\n".join(lines)


def summary_counts(causes: Iterable[RootCause]) -> dict[str, int]:
    counts = {"leak": 0, "loss": 0, "other": 0}
    for cause in causes:
        counts[cause.kind] += 1
    return counts
