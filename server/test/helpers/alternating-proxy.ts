import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy passed on: where to, what came back and when. */
export interface ProxiedRequest {
  /** Path and query as the client asked. */
  path: string;
  /** Index into the proxy's upstreams. */
  upstream: number;
  status: number;
  /** Date.now() when the upstream's answer was complete. */
  doneAt: number;
}

export interface AlternatingProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every request so far, in the order their answers completed. */
  log: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback proxy that sends each request to the next of `upstreams` in turn: a player behind it
 * plays "through A and B alternately", every playlist and segment request going to the other node
 * than the one before (issue 26's acceptance for API nodes).
 */
export async function startAlternatingProxy(upstreams: string[]): Promise<AlternatingProxy> {
  let next = 0;
  const log: ProxiedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const upstream = next;
    next = (next + 1) % upstreams.length;
    const target = new URL(req.url ?? '/', upstreams[upstream]);
    const out = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () =>
          log.push({ path: req.url ?? '/', upstream, status: answer.statusCode ?? 0, doneAt: Date.now() }),
        );
      },
    );
    out.on('error', (err) => {
      log.push({ path: req.url ?? '/', upstream, status: 502, doneAt: Date.now() });
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
