"""`scrubcheck gateway`: record, classify and replay OpenAI-compatible streams.

    gateway record --base-url URL --model M [--api-key-env VAR] [--prompt T | --prompts F]
    gateway record --from-sse FILE...        saved `data:` text -> capture file
    gateway check CAPTURE... [--scrubber SPEC]...
    gateway import CAPTURE... [--id ID] [--out FILE]
    gateway serve [--corpus DIR] [--captures FILE] [--port P]

Exit codes: record 0, or 1 when a stream failed (the capture is written
anyway); check 1 when any scrubber leaks; import 1 when the scenario does not
lint, 2 when a capture is incomplete (failed, or cut without a finish) and
nothing is written unless --skip-failed; 2 on usage errors everywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from scrubcheck.gateway.capture import Capture, CaptureFileError, write_captures

NAME = "gateway"
HELP = "record, classify (check), import and replay OpenAI-compatible chat streams"


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


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "gateway_command", None)
    if action is None:
        return _usage("choose an action: record, check, import or serve "
                      "(scrubcheck gateway ACTION --help)")
    return {"record": _record, "check": _check, "import": _import, "serve": _serve}[action](args)


def _usage(message: str) -> int:
    print(f"scrubcheck gateway: {message}", file=sys.stderr)
    return 2


# ------------------------------------------------------------------ record
def _record_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible base URL (…/v1)")
    p.add_argument("--model", action="append", metavar="M",
                   help="model name to request; repeat to record several models "
                        "(each with every prompt)")
    p.add_argument("--api-key-env", metavar="VAR",
                   help="name of the environment variable holding the API key (default: "
                        "OPENAI_API_KEY when set, else a placeholder key; the key is never "
                        "written to captures, logs or messages)")
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
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="give up when no data arrives for S seconds (default 120)")
    p.add_argument("--from-sse", nargs="+", type=Path, metavar="FILE",
                   help="import saved SSE text (data: lines) instead of recording")
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="capture file to write (default: NAME.capture.json)")


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

    if args.from_sse:
        captures = []
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
        key, key_note = api_key(args.api_key_env)
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
    captures: list[Capture] = []
    with Recorder(args.base_url, api_key=key, timeout=args.timeout) as recorder:
        for model in args.model:
            for index, prompt in enumerate(prompts, start=1):
                messages = ([{"role": "system", "content": args.system}] if args.system
                            else [])
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
    p.add_argument("--scrubber", action="append", metavar="SPEC",
                   help="scrubber spec as for `scrubcheck run`; repeatable "
                        "(default: reference); installed peers are added")
    p.add_argument("--no-peers", action="store_true", help="do not add installed peers")


def _load_all(paths: list[Path]) -> list[tuple[str, Capture]] | str:
    from scrubcheck.gateway.inputs import load_inputs

    loaded = []
    for path in paths:
        try:
            loaded.extend((str(path), c) for c in load_inputs(path))
        except (OSError, CaptureFileError) as exc:
            return str(exc)
    return loaded


def _check(args: argparse.Namespace) -> int:
    from scrubcheck.gateway.classify import analyse
    from scrubcheck.gateway.report import render_capture
    from scrubcheck.gateway.scrubbers import scrubber_specs
    from scrubcheck.gateway.verdicts import judge_all

    loaded = _load_all(args.captures)
    if isinstance(loaded, str):
        return _usage(loaded)
    specs, peers_note = scrubber_specs(args.scrubber, with_peers=not args.no_peers)
    leaking: dict[str, list[str]] = {}
    for label, capture in loaded:
        analysis = analyse(capture)
        verdicts = judge_all(capture, analysis, specs)
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
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="write the YAML here (default: standard output)")
    p.add_argument("--skip-failed", action="store_true",
                   help="import the complete captures and list the failed ones, instead of "
                        "refusing the whole import")


def _import(args: argparse.Namespace) -> int:
    from scrubcheck.corpus import load_corpus
    from scrubcheck.gateway.classify import analyse
    from scrubcheck.gateway.importer import refusal, scenario_item, scenarios_yaml, slug

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
    p.add_argument("--corpus", action="append", type=Path, metavar="PATH",
                   help="corpus file or directory (default: the shipped corpus)")
    p.add_argument("--captures", action="append", type=Path, metavar="FILE",
                   help="also serve these captures, as model capture:NAME")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8400, metavar="P",
                   help="port (default 8400; 0 picks a free one)")
    p.add_argument("--chunk-delay", type=float, default=0.0, metavar="S",
                   help="pause S seconds before each chunk (default 0)")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")


def _serve(args: argparse.Namespace) -> int:
    from scrubcheck.corpus import load_corpus
    from scrubcheck.gateway.replay import Catalog
    from scrubcheck.gateway.server import ReplayServer

    try:
        corpus = load_corpus(list(args.corpus) if args.corpus else None)
    except FileNotFoundError as exc:
        return _usage(str(exc))
    for error in corpus.errors:
        print(f"corpus: {error}", file=sys.stderr)
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
