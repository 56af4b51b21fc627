#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { listen } from './listen.js';

const USAGE = `Usage: paygate listen --base-url URL --key KEY --secret SECRET --forward-to URL [--since EVENT_ID] [--state FILE] [--interval-ms 2000] [--once]

Follows the cash desk's events feed and POSTs each event to --forward-to, signed exactly as the
gateway's callback (headers, body bytes, signature with the desk secret). The last forwarded event
id is kept in --state (default ~/.paygate/listen-<key>.json), so a restart resumes after it.
Options may also come from PAYGATE_BASE_URL, PAYGATE_KEY and PAYGATE_SECRET.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'listen') {
    console.error(USAGE);
    return command === '--help' || command === '-h' ? 0 : 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      'base-url': { type: 'string' },
      key: { type: 'string' },
      secret: { type: 'string' },
      'forward-to': { type: 'string' },
      since: { type: 'string' },
      state: { type: 'string' },
      'interval-ms': { type: 'string' },
      once: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const baseUrl = values['base-url'] ?? process.env.PAYGATE_BASE_URL;
  const key = values.key ?? process.env.PAYGATE_KEY;
  const secret = values.secret ?? process.env.PAYGATE_SECRET;
  const forwardTo = values['forward-to'];
  if (!baseUrl || !key || !secret || !forwardTo) {
    console.error(`paygate listen: --base-url, --key, --secret and --forward-to are required\n\n${USAGE}`);
    return 2;
  }
  const intervalMs = values['interval-ms'] === undefined ? undefined : Number(values['interval-ms']);
  if (intervalMs !== undefined && !(intervalMs >= 10)) {
    console.error('paygate listen: --interval-ms must be a number of milliseconds (10 or more)');
    return 2;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  await listen({ baseUrl, key, secret, forwardTo, since: values.since, statePath: values.state, intervalMs, once: values.once, signal: stop.signal });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`paygate: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
