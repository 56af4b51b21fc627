/**
 * A pool's CSV profiles in the back office: the list, a new profile and a profile's page, each
 * change the operator API's service (`POST /admin/v1/providers/{id}/statement-profiles`,
 * `PATCH /admin/v1/statement-profiles/{id}`) with the operator as actor. Before saving, the form
 * previews a sample file: its first 20 rows read with the profile as typed, as the entries an
 * upload would make of them, the problems shown, nothing recorded.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import iconv from 'iconv-lite';
import type { Static } from 'typebox';
import { AppError } from '../../domain/errors.js';
import { formWithProblem, withForm } from '../../web/forms.js';
import { param, query, sentence, type Kit } from '../../web/office/kit.js';
import { seeOther } from '../../web/session.js';
import { poolProvider, type PoolProvider } from '../queue.js';
import { createProfile, listProfiles, patchProfile, previewProfile, profileOfInput } from '../statementProfiles.js';
import { encodingOf } from '../statements/index.js';
import { DELIMITERS, ProfileForm, QUOTES, THOUSANDS } from './forms.js';
import {
  NEW_PROFILE,
  newProfilePage,
  profilePage,
  profilePath,
  profilesPage,
  profilesPath,
  valuesOf,
  type ProfilePageState,
  type ProfileValues,
  type ProfileView,
} from './profilesView.js';
import { noticeOf } from './ui.js';
import { adminUploads } from './uploads.js';

const NOTICES = {
  'profile-created': 'CSV profile saved: choose it beside the file when you upload a statement of this bank.',
  'profile-saved': 'CSV profile saved: the next uploads read with it.',
};

/** Rows the preview shows. */
export const PREVIEW_ROWS = 20;
/** The part of a sample the preview reads: far more than 20 rows of any bank's export. */
const PREVIEW_BYTES = 1024 * 1024;
/** The part of a sample the page keeps for the next preview (base64 in a hidden field of at most 16 KiB). */
const KEPT_BYTES = 11_000;

type Form = Static<typeof ProfileForm>;

/** The first whole lines of a file within `max` bytes, and whether the file goes on. */
function headOf(bytes: Buffer, max: number): { head: Buffer; cut: boolean } {
  if (bytes.length <= max) return { head: bytes, cut: false };
  const lf = bytes.subarray(0, max).lastIndexOf(0x0a);
  let end = lf >= 0 ? lf + 1 : max;
  // UTF-16 writes a line end as two bytes: keep the pair whole.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) end += end % 2;
  return { head: bytes.subarray(0, end), cut: true };
}

/** The sample as text, in the encoding an upload would read it in (the file's own mark first, then the profile's). */
function sampleText(head: Buffer, profileEncoding: string): string {
  return iconv.decode(head, encodingOf(head, isUtf8(head), profileEncoding));
}

/** A column as the API takes it: digits alone are a position, anything else a header name; empty clears it. */
function columnOf(v: string | undefined): string | number | null {
  const t = v?.trim();
  if (!t) return null;
  return /^\d{1,4}$/.test(t) ? Number(t) : t;
}

/** The profile the form describes, as `POST /admin/v1/providers/{id}/statement-profiles` takes it; every field given, so a patch replaces the whole. */
function profileInput(f: Form): Record<string, unknown> {
  const columns = Object.fromEntries(
    (['receivedAt', 'amount', 'credit', 'debit', 'account', 'currency', 'payer', 'reference', 'bankReference'] as const).map((k) => [k, columnOf(f[k])]),
  );
  return {
    name: f.name?.trim() ?? '',
    delimiter: DELIMITERS[f.delimiter ?? 'comma'],
    quote: QUOTES[f.quote ?? 'double'],
    encoding: f.encoding?.trim() || 'utf-8',
    skipRows: f.skipRows ? Number(f.skipRows) : 0,
    decimalSeparator: f.decimalSeparator ?? '.',
    thousandsSeparator: THOUSANDS[f.thousandsSeparator ?? 'none'],
    dateFormat: f.dateFormat?.trim() ?? '',
    timeZone: f.timeZone?.trim() || 'UTC',
    columns,
    fixedAccount: f.fixedAccount?.trim() || null,
    fixedCurrency: f.fixedCurrency?.trim().toUpperCase() || null,
  };
}

/** The form as typed, for showing it again: its text fields only. */
function typed(form: Record<string, unknown>): ProfileValues {
  const out: ProfileValues = {};
  for (const [k, v] of Object.entries(form)) if (typeof v === 'string' && !['_csrf', 'intent', 'kept', 'keptName'].includes(k)) out[k] = v;
  return out;
}

export async function profilePages(app: FastifyInstance, kit: Kit): Promise<void> {
  const { ctx, page, act } = kit;
  const pool = async (id: string) => (await poolProvider(ctx, id)).provider;
  const profileOf = async (p: PoolProvider, id: string): Promise<ProfileView> => {
    const r = (await listProfiles(ctx, p.id)).find((x) => x.id === id);
    if (!r) throw new AppError('STATEMENT_PROFILE_NOT_FOUND', `no CSV profile ${id} of ${p.name}`);
    return r;
  };

  app.get('/office/pools/:id/profiles', async (req, reply) => {
    const p = await pool(param(req, 'id'));
    const profiles = await listProfiles(ctx, p.id);
    return page(req, reply, (s) => profilesPage(s, p, profiles, noticeOf(query(req).done, NOTICES)));
  });

  app.get('/office/pools/:id/profiles/new', async (req, reply) => {
    const p = await pool(param(req, 'id'));
    return page(req, reply, (s) => newProfilePage(s, p, { values: NEW_PROFILE }));
  });

  app.get('/office/pools/:id/profiles/:profileId', async (req, reply) => {
    const p = await pool(param(req, 'id'));
    const r = await profileOf(p, param(req, 'profileId'));
    return page(req, reply, (s) => profilePage(s, p, r, { done: noticeOf(query(req).done, NOTICES), values: valuesOf(r) }));
  });

  /** Preview or save, for a new profile (`existing` null) or a saved one. */
  const answer = async (req: FastifyRequest, reply: FastifyReply, p: PoolProvider, existing: ProfileView | null) => {
    const { form, problem } = formWithProblem(req, ProfileForm);
    const values = typed(form);
    const file = form.sample?.[0];
    const given = file && file.content.length > 0 ? { bytes: file.content, name: file.fileName || 'the sample', tooLarge: file.tooLarge } : null;
    const keptBefore = form.kept && form.keptName ? { data: form.kept, name: form.keptName } : null;
    const kept = given ? { data: headOf(given.bytes, KEPT_BYTES).head.toString('base64'), name: given.name } : keptBefore;
    const show = (st: Omit<ProfilePageState, 'values'>, status: number) =>
      page(req, reply, (s) => (existing ? profilePage(s, p, existing, { values, kept, ...st }) : newProfilePage(s, p, { values, kept, ...st })), status);
    if (problem) return show({ error: problem }, 400);
    const input = profileInput(form);

    if (form.intent !== 'save') {
      const sample = given ?? (keptBefore ? { bytes: Buffer.from(keptBefore.data, 'base64'), name: keptBefore.name, tooLarge: false } : null);
      if (!sample) return show({ error: 'Choose a sample file to preview: a statement exported by the bank.' }, 400);
      let profile;
      try {
        profile = profileOfInput(input);
      } catch (err) {
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return show({ error: `The profile cannot read a file yet: ${sentence(err.detail)}` }, 400);
        throw err;
      }
      const { head, cut } = headOf(sample.bytes, PREVIEW_BYTES);
      const read = previewProfile(profile, sampleText(head, profile.encoding), PREVIEW_ROWS);
      return show({ preview: { fileName: sample.name, header: read.header, entries: read.entries, problem: read.problem, cut: cut || sample.tooLarge } }, 200);
    }

    try {
      if (existing) {
        await act(req, 'statementProfile.update', existing.id, (c) => patchProfile(c, existing.id, input));
        return seeOther(reply, `${profilePath(existing)}?done=profile-saved`);
      }
      const made = await act(req, 'statementProfile.create', null, (c) => createProfile(c, p.id, input), (r) => r.id);
      return seeOther(reply, `${profilesPath(p)}?done=profile-created#profile-${made.id}`);
    } catch (err) {
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return show({ error: `Not saved: ${sentence(err.detail)}` }, 400);
      throw err;
    }
  };

  // A browser sends every field of the form, empty ones too: 26 parts with the kept sample.
  const parts = Object.keys(ProfileForm.properties).length + 4;
  await adminUploads(
    app,
    ctx,
    'Changing CSV profiles is for administrators.',
    (upload) => {
      const options = withForm(ProfileForm, { preHandler: kit.adminOnly, invalid: 'route' });
      upload.post('/office/pools/:id/profiles/new', options, async (req, reply) => answer(req, reply, await pool(param(req, 'id')), null));
      upload.post('/office/pools/:id/profiles/:profileId', options, async (req, reply) => {
        const p = await pool(param(req, 'id'));
        return answer(req, reply, p, await profileOf(p, param(req, 'profileId')));
      });
    },
    { parts },
  );
}
