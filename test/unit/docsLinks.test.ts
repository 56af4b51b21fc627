import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documents point only at files of the repository. In README.md, bench/README.md and
 * docs/*.md, every Markdown link that is not a web address (http, https, mailto) names a file or
 * folder inside the repository, resolved from the document's folder, and its `#anchor` names a
 * heading of the Markdown file it points at (GitHub's heading ids). Every backticked path does too,
 * read from the repository's root or the document's folder (`../…` from the document's folder
 * only). A path is a backticked word with a folder in it and no spaces that starts with `..` or
 * one of the repository's folders, or ends in a file's extension (`src/web/charts.ts`,
 * `spec/scale.md`, `../shared/x`); other words with a slash (`text/csv`, `/office/orders`,
 * `DATA_DIR/pg`) are not paths. docs/decisions.md records choices as they were made, naming files
 * as they were then, so only its links are checked.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const DOCS = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** Its links are checked, not the file names it quotes. */
const LINKS_ONLY = new Set(['docs/decisions.md']);

/** Folders the repository ignores (`dist/`, `data/`, …) are made by running it, not part of it. */
const IGNORED = new Set(
  readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim().replace(/^\//, '').replace(/\/$/, ''))
    .filter((l) => l && !l.includes('*')),
);
const FOLDERS = new Set(
  readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== '.git' && !IGNORED.has(d.name))
    .map((d) => d.name),
);
const EXTENSION = /\.(md|ts|mts|js|mjs|cjs|json|jsonc|sql|ya?ml|png|jpe?g|svg|csv|xml|sh|css|html|txt)$/;

/** The document's prose: fenced code blocks blanked (line numbers kept), then inline code apart. */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** GitHub's ids of a Markdown file's headings: the text as shown, lower case, punctuation dropped, spaces as `-`, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  for (const line of prose(readFileSync(file, 'utf8')).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const shown = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = shown
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

const inside = (p: string): boolean => p === ROOT || p.startsWith(ROOT + sep);

interface Problem {
  doc: string;
  line: number;
  target: string;
  why: string;
}

function linkProblems(doc: string): Problem[] {
  const file = join(ROOT, doc);
  const text = prose(readFileSync(file, 'utf8')).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
  const problems: Problem[] = [];
  const links = [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({ target: m[1]!, index: m.index! })),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => ({ target: m[1]!, index: m.index! })),
  ];
  for (const { target, index } of links) {
    if (/^(https?:|mailto:)/i.test(target)) continue;
    const line = lineOf(text, index);
    const [path = '', anchor] = target.split('#', 2);
    const to = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!inside(to)) problems.push({ doc, line, target, why: 'points outside the repository' });
    else if (!existsSync(to)) problems.push({ doc, line, target, why: 'no such file' });
    else if (anchor !== undefined && to.endsWith('.md') && !anchorsOf(to).has(decodeURIComponent(anchor).toLowerCase())) {
      problems.push({ doc, line, target, why: `no heading #${anchor} in ${relative(ROOT, to)}` });
    }
  }
  return problems;
}

/** A backticked word that names a file or folder of the repository, by the rule above. */
function isPath(word: string): boolean {
  if (!/^(\.{1,2}\/)*[\w.@-]+(\/[\w.@-]+)*\/?$/.test(word) || !word.includes('/')) return false;
  if (word.startsWith('../')) return true;
  const first = word.replace(/^(\.\/)+/, '').split('/')[0]!;
  return FOLDERS.has(first) || EXTENSION.test(word.replace(/\/$/, ''));
}

function pathProblems(doc: string): Problem[] {
  const file = join(ROOT, doc);
  const text = prose(readFileSync(file, 'utf8'));
  const problems: Problem[] = [];
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const word = m[1]!.trim();
    if (!isPath(word)) continue;
    const line = lineOf(text, m.index!);
    // `../x` can only mean the document's folder's parent; other paths are read from either place.
    const candidates = word.startsWith('../') ? [resolve(dirname(file), word)] : [resolve(ROOT, word), resolve(dirname(file), word)];
    if (candidates.some((p) => !inside(p))) problems.push({ doc, line, target: word, why: 'points outside the repository' });
    else if (!candidates.some((p) => existsSync(p))) problems.push({ doc, line, target: word, why: 'no such file in the repository' });
  }
  return problems;
}

const shown = (ps: Problem[]) => ps.map((p) => `${p.doc}:${p.line}: ${p.target} (${p.why})`);

describe('what the documents point at', () => {
  it('reads every document it names', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'docs/api-guide.md', 'docs/configuration.md', 'docs/decisions.md']));
    for (const doc of DOCS) expect(existsSync(join(ROOT, doc)), doc).toBe(true);
  });

  it('every link names a file of the repository, and a heading of it when it has an anchor', () => {
    expect(shown(DOCS.flatMap(linkProblems))).toEqual([]);
  });

  it('every backticked path names a file or folder of the repository', () => {
    expect(shown(DOCS.filter((d) => !LINKS_ONLY.has(d)).flatMap(pathProblems))).toEqual([]);
  });

  it('tells a path outside the repository, a missing file and a wrong anchor from what is there', () => {
    // The rules above, on words and links a document might hold.
    expect(['spec/scale.md', '../shared/design.md', 'src/web/charts.ts', 'tools/volume/', '.ci/run', 'store/ledger.ts'].map(isPath)).toEqual([true, true, true, true, true, true]);
    expect(['text/csv', '/office/orders', 'DATA_DIR/master.key', '10.0.0.0/8', 'Acct/Id/IBAN', 'dist/', './data', 'payment.url', '~/.paygate/x.json'].map(isPath)).toEqual([
      false, false, false, false, false, false, false, false, false,
    ]);
    expect(anchorsOf(join(ROOT, 'docs/api-guide.md'))).toContain('methods-rates-and-balance');
    expect(anchorsOf(join(ROOT, 'docs/configuration.md'))).toContain('provider-circuit-breaker');
  });
});
