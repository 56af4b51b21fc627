import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/**
 * Stylesheets and scripts served by Paygate itself (CSP 'self', nothing from a CDN), under
 * content-hashed names, `/assets/pay.3f9a1c2b.js`: a changed file gets a new URL, so every URL can
 * be cached for a year and never goes stale.
 */

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.svg': 'image/svg+xml' };

interface Asset {
  path: string;
  body: Buffer;
  type: string;
}

/** Next to this module under `tsx`; the sources' folder when running the compiled `dist/`. */
function assetDir(): string {
  for (const rel of ['./assets/', '../../src/web/assets/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new Error('web assets folder not found');
}

function loadAssets(): Map<string, Asset> {
  const dir = assetDir();
  const byName = new Map<string, Asset>();
  for (const file of readdirSync(dir)) {
    const ext = file.slice(file.lastIndexOf('.'));
    const type = TYPES[ext];
    if (!type) continue;
    const body = readFileSync(dir + file);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
    byName.set(file, { path: `/assets/${file.slice(0, -ext.length)}.${hash}${ext}`, body, type });
  }
  return byName;
}

const ASSETS = loadAssets();

/** The hashed URL of an asset by its file name, e.g. `assetUrl('pay.js')`. */
export function assetUrl(file: string): string {
  const a = ASSETS.get(file);
  if (!a) throw new Error(`no web asset ${file}`);
  return a.path;
}

/** The size in bytes, for the page weight budget. */
export function assetSize(file: string): number {
  return ASSETS.get(file)?.body.length ?? 0;
}

export function assetRoutes(app: FastifyInstance): void {
  const byPath = new Map([...ASSETS.values()].map((a) => [a.path, a]));
  app.get('/assets/:file', async (req, reply) => {
    const a = byPath.get(req.url.split('?')[0]!);
    if (!a) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
    return reply
      .header('Content-Type', a.type)
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('X-Content-Type-Options', 'nosniff')
      .send(a.body);
  });
}
