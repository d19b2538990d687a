// Loaded with `node --import` before Portkey's start script, which starts its server with
// serve({fetch, port}) and no host, so that Node would listen on every interface. Here a
// listen() given a port and no host binds 127.0.0.1 instead; nothing else changes.
import net from "node:net";

const LOOPBACK = "127.0.0.1";
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (args.length === 1 || typeof args[1] === "function") {
      args.splice(1, 0, LOOPBACK);
    } else if (args[1] === undefined || args[1] === null) {
      args[1] = LOOPBACK;
    }
  } else if (first && typeof first === "object" && first.path === undefined && !first.host) {
    args[0] = { ...first, host: LOOPBACK };
  }
  return listen.apply(this, args);
};
