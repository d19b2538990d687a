// A small streaming scrubber that is right on a small selection: blocks of the default
// tag family (<think>, <thinking>, <reasoning>, <thought>, <scratch_pad>,
// <reasoning_scratchpad>, ASCII case-insensitive) split anywhere across deltas. It
// holds back an end of text that may grow into a tag, drops a block that never closes
// and takes a pre-filled <think> (`starts_in_reasoning`). It has no code guard and no
// other vocabulary, so it passes only SELECTION (test/examples.test.mjs checks both).

import { feedFlush } from "scrubcheck-vectors";

const NAMES = ["think", "thinking", "reasoning", "thought", "scratch_pad", "reasoning_scratchpad"];
const TAGS = NAMES.flatMap((n) => [`<${n}>`, `</${n}>`]);
const LONGEST = Math.max(...TAGS.map((t) => t.length));
const TAG = new RegExp(`<(/?)(${[...NAMES].sort((a, b) => b.length - a.length).join("|")})>`, "i");

// Scenarios this scrubber handles: blocks and tags split across deltas, nothing more.
export const SELECTION = [
  "blocks-two-blocks-answer-between", "blocks-back-to-back", "blocks-three-in-one-line",
  "blocks-empty-pair", "blocks-repeated-open-split", "blocks-unclosed-at-end-strict",
  "blocks-long-multiline-reasoning", "split-open-right-after-lt", "split-close-inside-name",
  "split-one-char-per-delta-uppercase-thinking", "split-thought-mixed-case-pair",
  "split-partial-open-at-end-of-stream", "split-multibyte-umlauts-and-emoji-after-close",
  "split-alternating-case-tags",
];

class SmallScrubber {
  constructor({ starts_in_reasoning: prefilled = false } = {}) {
    this.held = "";
    this.inBlock = prefilled;
  }

  // How much of the end of `text` could still become a tag.
  static partial(text) {
    for (let size = Math.min(text.length, LONGEST - 1); size > 0; size--) {
      const end = text.slice(-size).toLowerCase();
      if (TAGS.some((t) => t.startsWith(end))) return size;
    }
    return 0;
  }

  feed(delta) {
    this.held += delta;
    let out = "";
    for (let match = TAG.exec(this.held); match; match = TAG.exec(this.held)) {
      if (!this.inBlock) out += this.held.slice(0, match.index);
      this.inBlock = match[1] !== "/";
      this.held = this.held.slice(match.index + match[0].length);
    }
    const keep = SmallScrubber.partial(this.held);
    if (!this.inBlock) out += this.held.slice(0, this.held.length - keep);
    this.held = this.held.slice(this.held.length - keep);
    return out;
  }

  flush() {
    const out = this.inBlock ? "" : this.held;
    this.held = "";
    this.inBlock = false;
    return out;
  }
}

export default feedFlush((context) => new SmallScrubber(context),
                         { name: "small-scrubber", accepts: ["starts_in_reasoning"] });
