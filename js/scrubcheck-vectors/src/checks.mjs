// The data-only checks of docs/vectors.md, each on one output (strings in, verdicts out).

import { points } from "./vectors.mjs";

const WHITESPACE = new Set([" ", "\t", "\r", "\n"]);

// The first canary window in `output` (only windows live at `cut`, when given), or null.
export function leak(vector, output, window, cut = null) {
  if (!output) return null;
  for (const { text, at } of vector.reasoning) {
    const r = points(text);
    const width = Math.min(window, r.length);
    for (let k = 0; k + width <= r.length; k++) {
      if (cut !== null && at !== null && at + k + width > cut) break; // later ones later still
      const piece = r.slice(k, k + width).join("");
      if (output.includes(piece)) return piece;
    }
  }
  return null;
}

const fold = (text) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

// R-TAG-1 from the data: true (fails), false (holds) or null (needs SPEC's code reading).
export function tagVerdict(vector, output, tags) {
  const expect = vector.expect ?? {};
  if (output === expect.visible || (expect.acceptable ?? []).includes(output)) return false;
  const folded = fold(output);
  const found = tags.map((tag) => folded.indexOf(tag)).filter((i) => i >= 0);
  if (!found.length) return false;
  const code = [output.indexOf("`"), output.indexOf("~")].filter((i) => i >= 0);
  const firstCode = code.length ? Math.min(...code) : output.length;
  return Math.min(...found) < firstCode ? true : null;
}

const squeeze = (text) => points(text).filter((c) => !WHITESPACE.has(c)).join("");

// R-WS-1: `got` equals `expected` but for the whitespace runs around the removal points.
export function wsEqual(expectedText, gotText, cuts) {
  const expected = points(expectedText);
  const got = points(gotText);
  const runs = [];
  for (const c of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (c < 0 || c > expected.length) continue;
    let start = c;
    let end = c;
    while (start > 0 && WHITESPACE.has(expected[start - 1])) start--;
    while (end < expected.length && WHITESPACE.has(expected[end])) end++;
    if (start === end) continue;
    const last = runs[runs.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(end, last[1]);
    else runs.push([start, end]);
  }
  let i = 0;
  let j = 0;
  const same = (a, b, length) => {
    for (let n = 0; n < length; n++) if (expected[a + n] !== got[b + n]) return false;
    return b + length <= got.length;
  };
  for (const [start, end] of runs) {
    if (!same(i, j, start - i)) return false;
    j += start - i;
    let k = j;
    while (k < got.length && WHITESPACE.has(got[k])) k++;
    if (k === j && !(start === 0 || end === expected.length)) return false;
    i = end;
    j = k;
  }
  return got.length - j === expected.length - i && same(i, j, expected.length - i);
}

const common = (a, b) => {
  const x = points(a);
  const y = points(b);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
};

// [rule, level-or-null] of a mismatch with the expected output; null when it matches.
export function expectedMismatch(vector, output) {
  const expect = vector.expect;
  if (expect === null) return null;
  let nearest;
  if (expect.acceptable) {
    if (expect.acceptable.includes(output)) return null;
    nearest = expect.acceptable.reduce((best, a) => {
      const score = common(a, output);
      const top = common(best, output);
      return score > top || (score === top && points(a).length < points(best).length) ? a : best;
    });
  } else {
    nearest = expect.visible;
    if (output === nearest || (expect.cuts !== null && wsEqual(nearest, output, expect.cuts))) {
      return null;
    }
  }
  if (expect.should_rule) return [expect.should_rule, "SHOULD"];
  return [squeeze(nearest) === squeeze(output) ? "R-WS-1" : "R-FID-1", null];
}
