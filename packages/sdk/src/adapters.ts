import type { CallbackEvent } from './types.js';
import { verifyCallback, type VerifyOptions } from './verify.js';

/** The part of a Fastify instance the raw-body parser needs (no dependency on Fastify itself). */
interface FastifyLike {
  addContentTypeParser(
    contentType: string | string[] | RegExp,
    opts: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (req: unknown, body: Buffer, done: (err: Error | null, body?: unknown) => void) => void,
  ): unknown;
}

/**
 * Fastify: makes `request.body` the raw `Buffer` for JSON requests in this instance (use it inside
 * the plugin scope that holds the callback route, so the rest of the app keeps parsed JSON):
 *
 *     app.register(async (scope) => {
 *       fastifyRawJson(scope);
 *       scope.post('/paygate/callbacks', async (req, reply) => {
 *         const event = verifyCallback(req.body as Buffer, req.headers, SECRET);
 *         …
 *       });
 *     });
 */
export function fastifyRawJson(app: FastifyLike, bodyLimit = 64 * 1024): void {
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));
}

/**
 * Fetch API (`Request`: Next.js route handlers, Hono, Deno, Bun, Cloudflare Workers): reads the raw
 * bytes with `arrayBuffer()` and verifies them. Do not call `request.json()` first.
 */
export async function verifyRequest(request: Request, secret: string, options?: VerifyOptions): Promise<CallbackEvent> {
  return verifyCallback(await request.arrayBuffer(), request.headers, secret, options);
}
