// A run over a vector set as report.json (suite/reports/report.schema.json), the file
// `scrubcheck merge`, `diff` and `matrix --add-report` read. settings.vector_checks says
// which checks ran and which need the harness, so no reader takes this PASS for more.

import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { judge } from "./judge.mjs";
import { loadVectors } from "./vectors.mjs";

const RAN = ["exception", "type", "leak", "tag", "expected", "invariance", "idempotence",
             "truncation", "reuse"];

// The 1-based shard of `count` a scenario id belongs to (scrubcheck's --shard K/N).
export function shardOf(id, count) {
  const digest = createHash("sha256").update(id, "utf8").digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(count)) + 1;
}

function parseShard(text) {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text ?? "");
  const [index, count] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (!match || count < 1 || index < 1 || index > count) {
    throw new Error(`shard ${JSON.stringify(text)}: expected K/N with 1 <= K <= N, e.g. 2/5`);
  }
  return { index, count };
}

// A scenario beyond the set's class (manifest.beyond): shown and counted, as scrubcheck
// run --claim shows it, never passed and never failed.
function beyondRow(entry) {
  const { id, reason, ...where } = entry;
  return { ...where, scenario_id: id, outcome: "BEYOND CLAIM", failures: [], reason,
           chunkings_run: 0, checks_run: 0, holdback: null, duration_s: 0, capped: {},
           notes: [], metrics: {} };
}

export async function runVectors(scrubber, dir, { ids, shard, version = "",
                                                  onResult = () => {} } = {}) {
  const started = new Date();
  const clock = performance.now();
  const { manifest, vectors } = loadVectors(dir, { ids });
  const part = shard ? parseShard(shard) : null;
  const positions = [];
  const results = [];
  for (const [position, vector] of vectors.entries()) {
    if (part && shardOf(vector.id, part.count) !== part.index) continue;
    positions.push(position);
    const result = await judge(vector, scrubber, manifest);
    results.push(result);
    onResult(result);
  }
  const wanted = ids ? new Set(ids) : null;
  for (const entry of manifest.beyond ?? []) {
    if (wanted && !wanted.has(entry.id)) continue;
    if (part && shardOf(entry.id, part.count) !== part.index) continue;
    const row = beyondRow(entry);
    results.push(row);
    onResult(row);
  }
  const counts = {};
  for (const r of results) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  const ran = RAN.filter((c) => c !== "reuse" || scrubber.reusable);
  return {
    $schema: "urn:scrubcheck:report:1",
    format_version: 1,
    scrubber: scrubber.name,
    scrubber_kind: "stream",
    supported_features: [...scrubber.features].sort(),
    accepted_context: [...scrubber.accepts].sort(),
    spec_version: manifest.spec_version,
    scrubcheck_version: "scrubcheck-vectors (js)",
    started_at: started.toISOString().replace(/\.\d+Z$/, "+00:00"),
    duration_s: Math.round(performance.now() - clock) / 1000,
    settings: {
      seed: manifest.seed,
      corpus_digest: manifest.corpus_digest,
      conformance_class: manifest.class ?? "generic",
      vectors_format: manifest.format_version,
      implementation_version: version,
      shard: part ? `${part.index}/${part.count}` : null,
      selection: { scenarios: vectors.length, positions: part ? positions : null },
      vector_checks: {
        ran,
        not_run: [...Object.keys(manifest.checks.harness), ...(scrubber.reusable ? [] : ["reuse"])],
        kind: scrubber.kind,
      },
    },
    results,
    corpus_errors: [],
    scrubber_checks: [],
    counts,
  };
}

export function writeReport(report, path) {
  writeFileSync(path, JSON.stringify(report, null, 1) + "\n", "utf8");
}

// Exit code as scrubcheck run's at level must: 1 when a scenario fails a MUST rule.
export function exitCode(report) {
  return report.results.some((r) => r.outcome === "ERROR" ||
    (r.outcome === "FAIL" && r.failures.some((f) => f.level === "MUST"))) ? 1 : 0;
}

export function summary(report) {
  const leaks = report.results.filter((r) => r.failures.some(
    (f) => f.check === "leak" || f.rule === "R-LEAK-1" || f.rule === "R-TRUNC-1")).length;
  const counts = Object.entries(report.counts).sort().map(([k, v]) => `${k} ${v}`).join(", ");
  return `${counts}; ${leaks} scenario(s) leak reasoning`;
}
