import { Readable } from 'node:stream';

/**
 * A response body read from an async source of text, one chunk per `read` of the socket's side:
 * the next chunk is asked for only once the last has gone below the stream's high-water mark, so
 * a slow client slows the source down instead of growing the server's memory. `close` runs once
 * however the body ends: read to the end, failed, or dropped by the client. A failure after the
 * first chunk destroys the response (Fastify ends the connection without the chunked encoding's
 * last chunk), so the client can tell the body is incomplete; before it, the error is answered.
 * `ended`, when it aborts, destroys the body the same way.
 */
export function pulledBody(chunks: AsyncIterable<string>, close: () => Promise<void>, ended?: AbortSignal): Readable {
  const source = chunks[Symbol.asyncIterator]();
  const body = new Readable({
    async read() {
      try {
        const next = await source.next();
        this.push(next.done ? null : next.value);
      } catch (err) {
        this.destroy(err as Error);
      }
    },
    destroy(err, callback) {
      // What the source holds first (a read in flight then fails at once), then the source itself
      // (a generator runs its `finally`).
      void close()
        .then(() => source.return?.())
        .then(
          () => callback(err),
          (closeErr: Error) => callback(err ?? closeErr),
        );
    },
  });
  // The source was ended from elsewhere (its producer gave up on this reader): so is the answer.
  const onEnded = () => body.destroy(ended!.reason instanceof Error ? ended!.reason : new Error('the body was ended'));
  if (ended?.aborted) onEnded();
  else ended?.addEventListener('abort', onEnded, { once: true });
  body.once('close', () => ended?.removeEventListener('abort', onEnded));
  return body;
}
