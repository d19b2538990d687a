"""junit.xml: the report CI systems display next to every other test result.

One testsuite per area (plus one for the scrubber-wide checks), one testcase
per scenario. Scenario text may hold NUL or lone surrogates, which XML 1.0
cannot carry at all, so every string goes through `xml_safe` first: a CI
server that rejects the file would hide every result in it. The element helper,
the message limit and the document text are the JUnit format's for every
scrubcheck tool (`gateway audit` writes its junit.xml with them too), so the
files CI reads are built one way.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..results import Outcome, RunResult, ScenarioResult
from . import analysis as an
from .analysis import reproductions
from .bugs import bug_id, console_lines
from .failure_text import replay_command, scenario_text
from .text import shorten, xml_safe

SCRUBBER_SUITE = "scrubber-checks"
MESSAGE_LIMIT = 500


def element(parent: ET.Element, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    """A child element whose text and attributes are made XML-safe (`xml_safe`)."""
    child = ET.SubElement(parent, tag, {k: xml_safe(str(v)) for k, v in attrs.items()})
    if text is not None:
        child.text = xml_safe(text)
    return child


def _properties(parent: ET.Element, run: RunResult) -> None:
    props = ET.SubElement(parent, "properties")
    values = {
        "scrubber": run.scrubber,
        "scrubber_kind": run.scrubber_kind,
        "supported_features": ",".join(run.supported_features),
        "accepted_context": ",".join(run.accepted_context),
        "scrubcheck_version": run.scrubcheck_version,
        "spec_version": run.spec_version,
        "seed": run.settings.get("seed", ""),
        "level": an.run_level(run),
        "started_at": run.started_at,
    }
    for name, value in values.items():
        element(props, "property", name=name, value=value)


def failure_message(result: ScenarioResult) -> tuple[str, str]:
    """(message, type) of a failing scenario: its worst check and rule first."""
    repros = reproductions(result)
    if not repros:
        return result.reason or "failed", "FAIL"
    worst = repros[0].failure
    kind = f"{worst.check} {worst.rule}"
    others = "; also " + ", ".join(f"{r.failure.check} {r.failure.rule}" for r in repros[1:]) \
        if len(repros) > 1 else ""
    message = (f"{worst.level} {kind} under {repros[0].failing} chunking(s): "
               f"{worst.detail}{others}")
    return shorten(message, MESSAGE_LIMIT), kind


def _testcase(suite: ET.Element, result: ScenarioResult) -> None:
    case = element(suite, "testcase", classname=result.area, name=result.scenario_id,
                    time=f"{result.duration_s:.3f}", file=result.file, line=result.line)
    reason = result.reason or "no reason given"
    if result.outcome is Outcome.FAIL:
        message, kind = failure_message(result)
        element(case, "failure", scenario_text(result), message=message, type=kind)
    elif result.outcome in (Outcome.ERROR, Outcome.TIMEOUT):
        element(case, "error", scenario_text(result), message=shorten(reason, MESSAGE_LIMIT),
                 type=result.outcome.value)
    elif result.outcome in (Outcome.UNSUPPORTED, Outcome.SKIPPED, Outcome.BEYOND_CLAIM):
        element(case, "skipped", message=f"{result.outcome.value}: {reason}")
    replays = [replay_command(r) for r in reproductions(result)]
    if replays:
        element(case, "system-out", "replay:\n" + "\n".join(replays))


def _suite(root: ET.Element, run: RunResult, name: str,
           results: list[ScenarioResult]) -> ET.Element:
    counts = an.outcome_counts(results)
    suite = element(
        root, "testsuite", name=name, tests=len(results), failures=counts["FAIL"],
        errors=counts["ERROR"] + counts["TIMEOUT"],
        skipped=counts["UNSUPPORTED"] + counts["SKIPPED"] + counts.get("BEYOND CLAIM", 0),
        time=f"{sum(r.duration_s for r in results):.3f}", timestamp=run.started_at,
    )
    _properties(suite, run)
    for result in results:
        _testcase(suite, result)
    return suite


def build_junit(run: RunResult) -> ET.Element:
    """The <testsuites> tree of a run."""
    everything = an.checked(run)
    counts = an.outcome_counts(everything)
    explanation = run.explanation or {}
    bugs = explanation.get("root_causes", [])
    attrs = {
        "name": f"scrubcheck {run.scrubber}",
        "tests": len(everything) + len(bugs) + (1 if run.corpus_errors else 0),
        "failures": counts["FAIL"] + len(bugs),
        "errors": counts["ERROR"] + counts["TIMEOUT"] + (1 if run.corpus_errors else 0),
        "skipped": counts["UNSUPPORTED"] + counts["SKIPPED"] + counts.get("BEYOND CLAIM", 0),
        "time": f"{run.duration_s:.3f}",
    }
    root = ET.Element("testsuites", {k: xml_safe(str(v)) for k, v in attrs.items()})
    if bugs:  # first: the bugs behind the failures, one failing test each
        suite = element(root, "testsuite", name="bugs", tests=len(bugs), failures=len(bugs),
                        errors=0, skipped=0, time="0", timestamp=run.started_at)
        for number, cause in enumerate(bugs, start=1):
            case = element(suite, "testcase", classname="bugs", name=bug_id(number, cause))
            element(case, "failure", xml_safe("\n".join(
                console_lines({**explanation, "root_causes": [cause], "unexplained": {}},
                              run.scrubber)[1:])),
                    message=xml_safe(f"{cause['kind'].upper()}: {cause['name']}"),
                    type=cause["kind"])
    by_area: dict[str, list[ScenarioResult]] = {}
    for result in run.results:
        by_area.setdefault(result.area, []).append(result)
    for area, results in by_area.items():
        _suite(root, run, area, results)
    if run.scrubber_checks:
        _suite(root, run, SCRUBBER_SUITE, run.scrubber_checks)
    if run.corpus_errors:
        suite = element(root, "testsuite", name="corpus", tests=1, failures=0, errors=1,
                         skipped=0, time="0", timestamp=run.started_at)
        case = element(suite, "testcase", classname="corpus", name="load")
        element(case, "error", "\n".join(run.corpus_errors),
                 message=f"{len(run.corpus_errors)} corpus error(s)", type="CorpusError")
    return root


def junit_document(root: ET.Element) -> str:
    """A JUnit tree as every scrubcheck junit.xml holds it: indented, with the XML
    declaration, ending in a newline."""
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render_junit(run: RunResult) -> str:
    return junit_document(build_junit(run))


def write_junit(run: RunResult, path: Path) -> Path:
    path.write_text(render_junit(run), encoding="utf-8")
    return path
