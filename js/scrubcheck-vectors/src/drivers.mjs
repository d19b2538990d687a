// The three shapes of scrubber the runner drives, behind one session interface:
// open(context) gives a session whose feed(delta) and flush() each resolve to the list
// of values the scrubber emitted during that call (leaks are looked for after each).
//
//   feedFlush(factory)        factory(context) -> { feed(delta), flush() }, sync or async
//   transformStream(factory)  factory(context) -> a TransformStream of strings
//   middleware(mw)            an AI SDK LanguageModelV2/V3 middleware (or context -> one):
//                             its wrapStream over a model whose stream replays the deltas
//
// `accepts` lists the context keys the factory takes (SPEC R-CTX-1): a scenario that
// needs another is UNSUPPORTED, never passed. `features` the vocabularies it supports.

const pick = (context, keys) => Object.fromEntries(keys.map((k) => [k, context[k]]));

export function describe(kind, name, options, open, reusable) {
  return {
    kind,
    name: options.name ?? name,
    accepts: [...(options.accepts ?? [])],
    features: [...(options.features ?? [])],
    reusable,
    open,
  };
}

export function feedFlush(factory, options = {}) {
  return describe("object", factory.name || "feed/flush scrubber", options, async (context) => {
    const scrubber = await factory(pick(context, options.accepts ?? []));
    return {
      feed: async (delta) => [await scrubber.feed(delta)],
      flush: async () => [await scrubber.flush()],
    };
  }, true);
}

// Lets the other side of a stream run until nothing more happens (or `until()` holds).
async function settle(until = () => false, turns = 20) {
  for (let idle = 0; idle < turns && !until(); idle++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

// Reads a ReadableStream into a list, so each call can take what came out meanwhile.
function collector(readable, onPart) {
  const state = { error: null, done: false };
  const reader = readable.getReader();
  state.finished = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        onPart(value);
      }
    } catch (error) {
      state.error = error;
    } finally {
      state.done = true;
    }
  })();
  return state;
}

export function transformStream(factory, options = {}) {
  return describe("transform", factory.name || "TransformStream", options, async (context) => {
    const stream = await factory(pick(context, options.accepts ?? []));
    const emitted = [];
    const state = collector(stream.readable, (chunk) => emitted.push(chunk));
    const writer = stream.writable.getWriter();
    const take = () => {
      if (state.error) throw state.error;
      return emitted.splice(0);
    };
    return {
      feed: async (delta) => {
        await writer.write(delta); // resolved once transform() has run
        await settle(() => false, 1); // and the collector has read what it enqueued
        return take();
      },
      flush: async () => {
        await writer.close();
        await state.finished;
        return take();
      },
    };
  }, false);
}

const V3_FINISH = {
  finishReason: { unified: "stop", raw: "stop" },
  usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
           outputTokens: { total: 1, text: 1, reasoning: 0 } },
};
const FINISH = {
  v2: { finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
  v4: V3_FINISH,
  v3: {
    finishReason: { unified: "stop", raw: "stop" },
    usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
             outputTokens: { total: 1, text: 1, reasoning: 0 } },
  },
};

// An AI SDK middleware: its wrapStream gets a model stream of text-delta parts, one per
// delta, each followed by a raw marker part; what it emits before the marker comes back
// is that delta's output. Reasoning parts are the scrubber's other channel, not output.
export function middleware(mw, options = {}) {
  const version = options.specificationVersion ?? "v2";
  const label = options.name ?? "AI SDK middleware";
  return describe("middleware", label, options, async (context) => {
    const chosen = typeof mw === "function" ? await mw(pick(context, options.accepts ?? []))
      : mw;
    let controller;
    const source = new ReadableStream({ start: (c) => { controller = c; } });
    const model = {
      specificationVersion: version, provider: "scrubcheck", modelId: "vectors",
      supportedUrls: {},
      doGenerate: async () => { throw new Error("the vectors runner streams only"); },
      doStream: async () => ({ stream: source }),
    };
    const params = { prompt: [], includeRawChunks: true };
    const { stream } = chosen.wrapStream
      ? await chosen.wrapStream({ doStream: model.doStream, doGenerate: model.doGenerate,
                                  params, model })
      : await model.doStream();
    const emitted = [];
    let marker = 0;
    let seen = 0;
    const state = collector(stream, (part) => {
      if (part.type === "raw" && part.rawValue?.scrubcheck !== undefined) {
        seen = part.rawValue.scrubcheck;
      } else if (part.type === "text-delta") {
        emitted.push(part.delta ?? part.text ?? part.textDelta);
      } else if (part.type === "error") {
        state.error = part.error instanceof Error ? part.error : new Error(String(part.error));
      }
    });
    const take = () => {
      if (state.error) throw state.error;
      return emitted.splice(0);
    };
    controller.enqueue({ type: "stream-start", warnings: [] });
    controller.enqueue({ type: "text-start", id: "t0" });
    return {
      feed: async (delta) => {
        marker += 1;
        controller.enqueue({ type: "text-delta", id: "t0", delta });
        controller.enqueue({ type: "raw", rawValue: { scrubcheck: marker } });
        await settle(() => seen >= marker || state.done, 1000);
        return take();
      },
      flush: async () => {
        controller.enqueue({ type: "text-end", id: "t0" });
        controller.enqueue({ type: "finish", ...FINISH[version] ?? FINISH.v2 });
        controller.close();
        await state.finished;
        return take();
      },
    };
  }, false);
}
