// Reading a vector set (docs/vectors.md): the manifest, then one vector per line.
// The lines end at "\n" only (U+2028 may stand inside a string), and the file's
// SHA-256 must be the manifest's, so a consumer never judges a set it did not pin.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const FORMAT_VERSION = 1;

export class VectorError extends Error {}

export function loadVectors(dir, { ids } = {}) {
  const manifestPath = join(dir, "manifest.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  if (manifest.format_version !== FORMAT_VERSION) {
    throw new VectorError(`${manifestPath}: format_version ${manifest.format_version}, ` +
                          `this runner reads ${FORMAT_VERSION}`);
  }
  const path = join(dir, "vectors.jsonl");
  const body = readFileSync(path);
  const digest = createHash("sha256").update(body).digest("hex");
  if (digest !== manifest.files["vectors.jsonl"].sha256) {
    throw new VectorError(`${path}: its SHA-256 is not the one in manifest.json`);
  }
  const wanted = ids ? new Set(ids) : null;
  const vectors = [];
  const lines = body.toString("utf8").split("\n");
  lines.pop(); // the text after the last "\n" is empty
  lines.forEach((line, index) => {
    let vector;
    try {
      vector = JSON.parse(line);
    } catch (error) {
      throw new VectorError(`${path}:${index + 1}: ${error.message}`);
    }
    if (!wanted || wanted.has(vector.id)) vectors.push(vector);
  });
  if (wanted) {
    // an id beyond the set's class is known too: the report shows it as BEYOND CLAIM
    const found = new Set([...vectors.map((v) => v.id), ...(manifest.beyond ?? []).map((b) => b.id)]);
    const missing = [...wanted].filter((id) => !found.has(id));
    if (missing.length) throw new VectorError(`${path}: no vector ${missing.join(", ")}`);
  }
  return { manifest, vectors };
}

// Positions count code points: index an array of them, never the UTF-16 string.
export const points = (text) => Array.from(text);

export function* chunkings(vector) {
  const deltas = vector.deltas;
  const text = points(deltas.join(""));
  const piece = (a, b) => text.slice(a, b).join("");
  for (const entry of vector.chunkings) {
    if (entry.kind === "splits") {
      const at = entry.at === "every" ? range(1, text.length - 1) : entry.at;
      for (const k of at) yield [`split@${k}`, [piece(0, k), piece(k, text.length)]];
      continue;
    }
    const { name } = entry;
    if (name === "recorded") yield [name, [...deltas]];
    else if (name === "whole") yield [name, [text.join("")]];
    else if (name === "char") yield [name, [...text]];
    else if (name === "recorded+empty") yield [name, ["", ...deltas.flatMap((d) => [d, ""])]];
    else if (entry.size !== undefined) {
      const out = [];
      for (let i = 0; i < text.length; i += entry.size) out.push(piece(i, i + entry.size));
      yield [name, out];
    } else {
      const out = [];
      let at = 0;
      for (const length of entry.lengths) {
        out.push(piece(at, at + length));
        at += length;
      }
      yield [name, out];
    }
  }
}

export function range(first, last) {
  const out = [];
  for (let i = first; i <= last; i++) out.push(i);
  return out;
}

// The stream cut at `cut`: whole deltas that end by the cut, then the cut one's head.
export function cutStream(deltas, cut) {
  const kept = [];
  let position = 0;
  for (const delta of deltas) {
    const chars = points(delta);
    if (position + chars.length <= cut) {
      kept.push(delta);
      position += chars.length;
      continue;
    }
    if (cut > position) kept.push(chars.slice(0, cut - position).join(""));
    break;
  }
  return kept;
}
