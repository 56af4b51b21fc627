import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Paygate } from './client.js';
import { PaygateError } from './errors.js';
import { signCallback } from './signing.js';
import type { FeedEvent } from './types.js';

export interface ListenOptions {
  baseUrl: string;
  key: string;
  secret: string;
  /** Local receiver, e.g. `http://127.0.0.1:3000/paygate/callbacks`; loopback and private hosts are fine. */
  forwardTo: string;
  /** Start after this event id instead of the remembered one (from the oldest when neither exists). */
  since?: string;
  /** Where the last forwarded event id is kept; default `~/.paygate/listen-<key>.json`. */
  statePath?: string;
  /** Feed polling period; default 2000 ms. */
  intervalMs?: number;
  /** Forward what is in the feed now, then return (scripts, CI). */
  once?: boolean;
  /** Stops following the feed. */
  signal?: AbortSignal;
  /** One line per event; default `console.log`. */
  log?: (line: string) => void;
  /** Timeout of one forward; default 15 000 ms, as the gateway's. */
  forwardTimeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

/** The headers a gateway callback carries (decision D23 fixes the User-Agent). */
export const CALLBACK_USER_AGENT = 'Paygate/1.0 Callback';

export const defaultStatePath = (key: string) => join(homedir(), '.paygate', `listen-${key.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);

async function readState(path: string): Promise<string | undefined> {
  try {
    const s = JSON.parse(await readFile(path, 'utf8'));
    return typeof s?.lastEventId === 'string' ? s.lastEventId : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`listen: cannot read state file ${path}: ${(err as Error).message}`);
  }
}

async function writeState(path: string, lastEventId: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ lastEventId, at: new Date().toISOString() }) + '\n');
  await rename(tmp, path);
}

const abortableSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Follows the desk's events feed and POSTs every event to `forwardTo` exactly as the gateway's
 * callback would arrive: same headers, same body bytes (the feed's `body` string), the event's own
 * id, and a signature made with the desk secret over a fresh timestamp. The id of the last event the
 * receiver answered (any HTTP status) is saved, so a restart resumes after it; an event the receiver
 * could not be reached for is tried again on the next poll.
 */
export async function listen(o: ListenOptions): Promise<{ forwarded: number; lastEventId: string | undefined }> {
  const log = o.log ?? ((line: string) => console.log(line));
  const now = o.now ?? Date.now;
  const fetchFn = o.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  const statePath = o.statePath ?? defaultStatePath(o.key);
  const client = new Paygate({ baseUrl: o.baseUrl, key: o.key, secret: o.secret, fetch: o.fetch, now: o.now });
  const remembered = o.since === undefined ? await readState(statePath) : undefined;
  let after = o.since ?? remembered;
  let forwarded = 0;
  log(`listening to ${o.baseUrl} events${after ? ` after ${after}` : ' from the oldest'}, forwarding to ${o.forwardTo}`);

  const forward = async (e: FeedEvent): Promise<boolean> => {
    const ts = String(Math.floor(now() / 1000));
    const body = new TextEncoder().encode(e.body);
    let line: string;
    try {
      const res = await fetchFn(o.forwardTo, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': CALLBACK_USER_AGENT,
          'x-gate-ts': ts,
          'x-gate-event-id': e.id,
          'x-gate-sign': signCallback(o.secret, ts, e.id, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(o.forwardTimeoutMs ?? 15_000),
      });
      const text = (await res.text()).replace(/\s+/g, ' ').trim().slice(0, 120);
      line = `${new Date(now()).toISOString()}  ${e.id}  ${e.event}  ${e.orderId}  -> ${res.status}${text ? ` ${text}` : ''}${res.status === 200 ? '' : '  (the gateway would not count this as delivered)'}`;
      log(line);
      return true;
    } catch (err) {
      const reason = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
      log(`${new Date(now()).toISOString()}  ${e.id}  ${e.event}  ${e.orderId}  -> not delivered: ${reason} (retrying on the next poll)`);
      return false;
    }
  };

  while (!o.signal?.aborted) {
    let stalled = false;
    try {
      for await (const e of client.events({ after })) {
        if (o.signal?.aborted) break;
        if (!(await forward(e))) {
          stalled = true;
          break;
        }
        after = e.id;
        forwarded++;
        await writeState(statePath, e.id);
      }
    } catch (err) {
      let message = (err as Error).message;
      if (err instanceof PaygateError && err.code === 'VALIDATION_ERROR' && after && /after/.test(err.detail ?? '')) {
        // The gateway does not know the event to resume after: typically its database was reset.
        message += after === remembered ? ` (the remembered event ${after} is unknown to this gateway; delete ${statePath} or pass --since)` : ` (--since ${after} is unknown to this gateway)`;
      }
      if (o.once) throw new Error(message);
      log(`${new Date(now()).toISOString()}  events feed: ${message} (retrying)`);
    }
    if (o.once && !stalled) break;
    if (o.once && stalled) throw new Error(`listen: ${o.forwardTo} is not reachable`);
    await abortableSleep(o.intervalMs ?? 2000, o.signal);
  }
  return { forwarded, lastEventId: after };
}
