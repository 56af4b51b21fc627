import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The SDK's wire types are generated from the gateway's OpenAPI document
// (`npm run generate -w @paygate/sdk`); the committed file must be what the generator makes of the
// committed openapi.json, so a change to one without the other fails here.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPEC = join(ROOT, 'openapi.json');
const GENERATED = join(ROOT, 'packages/sdk/src/generated/openapi.ts');
const haveEither = existsSync(SPEC) || existsSync(GENERATED);

describe('SDK generated wire types', () => {
  it.skipIf(!haveEither)('packages/sdk/src/generated/openapi.ts matches openapi.json (run npm run generate -w @paygate/sdk)', () => {
    expect(existsSync(SPEC), 'generated types are committed but openapi.json is missing').toBe(true);
    expect(existsSync(GENERATED), 'openapi.json exists but the generated types are not committed: run npm run generate -w @paygate/sdk').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'paygate-openapi-'));
    try {
      const out = join(dir, 'openapi.ts');
      execFileSync(join(ROOT, 'node_modules/.bin/openapi-typescript'), [SPEC, '-o', out], { cwd: join(ROOT, 'packages/sdk'), stdio: 'pipe' });
      expect(readFileSync(GENERATED, 'utf8'), 'generated types drifted from openapi.json: run npm run generate -w @paygate/sdk').toBe(readFileSync(out, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
