import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';

// packages/scenarios/scenarios.json lists what every SDK does; each SDK's tests name every id:
// TypeScript in the name of an `it(...)` that starts with `<id>:`, Python with @pytest.mark.scenario("<id>"),
// PHP with a `@scenario <id>` line in a test method's docblock.

interface Scenario {
  id: string;
  live: boolean;
  title: string;
}

const { scenarios } = JSON.parse(readFileSync(join(ROOT, 'packages/scenarios/scenarios.json'), 'utf8')) as { scenarios: Scenario[] };

function filesUnder(dir: string, ext: string): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(ext) && !f.split('/').includes('vendor'))
    .map((f) => join(abs, f));
}

/** The scenario ids the tests of one SDK name, by the rule of that SDK. */
function namedIds(sources: string[], rule: 'typescript' | 'python' | 'php'): Set<string> {
  const found = new Set<string>();
  const patterns = {
    typescript: /\bit(?:\.\w+(?:\([^)]*\))?)?\(\s*['"`]([a-z0-9-]+):/g,
    python: /@pytest\.mark\.scenario\(\s*['"]([a-z0-9-]+)['"]\s*\)/g,
    php: /^\s*(?:\/\*\*|\*)\s*@scenario\s+([a-z0-9-]+)\s*(?:\*\/)?\s*$/gm,
  };
  for (const text of sources) {
    // Lines commented out name nothing.
    const live = text.split('\n').filter((l) => !/^\s*(\/\/|#)/.test(l)).join('\n');
    for (const m of live.matchAll(patterns[rule])) found.add(m[1]);
  }
  return found;
}

describe('the shared scenario list', () => {
  it('has unique kebab-case ids, each with a title and whether it needs a live gateway', () => {
    expect(scenarios.length).toBeGreaterThan(0);
    expect(new Set(scenarios.map((s) => s.id)).size).toBe(scenarios.length);
    for (const s of scenarios) {
      expect(s.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(typeof s.live, s.id).toBe('boolean');
      expect(s.title.length, s.id).toBeGreaterThan(20);
    }
  });

  it('a scenario id is found by each rule only where a test names it', () => {
    expect([...namedIds(["it('retry-503: a create is retried', () => {})", "it('retry-5030 x')", "it('reads methods')", "// it('timeout: in a comment')"], 'typescript')]).toEqual(['retry-503']);
    expect([...namedIds(['@pytest.mark.scenario("reads")\ndef test_x(): ...', '# scenario("timeout")'], 'python')]).toEqual(['reads']);
    expect([...namedIds(['    /** @scenario reads */\n    public function testReads(): void', '    /**\n     * @scenario appeals\n     */', '// @scenario timeout later'], 'php')]).toEqual(['reads', 'appeals']);
  });
});

const sdks = [
  // This file's own examples of the rules are no scenario tests.
  { name: 'TypeScript', files: () => filesUnder('test/sdk', '.test.ts').filter((f) => !f.endsWith('scenarios.test.ts')), rule: 'typescript' as const },
  { name: 'Python', files: () => filesUnder('packages/sdk-python/tests', '.py'), rule: 'python' as const },
  { name: 'PHP', files: () => filesUnder('packages/sdk-php/tests', '.php'), rule: 'php' as const },
];

describe('every scenario is named by a test of every SDK', () => {
  for (const sdk of sdks) {
    it(`${sdk.name}`, () => {
      const files = sdk.files();
      expect(files.length, `no test files for the ${sdk.name} SDK`).toBeGreaterThan(0);
      const named = namedIds(files.map((f) => readFileSync(f, 'utf8')), sdk.rule);
      const missing = scenarios.map((s) => s.id).filter((id) => !named.has(id));
      expect(missing, `the ${sdk.name} SDK's tests do not name: ${missing.join(', ')}`).toEqual([]);
      const unknown = [...named].filter((id) => !scenarios.some((s) => s.id === id));
      expect(unknown, `the ${sdk.name} SDK's tests name scenarios the list does not have`).toEqual([]);
    });
  }
});

