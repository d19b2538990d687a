"""`gateway check` on a capture `gateway audit` wrote: judged as the audit judged it.

A failing stream in an audit's `*.failures.capture.json` names its scenario,
its upstream shape, the request mode and the context the audit's scrubbing
client used (`Capture.audit`). Guessing that context again from the stream
(`classify.infer_context`) can guess wrong (a per-delta strip leaves a bare
close tag that reads as a pre-filled template), and the scenario's answer and
reasoning are known, so each scrubber runs with the audit's context and its
output goes through the audit's own judgement (`compare.outcome`): for the
reference scrubber, check and audit cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping

from scrubcheck.adapters import AdapterError, load_adapter
from scrubcheck.adapters.drive import run_stream
from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.compare import Expectation, as_completion, expectation, outcome, sent
from scrubcheck.gateway.upstream import Shape
from scrubcheck.gateway.verdicts import ClientOutcome, ScrubberJudgement, _short
from scrubcheck.gateway.wire import context_from_dict
from scrubcheck.model import Context, Scenario


def audited_expectation(capture: Capture, scenarios: Mapping[str, Scenario]
                        ) -> tuple[Expectation, Context] | str | None:
    """(what the audit expected, the context its client used) for an audit's capture;
    None for another capture; a sentence when the capture names a scenario the corpus
    does not have (then nothing can be judged the audit's way)."""
    block = capture.audit
    if block is None:
        return None
    scenario = scenarios.get(str(block.get("scenario")))
    if scenario is None:
        return (f"the audit's scenario {block.get('scenario')!r} is not in the corpus "
                "loaded (pass the audit's --corpus)")
    expect = expectation(scenario)
    if block.get("mode") == "complete":
        expect, _ = as_completion(expect, sent(scenario, Shape(block.get("shape", "inline"))))
    return expect, context_from_dict(block.get("client_context") or {})


def judge_audited(capture: Capture, expect: Expectation, context: Context,
                  specs: list[str]) -> list[ScrubberJudgement]:
    """Each scrubber on the capture's content with the audit's context, judged as the
    audit judges its scrubbing client."""
    verdicts = []
    for spec in specs:
        try:
            adapter = load_adapter(spec)
        except AdapterError as exc:
            verdicts.append(ScrubberJudgement(spec, "?", ClientOutcome.ERROR.value,
                                    f"cannot load: {_short(str(exc))}"))
            continue
        trace = run_stream(adapter, context, capture.content_deltas)
        if not trace.ok:
            what = (f"{trace.error.where()} raised {trace.error.summary}" if trace.error
                    else "did not finish")
            verdicts.append(ScrubberJudgement(spec, adapter.kind, ClientOutcome.ERROR.value,
                                    _short(what)))
            continue
        found, detail = outcome(expect, trace.output)
        verdicts.append(ScrubberJudgement(spec, adapter.kind,
                                "ok" if found is ClientOutcome.RIGHT else found.value, detail,
                                leaks=found is ClientOutcome.LEAK))
    return verdicts
