import { describe, expect, it } from 'vitest';
import { APPEAL_PAUSE_AT, APPEAL_RESUME_AT, appealOpening, isOverdue, pausedForAppeals, slaDueAt } from '../../src/domain/appealGuard.js';
import type { OrderStatus } from '../../src/domain/orders.js';

describe('pausedForAppeals', () => {
  it('pauses at ten open appeals, resumes at seven', () => {
    expect(APPEAL_PAUSE_AT).toBe(10);
    expect(APPEAL_RESUME_AT).toBe(7);
  });

  it('a running provider stays running up to nine and is paused from ten on', () => {
    for (const n of [0, 1, 7, 8, 9]) expect(pausedForAppeals(false, n)).toBe(false);
    for (const n of [10, 11, 50]) expect(pausedForAppeals(false, n)).toBe(true);
  });

  it('a paused provider stays paused at eight and nine and resumes at seven or fewer', () => {
    for (const n of [8, 9, 10, 11]) expect(pausedForAppeals(true, n)).toBe(true);
    for (const n of [7, 6, 0]) expect(pausedForAppeals(true, n)).toBe(false);
  });

  it('walks the hysteresis loop: 9 → 10 pauses, 10 → 8 stays paused, 8 → 7 resumes, 7 → 9 stays running', () => {
    const counts = [9, 10, 9, 8, 7, 8, 9, 10];
    const expected = [false, true, true, true, false, false, false, true];
    let paused = false;
    const seen = counts.map((n) => (paused = pausedForAppeals(paused, n)));
    expect(seen).toEqual(expected);
  });
});

describe('appealOpening (spec rules 1–3, D17)', () => {
  it.each<[OrderStatus, string]>([
    ['Created', 'ORDER_STILL_OPEN'],
    ['Payed', 'ORDER_STILL_OPEN'],
    ['Completed', 'ORDER_ALREADY_COMPLETED'],
  ])('%s is refused with %s', (status, code) => {
    const r = appealOpening(status);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusal.code).toBe(code);
  });

  it('a Canceled order gets a new appeal; a Dispute order returns its open one', () => {
    expect(appealOpening('Canceled')).toEqual({ ok: true, value: 'open' });
    expect(appealOpening('Dispute')).toEqual({ ok: true, value: 'existing' });
  });
});

describe('SLA', () => {
  it('the decision target is the configured hours after opening', () => {
    const opened = Date.UTC(2026, 0, 15, 12, 0, 0);
    expect(slaDueAt(opened, 24)).toBe(Date.UTC(2026, 0, 16, 12, 0, 0));
    expect(slaDueAt(opened, 1)).toBe(Date.UTC(2026, 0, 15, 13, 0, 0));
  });

  it('an open appeal is overdue only strictly past its target; a resolved one never is', () => {
    const due = Date.UTC(2026, 0, 16, 12, 0, 0);
    expect(isOverdue('Open', due, due - 1)).toBe(false);
    expect(isOverdue('Open', due, due)).toBe(false);
    expect(isOverdue('Open', due, due + 1)).toBe(true);
    for (const s of ['Accepted', 'Rejected', 'Cancelled'] as const) expect(isOverdue(s, due, due + 1)).toBe(false);
  });
});
