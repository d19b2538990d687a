// Copy into your project's tests: your scrubber over scrubcheck's vectors, one test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runVectors, summary } from "scrubcheck-vectors";
import scrubber from "./small-scrubber.mjs"; // yours: feedFlush / transformStream / middleware

test("the scrubber passes scrubcheck's vectors", async () => {
  const only = process.env.SCRUBCHECK_IDS?.split(",");
  const report = await runVectors(scrubber, process.env.SCRUBCHECK_VECTORS ?? "vectors", { ids: only });
  const failed = report.results.filter((r) => r.outcome === "FAIL" || r.outcome === "ERROR");
  assert.deepEqual(failed.map((r) => r.scenario_id), [], summary(report));
});
