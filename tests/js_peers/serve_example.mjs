// Serves a scrubber made with scrubcheck-vectors (feedFlush) over scrubcheck's peer
// protocol, so that `scrubcheck run` judges the very object the JS runner judges
// (tests/test_vectors_js.py compares the two verdict for verdict).
import { serve } from "../../scrubbers/peers/peerloop.mjs";

export async function servePeer(scrubber) {
  await serve(async (context) => {
    const session = await scrubber.open(context);
    const one = (values) => (values.length === 1 ? values[0] : values.join(""));
    return { feed: async (delta) => one(await session.feed(delta)),
             flush: async () => one(await session.flush()) };
  }, "stream");
}
