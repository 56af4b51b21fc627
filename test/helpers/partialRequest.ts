import { request, type ClientRequest, type IncomingHttpHeaders } from 'node:http';

/**
 * A request over a real socket whose body the test sends as it likes: the headers at once (with
 * whatever content-length they declare), then parts of the body, or none, and perhaps never the
 * rest. For what `inject` cannot do: a client that stalls, or that goes away mid-upload.
 */
export interface PartialRequest {
  readonly req: ClientRequest;
  /** The server's whole answer; rejects when the connection ends before one arrived. */
  readonly answer: Promise<Answer>;
  /** The socket closed, by either side. */
  readonly closed: Promise<void>;
  /** Sends a part of the body; resolves once it is handed to the kernel. */
  write(chunk: Buffer | string): Promise<void>;
  /** Ends the body (for a request that declared no length, sent chunked). */
  end(): void;
  /** The client goes away: the socket is destroyed, whatever was sent. */
  abort(): void;
  /** No answer yet, and the connection still open. */
  pending(): boolean;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the status line arrived. */
  at: number;
}

export function partialRequest(url: string, headers: Record<string, string>, method = 'POST'): PartialRequest {
  const req = request(url, { method, headers, agent: false });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      const at = performance.now();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), at }));
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('the answer was cut off')));
    });
    req.on('error', reject);
    req.on('close', () => reject(new Error('the connection closed without an answer')));
  });
  let settled = false;
  // Tests that abort on purpose never look at the answer.
  answer.then(
    () => (settled = true),
    () => (settled = true),
  );
  const closed = new Promise<void>((resolve) => req.on('close', () => resolve()));
  req.flushHeaders();
  return {
    req,
    answer,
    closed,
    write: (chunk) => new Promise<void>((resolve, reject) => req.write(chunk, (err) => (err ? reject(err) : resolve()))),
    end: () => req.end(),
    abort: () => req.destroy(),
    pending: () => !settled,
  };
}

/** The answer within `ms`, or a failure saying the server still waits (for a body it should not need). */
export function answerWithin(p: PartialRequest, ms: number, what: string): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
    p.answer.then(
      (a) => (clearTimeout(timer), resolve(a)),
      (err: Error) => (clearTimeout(timer), reject(err)),
    );
  });
}
