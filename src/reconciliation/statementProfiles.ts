/**
 * CSV profiles (`csp_`): a bank's own CSV export described once per pool provider, so its
 * statements can be uploaded as they come from the bank (`?profile=csp_…`). The rules of a profile
 * are checked by `checkCsvProfile` (statements/csvProfile.ts); this module keeps them.
 *
 * Which column holds what may be sent flat (`"amount": "Сумма"`) or under `columns`; both are kept
 * as `columns`.
 */
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { isoSeconds } from '../domain/time.js';
import { newHistoryId } from '../ids.js';
import { poolProvider } from './credits.js';
import * as statementStore from './statementStore.js';
import { checkCsvProfile, previewCsvProfile, type CsvProfile } from './statements/csvProfile.js';

const COLUMN_KEYS = ['account', 'amount', 'credit', 'debit', 'currency', 'receivedAt', 'payer', 'reference', 'bankReference'] as const;
const PROFILE_KEYS = new Set(['name', 'delimiter', 'quote', 'encoding', 'skipRows', 'decimalSeparator', 'thousandsSeparator', 'dateFormat', 'timeZone', 'columns', 'fixedAccount', 'fixedCurrency', ...COLUMN_KEYS]);

/** Defaults of a profile: a comma, quotes, UTF-8, no rows skipped, a decimal point, UTC. */
const DEFAULTS = { delimiter: ',', quote: '"', encoding: 'utf-8', skipRows: 0, decimalSeparator: '.', thousandsSeparator: null, timeZone: 'UTC', fixedAccount: null, fixedCurrency: null };

/** The profile an operator sends, checked: flat column keys folded into `columns`, defaults filled in. */
export function profileOfInput(input: Record<string, unknown>, base: CsvProfile | null = null): CsvProfile {
  const unknown = Object.keys(input).filter((k) => !PROFILE_KEYS.has(k));
  if (unknown.length) throw new AppError('VALIDATION_ERROR', `unknown property: ${unknown.slice(0, 10).join(', ')}`);
  const columns: Record<string, unknown> = { ...(base?.columns ?? {}), ...((input.columns as Record<string, unknown> | undefined) ?? {}) };
  for (const k of COLUMN_KEYS) if (k in input) columns[k] = input[k];
  for (const k of Object.keys(columns)) if (columns[k] === null || columns[k] === undefined) delete columns[k];
  const merged: Record<string, unknown> = { ...DEFAULTS, ...(base ?? {}), ...input, columns };
  for (const k of COLUMN_KEYS) delete merged[k];
  const checked = checkCsvProfile(merged);
  if (!checked.ok) throw new AppError('VALIDATION_ERROR', checked.why);
  return checked.value;
}

export function profileView(r: statementStore.ProfileRow) {
  const { name: _, ...rest } = r.profile;
  return { id: r.id, providerId: r.provider_id, name: r.name, ...rest, createdAt: isoSeconds(r.created_at), updatedAt: isoSeconds(r.updated_at) };
}

export async function createProfile(ctx: Ctx, providerId: string, input: Record<string, unknown>) {
  const provider = await poolProvider(ctx.db, providerId);
  const profile = profileOfInput(input);
  const at = new Date(ctx.clock.now());
  return profileView(await statementStore.insertProfile(ctx.db, { id: newHistoryId('csp', at.getTime()), providerId: provider.id, profile, at }));
}

export async function listProfiles(ctx: Ctx, providerId: string) {
  const provider = await poolProvider(ctx.db, providerId);
  return (await statementStore.listProfiles(ctx.db, provider.id)).map(profileView);
}

export async function patchProfile(ctx: Ctx, id: string, input: Record<string, unknown>) {
  const row = await statementStore.getProfile(ctx.db, id);
  if (!row) throw new AppError('STATEMENT_PROFILE_NOT_FOUND', `no statement profile ${id}`);
  const profile = profileOfInput(input, row.profile);
  return profileView(await statementStore.updateProfile(ctx.db, id, profile, new Date(ctx.clock.now())));
}

/** The profile an upload names: one of the provider's. */
export async function loadProfile(ctx: Ctx, providerId: string, id: string): Promise<CsvProfile> {
  const row = await statementStore.getProfile(ctx.db, id);
  if (!row || row.provider_id !== providerId) throw new AppError('STATEMENT_PROFILE_NOT_FOUND', `no statement profile ${id} of provider ${providerId}`);
  return row.profile;
}

/** The first rows of a sample file read with a profile, as the entries they would be: the back office's preview. */
export function previewProfile(profile: CsvProfile, text: string, rows = 20) {
  return previewCsvProfile(profile, text, rows);
}
