// Each scrubber shape over the committed vectors (test/vectors: `scrubcheck export
// --area blocks --area split-tags`), and the report it gives.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import naive from "../examples/naive-regex.mjs";
import small, { SELECTION } from "../examples/small-scrubber.mjs";
import { feedFlush, middleware, runVectors, transformStream } from "../src/index.mjs";

const VECTORS = fileURLToPath(new URL("./vectors", import.meta.url));
const failing = (report) => report.results.filter((r) => !["PASS", "UNSUPPORTED"].includes(r.outcome));
const leaking = (report) => report.results.filter((r) => r.failures.some((f) => f.check === "leak"));

test("the naive per-delta regex is caught leaking", async () => {
  const report = await runVectors(naive, VECTORS);
  assert.ok(leaking(report).length > 20, `${leaking(report).length} leaking`);
  assert.ok(report.results.some((r) => r.failures.some((f) => f.check === "truncation")));
});

test("the small scrubber passes its selection, and fails outside it", async () => {
  const report = await runVectors(small, VECTORS, { ids: SELECTION });
  assert.deepEqual(failing(report).map((r) => r.scenario_id), []);
  assert.equal(report.counts.PASS, SELECTION.length);
  const all = await runVectors(small, VECTORS);
  assert.ok(failing(all).length > 0);
  assert.deepEqual(report.settings.vector_checks.not_run.sort(),
                   ["holdback", "isolation", "linear", "timeout"]);
});

// The small scrubber's object as a TransformStream and as an AI SDK middleware: the
// same verdicts, without R-REUSE-1 (neither can be fed again after it ends).
const smallObject = async (context) => (await small.open(context));

test("a TransformStream and a middleware get the object's verdicts", async () => {
  const asStream = transformStream(async (context) => {
    const session = await smallObject(context);
    return new TransformStream({
      async transform(chunk, controller) { for (const v of await session.feed(chunk)) if (v) controller.enqueue(v); },
      async flush(controller) { for (const v of await session.flush()) if (v) controller.enqueue(v); },
    });
  }, { accepts: ["starts_in_reasoning"], name: "small as TransformStream" });
  const asMiddleware = middleware(async (context) => ({
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      const session = await smallObject(context);
      return {
        ...rest,
        stream: stream.pipeThrough(new TransformStream({
          async transform(part, controller) {
            const emit = (values) => values.forEach((v) => v && controller.enqueue(
              { type: "text-delta", id: "t0", delta: v }));
            if (part.type === "text-delta") emit(await session.feed(part.delta));
            else {
              if (part.type === "text-end") emit(await session.flush());
              controller.enqueue(part);
            }
          },
        })),
      };
    },
  }), { accepts: ["starts_in_reasoning"], name: "small as middleware" });
  const object = await runVectors(small, VECTORS);
  for (const other of [asStream, asMiddleware]) {
    const report = await runVectors(other, VECTORS);
    const verdicts = (r) => r.results.map((x) => [x.scenario_id, x.failures.map((f) => f.check)
      .filter((c) => c !== "reuse").sort().join(",")]);
    assert.deepEqual(verdicts(report), verdicts(object), other.name);
    assert.ok(report.results.some((r) => r.outcome === "FAIL"));
    assert.ok(report.settings.vector_checks.not_run.includes("reuse"));
  }
});

test("a scrubber that raises is ERROR, one returning non-strings fails R-ROBUST-1", async () => {
  const raising = feedFlush(() => ({ feed: () => { throw new Error("boom"); }, flush: () => "" }));
  const report = await runVectors(raising, VECTORS, { ids: ["blocks-mid-line"] });
  assert.equal(report.results[0].outcome, "ERROR");
  const numbers = feedFlush(() => ({ feed: () => 1, flush: () => "" }));
  const typed = await runVectors(numbers, VECTORS, { ids: ["blocks-mid-line"] });
  assert.ok(typed.results[0].failures.some((f) => f.check === "type" && f.rule === "R-ROBUST-1"));
});

test("a scenario needing context the scrubber cannot take is UNSUPPORTED", async () => {
  const report = await runVectors(naive, VECTORS, { ids: ["blocks-after-prefill-second-block"] });
  assert.equal(report.results[0].outcome, "UNSUPPORTED");
  assert.match(report.results[0].reason, /starts_in_reasoning/);
});

// A set exported with --claim lists the scenarios beyond its class in the manifest: each
// is a BEYOND CLAIM row of the report (shown and counted, never passed), as in run --claim.
test("the scenarios beyond a set's class are BEYOND CLAIM rows, never dropped", async () => {
  const { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "beyond-"));
  try {
    cpSync(VECTORS, dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    const where = { area: "x", rules: ["R-BLOCK-1"], file: "x.yaml", line: 3, description: "d" };
    manifest.class = "think";
    manifest.beyond = [{ id: "x-other-tag", reason: "holds '<thought>'", ...where },
                       { id: "x-caller-delimiters", reason: "configures caller delimiters", ...where }];
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    const report = await runVectors(small, dir);
    const beyond = report.results.filter((r) => r.outcome === "BEYOND CLAIM");
    assert.deepEqual(beyond.map((r) => [r.scenario_id, r.reason]),
                     manifest.beyond.map((b) => [b.id, b.reason]));
    assert.equal(report.counts["BEYOND CLAIM"], 2);
    assert.equal(report.settings.conformance_class, "think");
    assert.equal(report.results.length, manifest.count + 2);
    const one = await runVectors(small, dir, { ids: ["x-other-tag", SELECTION[0]] });
    assert.deepEqual(one.results.map((r) => r.outcome).sort(), ["BEYOND CLAIM", "PASS"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
