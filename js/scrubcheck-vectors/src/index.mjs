// scrubcheck-vectors: judge a JS/TS reasoning scrubber over scrubcheck's vectors
// (`scrubcheck export`; docs/vectors.md in the scrubcheck repository is the guide).

export { aiSdkStream, loadAiSdk } from "./ai-sdk.mjs";
export { expectedMismatch, leak, tagVerdict, wsEqual } from "./checks.mjs";
export { feedFlush, middleware, transformStream } from "./drivers.mjs";
export { Canaries, cannotTake, drive, judge } from "./judge.mjs";
export { exitCode, runVectors, shardOf, summary, writeReport } from "./report.mjs";
export { chunkings, cutStream, loadVectors, points, VectorError } from "./vectors.mjs";
