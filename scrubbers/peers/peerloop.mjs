// The scrubcheck peer protocol (v1), served over stdin/stdout: the node side.
//
// Same messages as peerloop.py (docs/protocol.md). `serve(openStream, kind)`
// answers requests one JSON object per line; `openStream(context)` returns an
// object whose feed(delta) and flush() may be async and return a string, or a
// [reasoning, answer] pair for the splitter kinds. Batch kinds return a
// function of the whole text instead. Whatever the scrubber returns or throws
// is reported, never trusted.

import { createInterface } from "node:readline";

const KINDS = ["stream", "batch", "stream-splitter", "batch-splitter"];

// Keep stdout for protocol lines: anything the package logs goes to stderr.
const protocolOut = process.stdout.write.bind(process.stdout);
console.log = console.info = console.debug = (...args) => console.error(...args);

function encode(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  let shown;
  try { shown = JSON.stringify(value) ?? String(value); } catch { shown = String(value); }
  return { nonstr: { type: value?.constructor?.name ?? typeof value, repr: shown.slice(0, 200),
                     text: String(value) } };
}

function raised(error, call, step) {
  const err = error instanceof Error ? error : new Error(String(error));
  const frame = (err.stack ?? "").split("\n").find((line) => line.includes("at ")) ?? "";
  return { call, step, type: err.name ?? "Error", message: String(err.message).slice(0, 300),
           where: frame.trim(), traceback: err.stack ?? String(err) };
}

class Buffered {
  constructor(fn) { this.fn = fn; this.parts = []; }
  feed(delta) { this.parts.push(delta); return ""; }
  flush() { const text = this.parts.join(""); this.parts = []; return this.fn(text); }
}

export class Loop {
  constructor(openStream, kind, pkg = null, version = null) {
    if (!KINDS.includes(kind)) throw new Error(`kind must be one of ${KINDS}`);
    Object.assign(this, { openStream, kind, pkg, version, streams: new Map() });
  }

  async build(context) {
    const made = await this.openStream(context ?? {});
    return this.kind.startsWith("batch") ? new Buffered(made) : made;
  }

  async call(obj, method, arg) {
    let value = method === "feed" ? await obj.feed(arg) : await obj.flush();
    if (this.kind.endsWith("splitter") && Array.isArray(value) && value.length === 2) {
      const [reasoning, answer] = value;
      return [encode(answer), reasoning == null ? "" : String(reasoning)];
    }
    return [encode(value), ""];
  }

  async runOne(obj, deltas, flush) {
    const returns = [], reasoning = [];
    for (let step = 0; step < deltas.length; step++) {
      try {
        const [out, channel] = await this.call(obj, "feed", deltas[step]);
        returns.push(out); reasoning.push(channel);
      } catch (error) {
        return { returns, reasoning, raised: raised(error, "feed", step) };
      }
    }
    if (flush) {
      try {
        const [out, channel] = await this.call(obj, "flush");
        returns.push(out); reasoning.push(channel);
      } catch (error) {
        return { returns, reasoning, raised: raised(error, "flush", null) };
      }
    }
    return { returns, reasoning, raised: null };
  }

  async op(request) {
    switch (request.op) {
      case "hello":
        return { protocol: 1, kind: this.kind, package: this.pkg, version: this.version,
                 language: `node ${process.versions.node}`, ops: ["streams"] };
      case "start":
        try { this.streams.set(request.stream, await this.build(request.context)); }
        catch (error) { return { raised: raised(error, "open", null) }; }
        return { raised: null };
      case "feed":
      case "flush": {
        const obj = this.streams.get(request.stream);
        if (!obj) throw new Error(`no stream ${request.stream}: send start first`);
        try {
          const [output, reasoning] = await this.call(obj, request.op, request.delta);
          return { output, reasoning, raised: null };
        } catch (error) {
          return { raised: raised(error, request.op, request.op === "feed" ? request.step ?? null : null) };
        }
      }
      case "close":
        this.streams.delete(request.stream);
        return {};
      case "run": {
        let obj = request.stream == null ? undefined : this.streams.get(request.stream);
        if (!obj) {
          try { obj = await this.build(request.context); }
          catch (error) { return { runs: [{ returns: [], reasoning: [], raised: raised(error, "open", null) }] }; }
          if (request.stream != null) this.streams.set(request.stream, obj);
        }
        const runs = [];
        for (const run of request.runs) {
          runs.push(await this.runOne(obj, run.deltas, run.flush ?? true));
          if (runs.at(-1).raised) break;
        }
        return { runs };
      }
      case "streams": {
        // several independent streams in one round trip, each on a fresh object, flushed
        const runs = [];
        for (const deltas of request.streams) {
          let obj;
          try { obj = await this.build(request.context); }
          catch (error) { runs.push({ returns: [], reasoning: [], raised: raised(error, "open", null) }); continue; }
          runs.push(await this.runOne(obj, deltas, true));
        }
        return { runs };
      }
      case "time": {
        // CPU time of this process (user + system), as the Python loop measures.
        let obj;
        try { obj = await this.build(request.context); }
        catch (error) { return { raised: raised(error, "open", null) }; }
        const { text, size, budget } = request;
        const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
        const start = cpu();
        try {
          for (let i = 0, count = 0; i < text.length; i += size, count++) {
            await obj.feed(text.slice(i, i + size));
            if (budget != null && count % 1024 === 0 && cpu() - start > budget) {
              return { seconds: cpu() - start, abandoned: true, raised: null };
            }
          }
          await obj.flush();
        } catch (error) {
          return { raised: raised(error, "feed", null) };
        }
        return { seconds: cpu() - start, abandoned: false, raised: null };
      }
      default:
        throw new Error(`unknown op ${JSON.stringify(request.op)}`);
    }
  }

  async handle(request) {
    const id = request?.id ?? null;
    try {
      for (const stream of request.close ?? []) this.streams.delete(stream);
      return { ...(await this.op(request)), id, ok: true };
    } catch (error) {
      return { id, ok: false, error: { type: error?.name ?? "Error", message: String(error?.message ?? error) } };
    }
  }
}

export async function serve(openStream, kind, pkg = null, version = null) {
  const loop = new Loop(openStream, kind, pkg, version);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let response;
    try {
      response = await loop.handle(JSON.parse(line));
    } catch (error) {
      response = { id: null, ok: false, error: { type: "BadJSON", message: String(error) } };
    }
    protocolOut(JSON.stringify(response) + "\n");
  }
}
