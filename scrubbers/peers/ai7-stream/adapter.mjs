// Vercel AI SDK 7, extractReasoningMiddleware through streamText (see ai_sdk_peer.mjs).
import { serveAiSdk } from "../ai_sdk_peer.mjs";

await serveAiSdk("stream");
