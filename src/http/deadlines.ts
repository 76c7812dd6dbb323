// The deadline a client's request must meet (slowloris), kept per connection. Node keeps its own
// (headersTimeout, requestTimeout) with a timer that runs every connectionsCheckingInterval whether
// a connection is open or not, which woke an idle exporter every second; this one's timers exist
// only while a connection waits for a request.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A connection is closed unless its request's headers have arrived within `ms`: counted from its
 * opening (a TLS one's handshake done, which has a deadline of its own), then from the end of each
 * response, so that neither the headers of a kept-alive connection's next request nor the body of
 * the last one can be trickled in.
 */
export function dropSlowClients(server: Server, ms: number, tls: boolean): void {
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  const arm = (socket: Socket) => {
    clearTimeout(timers.get(socket));
    const timer = setTimeout(() => socket.destroy(), ms);
    timer.unref();
    timers.set(socket, timer);
  };
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    arm(socket);
    socket.once('close', () => clearTimeout(timers.get(socket)));
  });
  server.on('request', (req, res) => {
    clearTimeout(timers.get(req.socket));
    res.once('finish', () => {
      if (!req.socket.destroyed) arm(req.socket);
    });
  });
}
