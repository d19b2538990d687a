// A naive scrubber, as seen in the field: a regular expression over each delta alone.
// It forgets that a streamed <think> block spans many deltas, so the runner must catch
// it leaking (test/examples.test.mjs checks that it does).

import { feedFlush } from "scrubcheck-vectors";

class NaiveRegexScrubber {
  feed(delta) {
    return delta.replace(/<think>[\s\S]*?<\/think>/gi, "");
  }

  flush() {
    return "";
  }
}

export default feedFlush(() => new NaiveRegexScrubber(), { name: "naive-regex" });
