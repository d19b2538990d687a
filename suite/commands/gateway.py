"""`scrubcheck gateway`: record, classify and replay OpenAI-compatible streams.

    gateway record --base-url URL --model M [--api-key-env VAR] [--prompt T | --prompts F]
    gateway record --from-sse FILE...        saved `data:` text -> capture file
    gateway check CAPTURE... [--scrubber SPEC]...
    gateway import CAPTURE... [--id ID] [--out FILE]
    gateway serve [--corpus DIR] [--captures FILE] [--port P]
    gateway audit --gateway URL [--key-env VAR] [--route T] [--upstream SHAPE] [filters]
                  [--out [DIR]]
    gateway audit --gateway-name NAME[:CONFIG] [...]   a gateway scrubcheck installs and starts

Exit codes: record 0, or 1 when a stream failed (the capture is written
anyway); check 1 when any scrubber leaks; import 1 when the scenario does not
lint, 2 when a capture is incomplete (failed, or cut without a finish) and
nothing is written unless --skip-failed; audit as `run`: 0 when every client
(one showing content raw, one running a SPEC-conformant scrubber) shows the
right answer on every stream, 1 when one sees a LEAK, LOSS, altered answer or
ERROR, 2 when nothing can run (unreachable gateway, refused key, every request
failing), 130 on Ctrl-C; 2 on usage errors everywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrubcheck.commands.options import (
    add_corpus_option,
    add_jobs_option,
    add_out_option,
    add_progress_option,
    add_scrubber_option,
    add_selection_options,
    add_shard_option,
    add_timeout_option,
    usage_for,
)
from scrubcheck.gateway.capture import Capture, CaptureFileError, write_captures

if TYPE_CHECKING:  # the openai client is the gateway extra's: imported where it records
    from openai.types.chat import ChatCompletionMessageParam

    from scrubcheck.corpus import Corpus
    from scrubcheck.gateway.audit import AuditOptions, AuditResult
    from scrubcheck.model import Scenario

NAME = "gateway"
HELP = "record, classify (check), import and replay OpenAI-compatible chat streams"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="gateway_command", metavar="ACTION")
    _record_arguments(sub.add_parser(
        "record", help="stream chat completions with the openai client and save captures"))
    _check_arguments(sub.add_parser(
        "check", help="classify captured streams and run every scrubber on them"))
    _import_arguments(sub.add_parser(
        "import", help="turn captures into corpus scenarios (YAML)"))
    _serve_arguments(sub.add_parser(
        "serve", help="OpenAI-compatible server replaying corpus scenarios as SSE"))
    _audit_arguments(sub.add_parser(
        "audit", help="run the corpus through a gateway and judge what its clients receive"))


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "gateway_command", None)
    if action is None:
        return _usage("choose an action: record, check, import, serve or audit "
                      "(scrubcheck gateway ACTION --help)")
    return {"record": _record, "check": _check, "import": _import, "serve": _serve,
            "audit": _audit}[action](args)


# ------------------------------------------------------------------ record
def _record_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible base URL (…/v1)")
    p.add_argument("--model", action="append", metavar="M",
                   help="model name to request; repeat to record several models "
                        "(each with every prompt)")
    p.add_argument("--api-key-env", metavar="VAR",
                   help="name of the environment variable holding the API key, sent to "
                        "--base-url (default: OPENAI_API_KEY when the base URL is OpenAI's "
                        "own API, else a placeholder key; the key is never written to "
                        "captures, logs or messages)")
    prompts = p.add_mutually_exclusive_group()
    prompts.add_argument("--prompt", action="append", metavar="TEXT",
                         help="user message; repeat for several streams")
    prompts.add_argument("--prompts", type=Path, metavar="FILE",
                         help="one user message per line (blank lines and # lines skipped)")
    p.add_argument("--system", metavar="TEXT", help="system message sent before each prompt")
    p.add_argument("--extra-body", metavar="JSON",
                   help='extra request fields, e.g. \'{"chat_template_kwargs": '
                        '{"enable_thinking": true}}\'')
    p.add_argument("--name", metavar="NAME", help="capture name (default: from the model)")
    add_timeout_option(p, 120.0, "give up when no data arrives for S seconds (default 120)")
    p.add_argument("--from-sse", nargs="+", type=Path, metavar="FILE",
                   help="import saved SSE text (data: lines) instead of recording")
    add_out_option(p, "capture file to write (default: NAME.capture.json)", metavar="FILE")


def _prompts(args: argparse.Namespace) -> list[str]:
    if args.prompts is not None:
        lines = args.prompts.read_text(encoding="utf-8").splitlines()
        return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return args.prompt or ["Say hello in one short sentence."]


def _record(args: argparse.Namespace) -> int:
    from scrubcheck.gateway.importer import slug
    from scrubcheck.gateway.inputs import load_inputs

    try:
        from scrubcheck.gateway.recorder import MissingKey, Recorder, api_key
    except ModuleNotFoundError as exc:
        return _usage(f"recording needs the openai client ({exc}); "
                      "pip install 'scrubcheck[gateway]'")

    captures: list[Capture] = []
    if args.from_sse:
        for path in args.from_sse:
            try:
                captures.extend(load_inputs(path))
            except (OSError, CaptureFileError) as exc:
                return _usage(str(exc))
        return _write_and_report(captures, args.out or Path(f"{args.from_sse[0].stem}"
                                                            ".capture.json"))
    if not args.base_url or not args.model:
        return _usage("record needs --base-url and --model (or --from-sse FILE)")
    try:
        key, key_note = api_key(args.api_key_env, args.base_url)
    except MissingKey as exc:
        return _usage(str(exc))
    try:
        extra = json.loads(args.extra_body) if args.extra_body else None
        prompts = _prompts(args)
    except (OSError, json.JSONDecodeError) as exc:
        return _usage(f"cannot read the request: {exc}")
    if extra is not None and not isinstance(extra, dict):
        return _usage("--extra-body must be a JSON object")
    if not prompts:
        return _usage(f"no prompts in {args.prompts}")
    print(f"scrubcheck gateway record: {key_note}", file=sys.stderr)
    base = args.name or slug(args.model[0])
    with Recorder(args.base_url, api_key=key, timeout=args.timeout) as recorder:
        for model in args.model:
            for index, prompt in enumerate(prompts, start=1):
                messages: list[ChatCompletionMessageParam] = (
                    [{"role": "system", "content": args.system}] if args.system else [])
                messages.append({"role": "user", "content": prompt})
                name = args.name or slug(model)
                if len(args.model) > 1 and args.name:
                    name = f"{name}-{slug(model)}"
                if len(prompts) > 1:
                    name = f"{name}-{index}"
                captures.append(recorder.record(model, messages, name=name, extra_body=extra))
    return _write_and_report(captures, args.out or Path(f"{base}.capture.json"))


def _write_and_report(captures: list[Capture], out: Path) -> int:
    for capture in captures:
        state = (f"FAILED ({capture.error.kind}): {capture.error.message}" if capture.error
                 else "ok")
        print(f"{capture.name}: {len(capture.chunks)} chunks (content "
              f"{len(capture.content_deltas)}, reasoning {len(capture.reasoning_deltas)}), "
              f"finish_reason {capture.finish_reason or 'none'}: {state}")
    try:
        write_captures(captures, out)
    except OSError as exc:
        return _usage(f"cannot write {out}: {exc}")
    failed = sum(1 for c in captures if c.error)
    print(f"wrote {len(captures)} capture(s) to {out}"
          + (f"; {failed} stream(s) failed, everything received before the failure is kept"
             if failed else ""))
    return 1 if failed else 0


# ------------------------------------------------------------------- check
def _check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("captures", nargs="+", type=Path, metavar="CAPTURE",
                   help="capture files, or saved SSE text")
    add_scrubber_option(p, "a scrubber to run on the captures (default: reference; "
                           "installed peers are added)", repeatable=True)
    p.add_argument("--no-peers", action="store_true", help="do not add installed peers")
    add_corpus_option(p)


def _load_all(paths: list[Path]) -> list[tuple[str, Capture]] | str:
    from scrubcheck.gateway.inputs import load_inputs

    loaded: list[tuple[str, Capture]] = []
    for path in paths:
        try:
            loaded.extend((str(path), c) for c in load_inputs(path))
        except (OSError, CaptureFileError) as exc:
            return str(exc)
    return loaded


def _check(args: argparse.Namespace) -> int:
    from scrubcheck.gateway.check_audited import audited_expectation, judge_audited
    from scrubcheck.gateway.check_text import render_capture
    from scrubcheck.gateway.classify import analyse
    from scrubcheck.gateway.scrubbers import scrubber_specs
    from scrubcheck.gateway.verdicts import judge_all

    loaded = _load_all(args.captures)
    if isinstance(loaded, str):
        return _usage(loaded)
    scenarios: dict[str, Any] | None = None
    if any(c.audit is not None for _, c in loaded):  # an audit's captures: its scenarios
        corpus = _corpus(args)
        if isinstance(corpus, int):
            return corpus
        scenarios = {s.id: s for s in corpus.scenarios}
    specs, peers_note = scrubber_specs(args.scrubber, with_peers=not args.no_peers)
    leaking: dict[str, list[str]] = {}
    for label, capture in loaded:
        analysis = analyse(capture)
        audited = audited_expectation(capture, scenarios or {})
        if isinstance(audited, str):
            return _usage(f"{label}: capture {capture.name!r}: {audited}")
        verdicts = (judge_all(capture, analysis, specs) if audited is None
                    else judge_audited(capture, *audited, specs))
        print(render_capture(label, capture, analysis, verdicts))
        print()
        for v in verdicts:
            if v.leaks:
                leaking.setdefault(v.scrubber, []).append(capture.name)
    print(f"peers: {peers_note}")
    print(f"{len(loaded)} capture(s), {len(specs)} scrubber(s): "
          + ("no scrubber leaks" if not leaking else "leaks: " + "; ".join(
              f"{spec} on {', '.join(names)}" for spec, names in leaking.items())))
    return 1 if leaking else 0


# ------------------------------------------------------------------ import
def _import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("captures", nargs="+", type=Path, metavar="CAPTURE",
                   help="capture files, or saved SSE text")
    p.add_argument("--id", metavar="ID",
                   help="scenario id (default: gw- and the capture name); with several "
                        "captures, -1, -2, … are appended")
    add_out_option(p, "write the YAML here (default: standard output)", metavar="FILE")
    p.add_argument("--skip-failed", action="store_true",
                   help="import the complete captures and list the failed ones, instead of "
                        "refusing the whole import")


def _import(args: argparse.Namespace) -> int:
    from scrubcheck.corpus import load_corpus
    from scrubcheck.corpus.yamlwriter import corpus_yaml as scenarios_yaml
    from scrubcheck.gateway.classify import analyse
    from scrubcheck.gateway.importer import refusal, scenario_item, slug

    loaded = _load_all(args.captures)
    if isinstance(loaded, str):
        return _usage(loaded)
    complete = []
    verb = "skipped" if args.skip_failed else "cannot import"
    for label, capture in loaded:
        reason = refusal(capture)
        if reason is None:
            complete.append((label, capture))
        else:
            print(f"scrubcheck gateway import: {verb} capture {capture.name!r} ({label}): "
                  f"{reason}", file=sys.stderr)
    failed = len(loaded) - len(complete)
    if failed and not args.skip_failed:
        hint = ", or pass --skip-failed to import the others" if complete else ""
        return _usage(f"{failed} of {len(loaded)} capture(s) incomplete, nothing written; "
                      f"record them again{hint}")
    if not complete:
        return _usage("every capture was skipped, nothing written")
    if failed:
        print(f"scrubcheck gateway import: skipped {failed} failed capture(s)", file=sys.stderr)
    items = []
    for index, (_, capture) in enumerate(complete, start=1):
        base = slug(args.id) if args.id else f"gw-{slug(capture.name)}"
        scenario_id = base if len(complete) == 1 else f"{base}-{index}"
        items.append(scenario_item(capture, analyse(capture), scenario_id))
    text = scenarios_yaml(items)
    with tempfile.TemporaryDirectory() as tmp:  # lint what we wrote, as the corpus will
        probe = Path(tmp) / "gateway-import.yaml"
        probe.write_text(text, encoding="utf-8", errors="backslashreplace")
        errors = load_corpus([probe]).errors
    if args.out:
        args.out.write_text(text, encoding="utf-8", errors="backslashreplace")
        print(f"wrote {len(items)} scenario(s) to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    for error in errors:
        print(f"lint: {error}", file=sys.stderr)
    return 1 if errors else 0


# ------------------------------------------------------------------- serve
def _serve_arguments(p: argparse.ArgumentParser) -> None:
    add_corpus_option(p)
    p.add_argument("--captures", action="append", type=Path, metavar="FILE",
                   help="also serve these captures, as model capture:NAME")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8400, metavar="P",
                   help="port (default 8400; 0 picks a free one)")
    p.add_argument("--chunk-delay", type=float, default=0.0, metavar="S",
                   help="pause S seconds before each chunk (default 0)")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")


def _corpus(args: argparse.Namespace) -> Any:
    """The corpus of --corpus (or the shipped one), its errors printed; or the exit code
    of a usage error when it cannot be found."""
    from scrubcheck.corpus import load_corpus

    try:
        corpus = load_corpus(list(args.corpus) if args.corpus else None)
    except FileNotFoundError as exc:
        return _usage(str(exc))
    for error in corpus.errors:
        print(f"corpus: {error}", file=sys.stderr)
    return corpus


def _serve(args: argparse.Namespace) -> int:
    from scrubcheck.gateway.replay import Catalog
    from scrubcheck.gateway.server import ReplayServer

    corpus = _corpus(args)
    if isinstance(corpus, int):
        return corpus
    captures = _load_all(args.captures or [])
    if isinstance(captures, str):
        return _usage(captures)
    catalog = Catalog(corpus.scenarios, [c for _, c in captures])
    try:
        server = ReplayServer(catalog, args.host, args.port, chunk_delay=args.chunk_delay,
                              log=args.verbose)
    except OSError as exc:
        return _usage(f"cannot listen on {args.host}:{args.port}: {exc}")
    if args.host not in ("127.0.0.1", "::1", "localhost"):
        print(f"warning: listening on {args.host}, not loopback only", file=sys.stderr)
    print(f"replaying {len(catalog.scenarios)} scenarios in {len(catalog.areas)} areas"
          f"{f' and {len(catalog.captures)} captures' if catalog.captures else ''} "
          f"at {server.url}", flush=True)
    print("model = a scenario id, area:NAME (cycles through the area) or capture:NAME; "
          "GET /v1/models lists them; Ctrl-C stops", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


# ------------------------------------------------------------------- audit
def _audit_arguments(p: argparse.ArgumentParser) -> None:
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--gateway", metavar="URL",
                        help="the gateway's OpenAI base URL, as a client is given it (…/v1)")
    target.add_argument("--gateway-name", metavar="NAME[:CONFIG]",
                        help="start a real gateway from its manifest (`scrubcheck gateways "
                             "list`), with the replay server as its upstream, audit it and "
                             "stop it; its key and routing headers come from its manifest")
    p.add_argument("--key-env", "--api-key-env", dest="key_env", metavar="VAR",
                   help="environment variable holding the gateway's API key, sent to "
                        "--gateway (default: OPENAI_API_KEY when the gateway is OpenAI's own "
                        "API, else a placeholder key); the key is never written to reports, "
                        "captures or messages")
    p.add_argument("--route", default="model={id}", metavar="TEMPLATE",
                   help="how a request names the scenario: space-separated terms model=V, "
                        "body.FIELD=V, header:NAME=V, header:NAME=$VAR (the value from the "
                        "environment), where {id} is the scenario's upstream name (default "
                        "model={id}; e.g. model=scrubcheck/{id}, "
                        "'model=replay body.scenario={id}'); quote a value with spaces")
    p.add_argument("--header-env", action="append", default=[], metavar="NAME=VAR",
                   help="send header NAME with the value of environment variable VAR on "
                        "every request (repeatable); reports show $VAR, never the value")
    p.add_argument("--upstream", choices=("inline", "native", "both"), default="both",
                   help="how the upstream sends reasoning: inline in content, natively on "
                        "reasoning_content, or each scenario both ways (default both)")
    p.add_argument("--upstream-url", metavar="URL",
                   help="use this running `scrubcheck gateway serve` as the upstream instead "
                        "of starting one")
    p.add_argument("--upstream-port", type=int, default=8400, metavar="P",
                   help="port of the replay server the audit starts on 127.0.0.1, where the "
                        "gateway is configured to send requests (default 8400; 0 picks one)")
    add_selection_options(p)
    add_jobs_option(p, "requests in flight at once", default=2)
    add_timeout_option(p, 60.0, "give up on a request when no data arrives for S seconds "
                       "(default 60)")
    p.add_argument("--request-timeout", type=float, default=300.0, metavar="S",
                   help="wall-clock seconds a whole request may take, keep-alive comments "
                        "and trickled bytes included (default 300)")
    p.add_argument("--slow", type=float, default=10.0, metavar="S",
                   help="a request that finished but took longer than S seconds is counted "
                        "as slow in the timing column (default 10)")
    p.add_argument("--stream-only", action="store_true",
                   help="skip the non-streaming request for each scenario")
    p.add_argument("--label", metavar="NAME", help="the gateway's name in the reports")
    p.add_argument("--cache", action="store_true",
                   help="answer each request from the gateway's stored answers (with "
                        "--gateway-name: its product, installed version and configuration, "
                        "these options and what the request sends), request only the rest, "
                        "and judge every answer afresh; the folder is answers/ in "
                        "scrubcheck's user cache, safe to delete")
    add_out_option(p, "write audit.{md,html,json,junit.xml} there (--out alone: "
                      "reports/gateway-audit/<label>/)", optional=True, old=("--report-dir",))
    add_progress_option(p)
    add_shard_option(p, help="audit only the K-th of N parts of the selected scenarios (a "
                             "stable hash of the scenario id, as `run --shard`), so N jobs "
                             "audit a gateway side by side, each scenario exactly once")


def _audit(args: argparse.Namespace) -> int:
    from scrubcheck.gateway.audit_report import summary_lines

    if args.jobs < 1:
        return _usage("--jobs must be at least 1")
    for flag, value in (("--timeout", args.timeout),
                        ("--request-timeout", args.request_timeout), ("--slow", args.slow)):
        if not value > 0:
            return _usage(f"{flag} must be positive")
    if not 0 <= args.upstream_port <= 65535:
        return _usage(f"--upstream-port {args.upstream_port} is not a TCP port (0 to 65535; "
                      "0 picks a free one)")
    for flag, url in (("--gateway", args.gateway), ("--upstream-url", args.upstream_url)):
        problem = None if url is None else _url_problem(url)
        if problem is not None:
            return _usage(f"{flag} {url!r}: {problem}")
    if args.cache and not args.gateway_name:
        return _usage("--cache needs --gateway-name: a gateway at a URL has no version the "
                      "cache could be keyed by, so another gateway (or another version) at "
                      "the same URL would get this one's results")
    if args.cache and args.upstream_url:
        return _usage("--cache needs the replay server the audit starts, not --upstream-url: "
                      "another upstream may play another corpus than the one cached")
    try:
        options = _audit_options(args)
        corpus = _corpus(args)
        if isinstance(corpus, int):
            return corpus
        scenarios = _audit_scenarios(args, corpus)
        if not scenarios:  # an empty shard: nothing of this part to audit
            return 0
        progress = None if args.no_progress else _AuditProgress(
            len(scenarios) * len(options.shapes))
        with ExitStack() as stack:  # the upstream and the progress bar end however it ends
            if progress is not None:
                stack.callback(progress.close)
            upstream = _audit_upstream(stack, args, corpus, scenarios)
            result = _audit_gateway(args, scenarios, options, upstream, progress)
    except _AuditUsage as exc:
        return _usage(str(exc))
    for line in summary_lines(result):
        print(line)
    _write_audit(args, result)
    return result.exit_code()


class _AuditUsage(Exception):
    """A usage error found while preparing or starting an audit: exit 2 with its text."""


def _url_problem(url: str) -> str | None:
    """Why `url` is no base URL a client can be given (None: it is one): without a
    scheme, `localhost:4999` parses as scheme `localhost`, and every request fails as
    if the connection broke."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port out of range)
    except ValueError as exc:
        return f"not a URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an http:// or https:// URL with a host (e.g. http://127.0.0.1:4000/v1)"
    return None


def _header_env(values: list[str]) -> dict[str, str]:
    """--header-env NAME=VAR terms as {NAME: VAR}."""
    table: dict[str, str] = {}
    for value in values:
        name, sep, variable = value.partition("=")
        if not sep or not name or not variable:
            raise _AuditUsage(f"--header-env {value!r} is not NAME=VAR")
        table[name] = variable.removeprefix("$")
    return table


def _audit_options(args: argparse.Namespace) -> AuditOptions:
    """The audit's settings from the command line: route, key (never printed), shapes."""
    from scrubcheck.gateway.audit import AuditOptions
    from scrubcheck.gateway.recorder import DEFAULT_KEY_ENV, MissingKey, api_key
    from scrubcheck.gateway.route import Route, RouteError
    from scrubcheck.gateway.upstream import Shape

    try:
        route = Route.parse(args.route, header_env=_header_env(args.header_env))
        key, key_note = api_key(args.key_env, args.gateway)
    except (RouteError, MissingKey) as exc:
        raise _AuditUsage(str(exc)) from exc
    if not args.gateway_name:
        print(f"scrubcheck gateway audit: {key_note}", file=sys.stderr)
    shapes = tuple(Shape) if args.upstream == "both" else (Shape(args.upstream),)
    return AuditOptions(
        route=route, shapes=shapes, api_key=key,
        key_env=args.key_env or (DEFAULT_KEY_ENV if key else None), jobs=args.jobs,
        timeout=args.timeout, budget=args.request_timeout, slow=args.slow,
        non_streaming=not args.stream_only, label=args.label,
        corpus=tuple(str(p) for p in args.corpus or ()))


def _audit_scenarios(args: argparse.Namespace, corpus: Corpus) -> list[Scenario]:
    """The selected scenarios, and of them this shard's part (which may be empty)."""
    from scrubcheck.corpus import select

    scenarios = select(corpus.scenarios, areas=args.area, rules=args.rule,
                       features=args.feature, ids=args.id)
    given = {flag: values for flag, values in (("--area", args.area), ("--rule", args.rule),
                                               ("--feature", args.feature), ("--id", args.id))
             if values}
    if not scenarios:
        each = "; ".join(
            f"{flag} {' '.join(values)} alone: "
            f"{len(select(corpus.scenarios, **{_FILTERS[flag]: values}))}"
            for flag, values in given.items())
        raise _AuditUsage(
            f"no scenario matches the selection ({len(corpus.scenarios)} loaded"
            + (f"; the filters intersect, and {each} match" if len(given) > 1 else "") + ")")
    if len(given) > 1:
        print(f"selection: {len(scenarios)} scenarios match every one of "
              f"{', '.join(given)} (the filters intersect)", file=sys.stderr)
    if args.shard is not None:
        selected, scenarios = len(scenarios), args.shard.pick(scenarios)
        print(f"shard {args.shard}: {len(scenarios)} of the {selected} selected scenarios",
              file=sys.stderr)
    return scenarios


_FILTERS = {"--area": "areas", "--rule": "rules", "--feature": "features", "--id": "ids"}


def _audit_upstream(stack: ExitStack, args: argparse.Namespace, corpus: Corpus,
                    scenarios: list[Scenario]) -> Any:
    """The replay server the gateway sends to: the one of --upstream-url after checking
    it serves these scenarios, else one started here and stopped with `stack`."""
    from scrubcheck.gateway.audit import check_upstream, replay_upstream

    if args.upstream_url:
        problem = check_upstream(args.upstream_url, scenarios)
        if problem:
            raise _AuditUsage(problem)
        return args.upstream_url
    try:
        upstream = stack.enter_context(
            replay_upstream(corpus.scenarios, port=args.upstream_port))
    except OSError as exc:
        raise _AuditUsage(
            f"cannot start the upstream on 127.0.0.1:{args.upstream_port}: {exc} (choose "
            "another with --upstream-port, or run one and pass --upstream-url)") from exc
    print(f"upstream: replay server at {upstream.url}: the gateway must send chat "
          f"completions there; it asks for models like {scenarios[0].id} and "
          f"{scenarios[0].id}:native (a provider prefix such as openai/ is ignored)",
          file=sys.stderr, flush=True)
    return upstream


def _audit_gateway(args: argparse.Namespace, scenarios: list[Scenario], options: AuditOptions,
                   upstream: Any, progress: _AuditProgress | None) -> AuditResult:
    """Audit the gateway at --gateway, or start the one named by --gateway-name from its
    manifest, audit it and stop it."""
    from scrubcheck.gateway.audit import audit

    if not args.gateway_name:
        return audit(args.gateway, scenarios, options, upstream=upstream, progress=progress)
    from scrubcheck.gateway.products import GatewayError, GatewayManifestError
    from scrubcheck.gateway.products.audited import audit_named

    cache = None
    if args.cache:
        from scrubcheck.runner.cache import ResultCache

        cache = ResultCache()  # its folder holds the stored answers (gateway/answers.py)
    try:
        return audit_named(args.gateway_name, scenarios, options, upstream=upstream,
                           progress=progress,
                           say=lambda line: print(line, file=sys.stderr, flush=True),
                           cache=cache)
    except (GatewayError, GatewayManifestError) as exc:
        raise _AuditUsage(str(exc)) from exc


def _write_audit(args: argparse.Namespace, result: AuditResult) -> None:
    """The audit's reports, when --out asks for them: under its directory, or under
    reports/gateway-audit/<label>/ for a bare --out; a named gateway's file stem says
    which gateway and configuration."""
    if args.out is None:
        return
    from scrubcheck.gateway.audit_report import write_audit_reports
    from scrubcheck.gateway.importer import slug

    report_dir = Path(args.out or Path("reports") / "gateway-audit" / slug(result.label))
    stem = "audit"
    if args.gateway_name:
        from scrubcheck.gateway.products.audited import report_stem

        stem = report_stem(args.gateway_name)
    for path in write_audit_reports(result, report_dir, stem):
        print(f"report: {path}")


class _AuditProgress:
    """How far the audit has got, on stderr: a bar on a terminal, a line at each tenth
    in a log (a CI log that stays quiet for minutes looks hung)."""

    def __init__(self, total: int) -> None:
        self.total, self.finished, self.failed, self.step = total, 0, 0, 0
        self.bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="stream", file=sys.stderr, dynamic_ncols=True,
                            desc="gateway audit")

    def __call__(self, audited) -> None:
        self.finished += 1
        self.failed += audited.failed
        if self.bar is not None:
            self.bar.update(1)
            if audited.failed:
                self.bar.set_postfix_str(f"{audited.scrubbed.value}/{audited.raw.value}: "
                                         f"{audited.name}"[:40])
            return
        step = 10 * self.finished // max(self.total, 1)
        if step > self.step:
            self.step = step
            print(f"scrubcheck: {self.finished}/{self.total} scenario streams audited, "
                  f"{self.failed} failing", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
