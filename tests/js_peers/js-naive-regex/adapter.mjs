// The example scrubber naive-regex of js/scrubcheck-vectors, as a peer (see ../serve_example.mjs).
import scrubber from "../../../js/scrubcheck-vectors/examples/naive-regex.mjs";
import { servePeer } from "../serve_example.mjs";

await servePeer(scrubber);
