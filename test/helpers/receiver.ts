import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Receiver {
  url: string;
  hits: Received[];
  /** How the next requests are answered: a status and body, or 'hang' to never answer. */
  respond(fn: (r: Received) => { status: number; body?: string; headers?: Record<string, string> } | 'hang'): void;
  close(): Promise<void>;
}

/** A merchant's callback receiver on loopback, recording the exact bytes it gets. */
export async function startReceiver(): Promise<Receiver> {
  const hits: Received[] = [];
  let answer: (r: Received) => { status: number; body?: string; headers?: Record<string, string> } | 'hang' = () => ({ status: 200, body: 'ok' });
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      hits.push(r);
      const a = answer(r);
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    respond(fn) {
      answer = fn;
    },
    async close() {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
