import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, createHarness, json, type Harness } from '../../helpers/harness.js';
import { realFiles, type RealFile } from '../../unit/statements/readAll.js';
import { RUB_CAPABILITIES } from './helpers.js';

/**
 * Every real bank file of test/fixtures/statements/real uploaded as an operator would (a bank's
 * CSV with its profile): recorded with the counts counted by hand from the file, and the same bytes
 * uploaded again record nothing.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const folders = ['camt', 'mt940', 'onec', 'csv'] as const;
const files = folders.flatMap((folder) => {
  const set = realFiles(folder);
  return set.manifest.map((m) => ({ folder, m, bytes: set.bytes(m) }));
});

let made = 0;
/** A pool provider of its own for each file, so each file's figures stand alone. */
async function poolFor(m: RealFile): Promise<string> {
  made += 1;
  const res = await admin(h.app, 'POST', '/providers', { name: `Real ${made}`, kind: 'pool', priority: 10, capabilities: RUB_CAPABILITIES, requisites: [] });
  expect(res.statusCode, res.body).toBe(201);
  const id = json(res).result.id as string;
  if (!m.profile) return id;
  const profile = await admin(h.app, 'POST', `/providers/${id}/statement-profiles`, m.profile);
  expect(profile.statusCode, profile.body).toBe(201);
  return `${id}?profile=${json(profile).result.id}`;
}

const upload = (target: string, bytes: Buffer, file: string) => {
  const [providerId, query] = target.split('?');
  return h.app.inject({
    method: 'POST',
    url: `/admin/v1/providers/${providerId}/statements?${query ? `${query}&` : ''}filename=${encodeURIComponent(file)}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
};

describe('real bank files through the upload', () => {
  it.each(files.map((f) => [`${f.folder}/${f.m.file}`, f] as const))('%s: recorded as counted by hand; the same bytes again record nothing', async (_name, { m, bytes }) => {
    const target = await poolFor(m);
    const providerId = target.split('?')[0];
    const first = await upload(target, bytes, m.file);
    expect(first.statusCode, first.body).toBe(200);
    const r = json(first).result;
    const e = m.expected;
    expect({ format: r.format, entries: r.entries, credits: r.credits, duplicates: r.duplicates, skipped: r.skipped, unreadable: r.unreadable, balanceCheck: r.balanceCheck }).toEqual({
      format: m.format, entries: e.entries, credits: e.credits, duplicates: 0, skipped: e.debits + e.other, unreadable: e.unreadable, balanceCheck: e.balanceCheck,
    });
    expect(r.sameAs).toBeNull();
    const count = async () => (await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM credits WHERE provider_id = $1', [providerId])).rows[0].n;
    expect(await count()).toBe(e.credits);
    const statement = json(await admin(h.app, 'GET', `/statements/${r.statementId}?limit=500`)).result;
    expect(statement).toMatchObject({ filename: m.file, format: m.format, state: 'recorded' });
    expect(statement.sections).toHaveLength(e.sections);

    const again = await upload(target, bytes, m.file);
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again).result).toMatchObject({ statementId: r.statementId, sameAs: r.statementId, credits: e.credits });
    expect(await count()).toBe(e.credits);
  });
});
