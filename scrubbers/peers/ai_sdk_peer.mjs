// Shared by the Vercel AI SDK peers: extractReasoningMiddleware, driven the way an
// application uses it, through wrapLanguageModel and streamText / generateText
// over a mock model from `ai/test` that replays the deltas.
//
// Streaming: each delta is a text-delta chunk of the mock's stream, followed
// by a raw marker chunk; everything streamText emits before the marker comes
// back through fullStream is that delta's output, so hold-back is measured per
// delta. flush() sends text-end and finish and drains the stream. The `ai`
// package is loaded from the peer's environment ($SCRUBCHECK_PEER_ENV).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { serve } from "./peerloop.mjs";

const env = process.env.SCRUBCHECK_PEER_ENV;

async function load(subpath) {
  const root = join(env, "node_modules", "ai");
  const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const entry = meta.exports[subpath];
  const file = typeof entry === "string" ? entry : entry.import ?? entry.default;
  return import(pathToFileURL(join(root, file)).href);
}

function meta() {
  const ai = JSON.parse(readFileSync(join(env, "node_modules", "ai", "package.json"), "utf8"));
  return ai.version;
}

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const FINISH = { unified: "stop", raw: "stop" };

// The middleware's tagName as its users write it: "think" by default; a caller's
// one pair (context `delimiters`, SPEC R-CUSTOM-1) replaces it, as the name N when
// the pair is <N> and </N> (both versions), else as { opening, closing } (AI SDK 7
// only; the AI SDK 6 manifest lets only <N> pairs through). Markers or several pairs
// are refused here too, should a stream slip past the manifest's [delimiters] limits.
function tagName(context) {
  const delimiters = context.delimiters ?? [];
  if (delimiters.length === 0) return "think";
  const [pair] = delimiters;
  if (delimiters.length > 1 || pair.open === undefined) {
    throw new Error(`extractReasoningMiddleware takes one pair, not ${JSON.stringify(delimiters)}`);
  }
  const name = pair.open.slice(1, -1);
  if (name && pair.open === `<${name}>` && pair.close === `</${name}>`) return name;
  return { opening: pair.open, closing: pair.close };
}

export async function serveAiSdk(mode) {
  const ai = await load(".");
  const test = await load("./test");
  const Mock = test.MockLanguageModelV4 ?? test.MockLanguageModelV3;

  function middleware(context) {
    return ai.extractReasoningMiddleware({ tagName: tagName(context),
                                           startWithReasoning: Boolean(context.starts_in_reasoning) });
  }

  class Stream {
    constructor(context) {
      this.source = null;
      const mock = new Mock({ doStream: async () => ({ stream: this.source }) });
      this.model = ai.wrapLanguageModel({ model: mock, middleware: middleware(context) });
      this.reader = null;
      this.marker = 0;
    }

    begin() {
      this.source = new ReadableStream({ start: (c) => { this.controller = c; } });
      const result = ai.streamText({ model: this.model, prompt: "scrubcheck", includeRawChunks: true });
      this.reader = result.fullStream.getReader();
      this.controller.enqueue({ type: "stream-start", warnings: [] });
      this.controller.enqueue({ type: "text-start", id: "t0" });
    }

    async collect(until) {
      const answer = [], reasoning = [];
      for (;;) {
        const { value: part, done } = await this.reader.read();
        if (done) break;
        if (part.type === "raw" && part.rawValue?.scrubcheck === until) break;
        if (part.type === "text-delta") answer.push(part.text ?? part.delta ?? "");
        else if (part.type === "reasoning-delta") reasoning.push(part.text ?? part.delta ?? "");
        else if (part.type === "error") throw part.error instanceof Error ? part.error : new Error(String(part.error));
      }
      return [reasoning.join(""), answer.join("")];
    }

    async feed(delta) {
      if (this.reader === null) this.begin();
      this.marker += 1;
      this.controller.enqueue({ type: "text-delta", id: "t0", delta });
      this.controller.enqueue({ type: "raw", rawValue: { scrubcheck: this.marker } });
      return this.collect(this.marker);
    }

    async flush() {
      if (this.reader === null) this.begin();
      this.controller.enqueue({ type: "text-end", id: "t0" });
      this.controller.enqueue({ type: "finish", finishReason: FINISH, usage: USAGE });
      this.controller.close();
      const out = await this.collect(null);
      this.reader = null;  // the next feed() is a new streamText call on the same model
      return out;
    }
  }

  function generate(context) {
    let text = "";
    const mock = new Mock({
      doGenerate: async () => ({ content: [{ type: "text", text }], finishReason: FINISH,
                                 usage: USAGE, warnings: [] }),
    });
    const model = ai.wrapLanguageModel({ model: mock, middleware: middleware(context) });
    return async (whole) => {
      text = whole;
      const result = await ai.generateText({ model, prompt: "scrubcheck" });
      return [result.reasoningText ?? "", result.text];
    };
  }

  if (mode === "stream") await serve((context) => new Stream(context), "stream-splitter", "ai", meta());
  else await serve(generate, "batch-splitter", "ai", meta());
}
