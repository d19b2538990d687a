#!/usr/bin/env node
// scrubcheck-vectors VECTOR_DIR MODULE [--export NAME] [--out report.json] [--id ID]...
//                    [--ids-file FILE] [--shard K/N] [--jsonl]
//
// MODULE exports (default, or NAME) a scrubber made with feedFlush, transformStream or
// middleware from this package. Prints the counts; exit 1 when a MUST rule fails, 2 on
// a usage error (a bad vector set, a module without the scrubber).
//
// --jsonl is for a harness that watches the run (scrubcheck's matrix, which judges the AI
// SDK rows this way): stdout gets {"ready": NAME} once the scrubber is loaded, one line
// {"result": ...} per scenario as soon as it is judged, then {"report": ...} (the report
// without its results), and the counts go to stderr. A harness that sees no line for its
// per-scenario timeout, or the process die, knows which scenario it was on and starts
// again after it; one that dies before "ready" cannot judge anything (a package whose API
// the driver does not fit), which no restart mends.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { aiSdkStream, loadAiSdk } from "./ai-sdk.mjs";
import { exitCode, runVectors, summary, writeReport } from "./report.mjs";

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { export: { type: "string", default: "default" }, out: { type: "string" },
                 "ai-sdk": { type: "string" }, version: { type: "string", default: "" },
                 via: { type: "string", default: "wrapStream" },
                 id: { type: "string", multiple: true }, "ids-file": { type: "string" },
                 shard: { type: "string" }, jsonl: { type: "boolean", default: false } },
    });
  } catch (error) {
    console.error(`scrubcheck-vectors: ${error.message}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const aiSdk = values["ai-sdk"];
  if (positionals.length !== (aiSdk ? 1 : 2)) {
    console.error("usage: scrubcheck-vectors VECTOR_DIR MODULE [--export NAME] [--out FILE] " +
                  "[--id ID]... [--shard K/N]\n" +
                  "       scrubcheck-vectors VECTOR_DIR --ai-sdk DIR (DIR/node_modules/ai: " +
                  "its extractReasoningMiddleware; --via wrapStream|streamText|generateText)");
    return 2;
  }
  const [dir, module] = positionals;
  let scrubber;
  let report;
  try {
    const loaded = aiSdk ? { default: aiSdkStream(await loadAiSdk(aiSdk), { via: values.via }) }
      : await import(pathToFileURL(resolve(module)).href);
    scrubber = loaded[values.export];
    if (!scrubber?.open) {
      throw new Error(`${module}: export ${values.export} is not a scrubber made with ` +
                      "feedFlush, transformStream or middleware");
    }
    if (values.jsonl) process.stdout.write(JSON.stringify({ ready: scrubber.name }) + "\n");
    const listed = values["ids-file"]
      ? readFileSync(values["ids-file"], "utf8").split("\n").filter(Boolean) : [];
    const ids = values.id || values["ids-file"] ? [...(values.id ?? []), ...listed] : undefined;
    const onResult = values.jsonl
      ? (result) => process.stdout.write(JSON.stringify({ result }) + "\n") : undefined;
    report = await runVectors(scrubber, dir, { ids, shard: values.shard,
                                               version: values.version, onResult });
  } catch (error) {
    console.error(`scrubcheck-vectors: ${error.message}`);
    return 2;
  }
  if (values.out) writeReport(report, values.out);
  if (values.jsonl) {
    const { results, ...rest } = report;
    process.stdout.write(JSON.stringify({ report: rest }) + "\n");
    console.error(`${scrubber.name}: ${summary(report)}`);
  } else {
    console.log(`${scrubber.name}: ${summary(report)}`);
  }
  return exitCode(report);
}

process.exitCode = await main();
