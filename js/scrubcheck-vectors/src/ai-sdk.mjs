// The Vercel AI SDK's extractReasoningMiddleware, judged natively. Three paths:
//
//   via "wrapStream" (default): the middleware's own wrapStream over a model stream of
//     text-delta parts (the `middleware` driver of drivers.mjs): the scrubber alone;
//   via "streamText": as an application uses it, wrapLanguageModel over a mock model of
//     `ai/test`, read through streamText's fullStream, as the matrix's protocol peers
//     (scrubbers/peers/ai6-stream, ai7-stream) do, at about 9x the cost per stream;
//   via "generateText": the batch path, wrapGenerate through generateText over a mock
//     model whose one text part is the whole stream, as ai6-generate/ai7-generate drive
//     it: the deltas are held until flush(), which returns the answer text.
//
// Either way each delta is a text-delta part followed by a raw marker part; what comes
// back before the marker is that delta's output. tests/test_vectors_js.py holds both to
// the protocol rows' verdicts. The `ai` package is the caller's (`loadAiSdk(dir)` reads
// it from DIR/node_modules/ai): this package depends on none.

import { describe, middleware } from "./drivers.mjs";

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

async function load(root, subpath) {
  const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const entry = meta.exports[subpath];
  const file = typeof entry === "string" ? entry : entry.import ?? entry.default;
  return import(pathToFileURL(join(root, file)).href);
}

export async function loadAiSdk(dir) {
  const root = join(dir, "node_modules", "ai");
  const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  return { ai: await load(root, "."), test: await load(root, "./test"), version };
}

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const FINISH = { unified: "stop", raw: "stop" };

// What the middleware's users can configure (the peers' manifests say the same): one
// pair; AI SDK 6 only a tag name N, matched as <N> and </N>.
function tagName(delimiters, major) {
  if (delimiters.length === 0) return { name: "think" };
  const pairs = delimiters.filter((d) => d.marker === undefined);
  if (pairs.length !== delimiters.length) return { refused: "its users can configure no markers" };
  if (pairs.length > 1) return { refused: `its users can configure at most 1 pair, this stream's delimiters have ${pairs.length}` };
  const [pair] = pairs;
  const name = pair.open.slice(1, -1);
  if (name && pair.open === `<${name}>` && pair.close === `</${name}>`) return { name };
  if (major < 7) return { refused: `it takes a tag name N and matches <N> and </N>; the pair ${JSON.stringify(pair.open)} ${JSON.stringify(pair.close)} is not of that form` };
  return { name: { opening: pair.open, closing: pair.close } };
}

export function aiSdkStream({ ai, test, version }, { via = "wrapStream" } = {}) {
  const Mock = test.MockLanguageModelV4 ?? test.MockLanguageModelV3;
  const major = Number(version.split(".")[0]);
  const refuse = (context) => tagName(context.delimiters ?? [], major).refused ?? null;
  const accepts = ["starts_in_reasoning", "delimiters"];
  if (via === "wrapStream") {
    const made = (context) => ai.extractReasoningMiddleware({
      tagName: tagName(context.delimiters ?? [], major).name,
      startWithReasoning: Boolean(context.starts_in_reasoning) });
    const spec = new Mock({}).specificationVersion;
    return { ...middleware(made, { accepts, specificationVersion: spec,
                                   name: `ai@${version} extractReasoningMiddleware` }),
             refuse };
  }
  if (via === "generateText") return aiSdkGenerate({ ai, test, version }, refuse, accepts);
  if (via !== "streamText") {
    throw new Error(`via must be wrapStream, streamText or generateText, not ${via}`);
  }
  const open = async (context) => {
    const tag = tagName(context.delimiters ?? [], major);
    if (tag.refused) throw new Error(tag.refused);
    let controller;
    const source = new ReadableStream({ start: (c) => { controller = c; } });
    const mock = new Mock({ doStream: async () => ({ stream: source }) });
    const model = ai.wrapLanguageModel({
      model: mock,
      middleware: ai.extractReasoningMiddleware({
        tagName: tag.name, startWithReasoning: Boolean(context.starts_in_reasoning) }),
    });
    const result = ai.streamText({ model, prompt: "scrubcheck", includeRawChunks: true });
    const reader = result.fullStream.getReader();
    controller.enqueue({ type: "stream-start", warnings: [] });
    controller.enqueue({ type: "text-start", id: "t0" });
    let marker = 0;
    const collect = async (until) => {
      const answer = [];
      for (;;) {
        const { value: part, done } = await reader.read();
        if (done) break;
        if (part.type === "raw" && part.rawValue?.scrubcheck === until) break;
        if (part.type === "text-delta") answer.push(part.text ?? part.delta ?? "");
        else if (part.type === "error") throw part.error instanceof Error ? part.error : new Error(String(part.error));
      }
      return [answer.join("")];
    };
    return {
      feed: async (delta) => {
        marker += 1;
        controller.enqueue({ type: "text-delta", id: "t0", delta });
        controller.enqueue({ type: "raw", rawValue: { scrubcheck: marker } });
        return collect(marker);
      },
      flush: async () => {
        controller.enqueue({ type: "text-end", id: "t0" });
        controller.enqueue({ type: "finish", finishReason: FINISH, usage: USAGE });
        controller.close();
        return collect(null);
      },
    };
  };
  return { ...describe("middleware", `ai@${version} extractReasoningMiddleware (streamText)`,
                       { accepts }, open, false), refuse };
}

// The batch path: a session that holds the deltas and runs generateText once at flush().
// A batch scrubber sees only the whole text, so every chunking of a scenario gives it the
// same input: its answer is kept per scenario context and text, and generateText runs
// once per distinct text (the whole stream and each truncation cut), as the protocol
// row's batch peer is asked once per text. A raised error is never kept.
function aiSdkGenerate({ ai, test, version }, refuse, accepts) {
  const Mock = test.MockLanguageModelV4 ?? test.MockLanguageModelV3;
  const major = Number(version.split(".")[0]);
  const answers = new WeakMap();
  const open = async (context) => {
    if (!answers.has(context)) answers.set(context, new Map());
    const known = answers.get(context);
    const tag = tagName(context.delimiters ?? [], major);
    if (tag.refused) throw new Error(tag.refused);
    let text = "";
    const mock = new Mock({
      doGenerate: async () => ({ content: [{ type: "text", text }], finishReason: FINISH,
                                 usage: USAGE, warnings: [] }),
    });
    const model = ai.wrapLanguageModel({
      model: mock,
      middleware: ai.extractReasoningMiddleware({
        tagName: tag.name, startWithReasoning: Boolean(context.starts_in_reasoning) }),
    });
    const held = [];
    return {
      feed: async (delta) => { held.push(delta); return []; },
      flush: async () => {
        text = held.join("");
        if (!known.has(text)) {
          known.set(text, (await ai.generateText({ model, prompt: "scrubcheck" })).text);
        }
        return [known.get(text)];
      },
    };
  };
  return { ...describe("batch", `ai@${version} extractReasoningMiddleware (generateText)`,
                       { accepts }, open, false), refuse };
}
