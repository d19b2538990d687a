// The data-only checks on hand-made inputs, each able to fail.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Canaries, chunkings, cutStream, expectedMismatch, tagVerdict, wsEqual } from "../src/index.mjs";

const vector = (over = {}) => ({
  deltas: ["<think>", "secret plan", "</think>", "Answer 😀."],
  reasoning: [{ text: "secret plan", at: 7 }],
  expect: { visible: "Answer 😀.", cuts: [0], should_rule: null },
  chunkings: [{ name: "recorded" }, { name: "whole" }, { name: "char" }, { name: "recorded+empty" },
              { kind: "splits", at: [3] }, { name: "fixed-10", size: 10 },
              { name: "random-1", lengths: [0, 30, 0, 6] }],
  ...over,
});

test("chunkings count code points and rebuild the text", () => {
  const v = vector();
  const text = v.deltas.join("");
  const seen = new Map(chunkings(v));
  for (const deltas of seen.values()) assert.equal(deltas.join(""), text);
  assert.equal(seen.get("char").length, Array.from(text).length); // the emoji is one delta
  assert.deepEqual(seen.get("split@3"), ["<th", text.slice(3)]);
  assert.deepEqual(seen.get("random-1").slice(0, 1), [""]);
  assert.equal(seen.get("recorded+empty").length, 9);
});

test("a cut stream keeps whole deltas, then the head of the cut one", () => {
  assert.deepEqual(cutStream(["ab", "", "cd"], 2), ["ab", ""]);
  assert.deepEqual(cutStream(["ab", "cd"], 3), ["ab", "c"]);
  assert.deepEqual(cutStream(["😀x", "y"], 1), ["😀"]);
});

test("a canary window leaks only once the cut stream carried it", () => {
  const canaries = new Canaries(vector(), 8);
  const out = Array.from("Answer: secret p");
  assert.equal(canaries.find(out), "secret p");
  assert.equal(canaries.find(out, 0, 14), null); // the window ends at 15 in the input
  assert.equal(canaries.find(out, 0, 15), "secret p");
  assert.equal(canaries.find(Array.from("Answer.")), null);
});

test("R-WS-1 lets whitespace change only at removal points", () => {
  assert.ok(wsEqual("A\n\nB", "A\nB", [2]));
  assert.ok(!wsEqual("A\n\nB", "AB", [2])); // inside the output it may not vanish
  assert.ok(wsEqual(" B", "B", [0])); // at the start it may
  assert.ok(!wsEqual("A B", "A  B", [])); // no removal point: exact
  assert.ok(!wsEqual("AB", "A B", [1])); // nothing inserted where there was no whitespace
  assert.ok(!wsEqual("A\nB", "A\nBC", [1]));
});

test("an expected-output mismatch is R-WS-1 or R-FID-1, or the SHOULD rule", () => {
  assert.equal(expectedMismatch(vector(), "Answer 😀."), null);
  assert.deepEqual(expectedMismatch(vector(), "Answer😀."), ["R-WS-1", null]);
  assert.deepEqual(expectedMismatch(vector(), "Answer."), ["R-FID-1", null]);
  const should = vector({ expect: { visible: "x", cuts: null, should_rule: "R-VOCAB-4" } });
  assert.deepEqual(expectedMismatch(should, "y"), ["R-VOCAB-4", "SHOULD"]);
  const either = vector({ expect: { acceptable: ["a", "b"], should_rule: null } });
  assert.equal(expectedMismatch(either, "b"), null);
  assert.deepEqual(expectedMismatch(either, "c"), ["R-FID-1", null]);
});

test("R-TAG-1 is decided where no code can stand before the tag", () => {
  const tags = ["<think>", "</think>"];
  assert.equal(tagVerdict(vector(), "plain <THINK> text", tags), true);
  assert.equal(tagVerdict(vector(), "no tag here", tags), false);
  assert.equal(tagVerdict(vector(), "`<think>`", tags), null);
  assert.equal(tagVerdict(vector(), "<think> then `code`", tags), true);
});

test("a 1 MiB emission is recorded whole (no argument-spread limit)", async () => {
  const { drive } = await import("../src/index.mjs");
  const big = "x".repeat(1 << 20);
  const run = await drive({ feed: async () => [big], flush: async () => [""] }, ["d"]);
  assert.ok(run.ok);
  assert.equal(run.text.length, 1 << 20);
});
