// Whether something accepts TCP connections on host:port: how run.mjs and tools/mysql tell that a
// server is up. Plain Node with no dependencies, as it runs before `npm install`.
import { connect } from 'node:net';

export function reachable(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
