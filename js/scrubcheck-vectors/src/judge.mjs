// One scenario judged over its vector: every chunking, the truncation cuts, the re-scrub
// and (for objects) reuse, with the checks docs/vectors.md lists as judged from the data.

import { expectedMismatch, tagVerdict } from "./checks.mjs";
import { chunkings, cutStream, points, range } from "./vectors.mjs";

// The canaries' windows, each with the input position where it was complete (R-TRUNC-1).
export class Canaries {
  constructor(vector, window) {
    this.live = new Map();
    this.widths = new Set();
    for (const { text, at } of vector.reasoning) {
      const r = points(text);
      const width = Math.min(window, r.length);
      this.widths.add(width);
      for (let k = 0; k + width <= r.length; k++) {
        const piece = r.slice(k, k + width).join("");
        const live = at === null ? 0 : at + k + width;
        if (!this.live.has(piece) || live < this.live.get(piece)) this.live.set(piece, live);
      }
    }
  }

  get any() {
    return this.live.size > 0;
  }

  // The first window ending at a code point after `from` of `output` (live at `cut`).
  find(output, from = 0, cut = null) {
    for (let end = from + 1; end <= output.length; end++) {
      for (const width of this.widths) {
        if (end < width) continue;
        const live = this.live.get(output.slice(end - width, end).join(""));
        if (live !== undefined && (cut === null || live <= cut)) return output.slice(end - width, end).join("");
      }
    }
    return null;
  }
}

// One stream through a fresh session: every value emitted, the call it came in, the
// first exception, the first non-string, and the first leak seen after a call.
export async function drive(session, deltas, canaries = null, cut = null) {
  const run = { deltas, output: [], text: "", error: null, bad: null, leak: null, ok: false };
  const record = (values, call, step) => {
    for (const value of values) {
      let text = value;
      if (typeof value !== "string") {
        run.bad ??= `${call} emitted ${value === null ? "null" : typeof value}, not a string`;
        text = value === null || value === undefined ? "" : String(value);
      }
      const before = run.output.length;
      for (const point of points(text)) run.output.push(point); // no spread: outputs reach 1 MiB
      if (canaries && run.leak === null) {
        const found = canaries.find(run.output, Math.max(0, before), cut);
        if (found !== null) run.leak = { text: found, step };
      }
    }
  };
  const call = async (name, step, thunk) => {
    try {
      record(await thunk(), name, step);
      return true;
    } catch (error) {
      run.error = `${name} raised ${error?.name ?? "an error"}: ${error?.message ?? error}`;
      return false;
    }
  };
  for (let i = 0; i < deltas.length; i++) {
    if (!(await call(`feed() of delta ${i}`, i, () => session.feed(deltas[i])))) break;
  }
  if (run.error === null && (await call("flush()", null, () => session.flush()))) run.ok = true;
  run.text = run.output.join("");
  return run;
}

async function fresh(scrubber, context, deltas, canaries = null, cut = null) {
  let session;
  try {
    session = await scrubber.open(context);
  } catch (error) {
    return { deltas, output: [], text: "", error: `opening raised ${error?.message ?? error}`,
             bad: null, leak: null, ok: false };
  }
  return drive(session, deltas, canaries, cut);
}

export function cannotTake(scrubber, keys, features = []) {
  const missing = keys.filter((k) => !scrubber.accepts.includes(k));
  if (missing.length) return `cannot receive context ${missing.join(", ")}`;
  const absent = features.filter((f) => !scrubber.features.includes(f));
  if (absent.length) return `does not support feature(s) ${absent.join(", ")}`;
  return null;
}

class Findings {
  constructor(levels, id) {
    this.levels = levels;
    this.id = id;
    this.byKey = new Map();
    this.checks = 0;
  }

  fail(check, rule, chunking, deltas, detail, { level = null, expected = null, got = null,
                                                step = null } = {}) {
    const key = `${check} ${rule}`;
    if (this.byKey.has(key)) {
      this.byKey.get(key).similar += 1;
      return;
    }
    this.byKey.set(key, {
      check, rule, level: level ?? this.levels[rule] ?? "MUST", chunking, deltas: [...deltas],
      detail, expected, got, step,
      replay: `scrubcheck show ${this.id} --chunking ${chunking}`, similar: 0,
    });
  }

  robust(run, name, prefix = "") {
    if (run.error !== null) this.fail("exception", "R-ROBUST-1", name, run.deltas, prefix + run.error);
    if (run.bad !== null) this.fail("type", "R-ROBUST-1", name, run.deltas, prefix + run.bad);
  }
}

export async function judge(vector, scrubber, manifest) {
  const started = performance.now();
  const result = {
    scenario_id: vector.id, area: vector.area, rules: vector.rules, file: vector.file,
    line: vector.line, description: vector.description, outcome: "PASS", failures: [],
    reason: null, chunkings_run: 0, checks_run: 0, holdback: null, duration_s: 0,
    capped: { ...vector.capped }, notes: [], metrics: {},
  };
  const done = () => {
    result.duration_s = Math.round(performance.now() - started) / 1000;
    return result;
  };
  const unsupported = cannotTake(scrubber, vector.requires, vector.context.features) ??
    scrubber.refuse?.(vector.context) ?? null;
  if (unsupported) {
    result.outcome = "UNSUPPORTED";
    result.reason = `${scrubber.name}: ${unsupported}`;
    return done();
  }
  const findings = new Findings(manifest.levels, vector.id);
  const canaries = new Canaries(vector, manifest.window);
  const tags = manifest.vocabularies[vector.vocabulary];
  const outputs = [];
  let tagsNotJudged = 0;
  for (const [name, deltas] of chunkings(vector)) {
    const run = await fresh(scrubber, vector.context, deltas, canaries);
    result.chunkings_run += 1;
    findings.checks += 1;
    findings.robust(run, name);
    if (canaries.any) {
      findings.checks += 1;
      if (run.leak) {
        findings.fail("leak", "R-LEAK-1", name, deltas, `reasoning ${JSON.stringify(run.leak.text)} ` +
                      `visible ${run.leak.step === null ? "at flush()" : `after feed() of delta ${run.leak.step}`}`,
                      { got: run.text, step: run.leak.step });
      }
    }
    if (!run.ok) continue;
    outputs.push([name, run.text]);
    findings.checks += 1;
    const tagged = tagVerdict(vector, run.text, tags);
    if (tagged === null) tagsNotJudged += 1;
    else if (tagged) findings.fail("tag", "R-TAG-1", name, deltas, "a tag of the vocabulary outside code", { got: run.text });
    if (vector.expect !== null) {
      findings.checks += 1;
      const mismatch = expectedMismatch(vector, run.text);
      if (mismatch) {
        findings.fail("expected", mismatch[0], name, deltas, "the output is not the expected output",
                      { level: mismatch[1], expected: vector.expect.visible ?? null, got: run.text });
      }
    }
  }
  if (tagsNotJudged) {
    result.notes.push(`R-TAG-1 not judged on ${tagsNotJudged} output(s): a tag after a backtick ` +
                      "or tilde needs SPEC's code reading (scrubcheck run judges it)");
  }
  if (outputs.length > 1) {
    findings.checks += 1;
    const base = outputs.find(([name]) => name === "whole") ?? outputs[0];
    for (const [name, text] of outputs) {
      if (text !== base[1]) {
        findings.fail("invariance", "R-CHUNK-1", name, [], `${name} and ${base[0]} give different outputs`,
                      { expected: base[1], got: text });
      }
    }
  }
  if (cannotTake(scrubber, vector.rescrub.requires)) {
    result.notes.push("R-IDEM-1 not checked: the scrubber cannot take the re-scrub context");
  } else {
    const seen = new Set();
    for (const [name, text] of outputs) {
      if (seen.has(text)) continue;
      seen.add(text);
      findings.checks += 1;
      const again = await fresh(scrubber, vector.rescrub.context, [text]);
      findings.robust(again, name, "re-scrubbing the output: ");
      if (again.ok && again.text !== text) {
        findings.fail("idempotence", "R-IDEM-1", name, [text], "scrubbing the output again changed it",
                      { expected: text, got: again.text });
      }
    }
  }
  await truncations(vector, scrubber, findings, canaries, result);
  if (scrubber.reusable) await reuse(vector, scrubber, manifest, findings, outputs);
  else result.notes.push(`R-REUSE-1 not checked: a ${scrubber.kind} is not fed again after flush`);
  result.failures = [...findings.byKey.values()];
  result.checks_run = findings.checks;
  const error = result.failures.find((f) => f.check === "exception");
  if (error) {
    result.outcome = "ERROR";
    result.reason = `the scrubber raised under ${error.chunking}: ${error.detail}`;
  } else if (result.failures.length) result.outcome = "FAIL";
  else if (findings.checks === 0) {
    result.outcome = "ERROR";
    result.reason = "no check ran";
  }
  return done();
}

async function truncations(vector, scrubber, findings, canaries, result) {
  const spec = vector.truncation;
  const text = points(vector.deltas.join(""));
  const cuts = spec.cuts === "every" ? range(0, text.length) : spec.cuts;
  let skipped = 0;
  for (const cut of cuts) {
    const keys = cut > 0 && text[cut - 1] === "`" ? spec.requires_after_backtick : spec.requires;
    if (cannotTake(scrubber, keys)) {
      skipped += 1;
      continue;
    }
    const name = `trunc@${cut}`;
    const deltas = cutStream(vector.deltas, cut);
    const run = await fresh(scrubber, spec.context, deltas, canaries, cut);
    findings.checks += 1;
    findings.robust(run, name);
    if (run.leak) {
      findings.fail("truncation", "R-TRUNC-1", name, deltas,
                    `reasoning ${JSON.stringify(run.leak.text)} visible after the cut`,
                    { got: run.text, step: run.leak.step });
    } else if (run.text && (spec.undecided ?? []).some(([a, b]) => a <= cut && cut <= b)) {
      findings.fail("truncation", "R-SKIP-2", name, deltas,
                    "text showed while the pre-filled block was undecided", { expected: "", got: run.text });
    }
  }
  if (skipped) result.notes.push(`${skipped} truncation cut(s) not checked (UNSUPPORTED)`);
}

async function reuse(vector, scrubber, manifest, findings, outputs) {
  const recorded = outputs.find(([name]) => name === "recorded");
  if (!recorded) return;
  for (const [poison, text] of Object.entries(manifest.poisons)) {
    const name = `reuse:${poison}`;
    let session;
    try {
      session = await scrubber.open(vector.context);
    } catch {
      continue; // the fresh runs reported it already
    }
    findings.checks += 1;
    const first = await drive(session, [text]);
    findings.robust(first, name);
    if (!first.ok) continue;
    const second = await drive(session, [...vector.deltas]);
    findings.robust(second, name);
    if (second.ok && second.text !== recorded[1]) {
      findings.fail("reuse", "R-REUSE-1", name, vector.deltas,
                    `after the poison ${poison} the same object scrubs differently`,
                    { expected: recorded[1], got: second.text });
    }
  }
}
