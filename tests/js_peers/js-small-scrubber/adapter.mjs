// The example scrubber small-scrubber of js/scrubcheck-vectors, as a peer (see ../serve_example.mjs).
import scrubber from "../../../js/scrubcheck-vectors/examples/small-scrubber.mjs";
import { servePeer } from "../serve_example.mjs";

await servePeer(scrubber);
