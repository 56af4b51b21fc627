import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { killChildren, ROOT, scratchDir, STARTUP_MS } from '../helpers/process.js';
import { phpAvailable, startPhpGateway, type PhpGateway } from './phpGateway.js';

// The PHP SDK's PHPUnit suite, offline tests and live ones, against a Paygate started as a real
// process: every shared scenario runs and passes, under the test method its id names.

const SDK = join(ROOT, 'packages/sdk-php');
const tools = phpAvailable();
const present = tools.php && tools.phpunit;

afterAll(killChildren);

describe.runIf(!present && process.env.CI)('PHP SDK on CI', () => {
  it('has php (with curl) and phpunit installed', () => {
    expect(tools, 'CI must install php-cli, php-curl and phpunit').toEqual({ php: true, phpunit: true });
  });
});

describe.runIf(present)('PHP SDK against a running gateway', () => {
  let gw: PhpGateway;
  let rx: Receiver;
  let desk: { key: string; secret: string };
  let dir: string;

  beforeAll(async () => {
    gw = await startPhpGateway('sdk-php');
    rx = await startReceiver();
    desk = await gw.provisionDesk({ callbackUrl: `${rx.url}/callbacks` });
    dir = scratchDir('sdk-php-junit');
  }, 2 * STARTUP_MS);
  afterAll(async () => {
    await rx?.close();
    await gw?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes the PHPUnit suite, every scenario included', async () => {
    const junit = join(dir, 'junit.xml');
    const { code, output } = await run('phpunit', ['-c', join(SDK, 'phpunit.xml.dist'), '--fail-on-skipped', '--log-junit', junit], {
      PAYGATE_URL: gw.url,
      PAYGATE_KEY: desk.key,
      PAYGATE_SECRET: desk.secret,
      PAYGATE_ADMIN_TOKEN: gw.adminToken,
    });
    expect(code, output).toBe(0);

    // Each scenario ran under its method (`test_` + the id with `-` as `_`), marked `@scenario <id>`, and passed.
    const xml = readFileSync(junit, 'utf8');
    const sources = ['OfflineTest.php', 'LiveTest.php'].map((f) => readFileSync(join(SDK, 'tests', f), 'utf8')).join('\n');
    const scenarios: { id: string }[] = JSON.parse(readFileSync(join(ROOT, 'packages/scenarios/scenarios.json'), 'utf8')).scenarios;
    for (const { id } of scenarios) {
      const method = `test_${id.replaceAll('-', '_')}`;
      const tag = new RegExp(`@scenario ${id}\\b[^]*?function ${method}\\(`);
      expect(sources, `${id} is not marked on ${method}`).toMatch(tag);
      const testcase = new RegExp(`<testcase name="${method}"[^>]*?(/>|>([^]*?)</testcase>)`).exec(xml);
      expect(testcase, `${method} did not run:\n${output}`).not.toBeNull();
      expect(testcase![2] ?? '', `${method}:\n${output}`).not.toMatch(/<(failure|error|skipped)/);
    }
  }, 300_000);
});

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: SDK, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}
