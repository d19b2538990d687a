// xsAI's extractReasoningStream (@xsai/utils-reasoning), driven as its docs show: the
// model's text stream goes in as a ReadableStream<string>, and the reasoningStream and
// textStream it returns are read to their end. Each delta is enqueued on the input
// stream; the package's pipe processes it within the same turn of the event loop, so
// after one macrotask everything it wrote for that delta has reached the two readers.
// flush() closes the input and waits for both outputs to close. The options are its
// tagName ("think", or a caller's pair <N> </N> as N, which replaces it) and
// startWithReasoning (the context's starts_in_reasoning); separator keeps its default.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { serve } from "../peerloop.mjs";

const NAME = "@xsai/utils-reasoning";
const root = join(process.env.SCRUBCHECK_PEER_ENV, "node_modules", NAME);
const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const entry = meta.exports["."];
const { extractReasoningStream } = await import(
  pathToFileURL(join(root, typeof entry === "string" ? entry : entry.default)).href);

const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

function tagName(context) {
  const delimiters = context.delimiters ?? [];
  if (delimiters.length === 0) return "think";
  const [pair] = delimiters;
  const name = pair.open?.slice(1, -1);
  if (delimiters.length > 1 || !name || pair.open !== `<${name}>` || pair.close !== `</${name}>`) {
    throw new Error(`extractReasoningStream takes one tag name, not ${JSON.stringify(delimiters)}`);
  }
  return name;
}

// Read a stream into `into` in the background; resolves when it closes.
async function drain(stream, into) {
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    into.push(value);
  }
}

class Extraction {
  constructor(context) {
    this.options = { tagName: tagName(context), startWithReasoning: Boolean(context.starts_in_reasoning) };
    this.controller = null;
  }

  begin() {
    const input = new ReadableStream({ start: (c) => { this.controller = c; } });
    const { reasoningStream, textStream } = extractReasoningStream(input, this.options);
    this.reasoning = [];
    this.text = [];
    this.done = Promise.all([drain(reasoningStream, this.reasoning), drain(textStream, this.text)]);
  }

  take() {
    return [this.reasoning.splice(0).join(""), this.text.splice(0).join("")];
  }

  async feed(delta) {
    if (this.controller === null) this.begin();
    this.controller.enqueue(delta);
    await nextMacrotask();
    return this.take();
  }

  async flush() {
    if (this.controller === null) this.begin();
    this.controller.close();
    this.controller = null;  // the next feed() is a new call, as for a new response
    await this.done;
    return this.take();
  }
}

await serve((context) => new Extraction(context), "stream-splitter", NAME, meta.version);
