import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totpStep } from '../../src/domain/totp.js';
import { createOperator } from '../../src/services/accounts.js';
import { CHALLENGE_ATTEMPTS } from '../../src/services/rateLimits.js';
import {
  answerChallenge,
  beginEnrolment,
  CHALLENGE_TTL_MS,
  confirmEnrolment,
  disableTwoFactor,
  issueChallenge,
  openChallenge,
  pendingEnrolment,
  twoFactorStatus,
  verifySecondFactor,
} from '../../src/services/twoFactor.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let operatorId: string;

beforeAll(async () => {
  h = await createHarness();
  operatorId = (await createOperator(h.ctx, { email: 'totp@paygate.example', password: 'another long password', role: 'admin' })).id;
});
afterAll(() => h.close());

const codeAt = (secret: string, ms: number, shift = 0) => hotp(base32Decode(secret)!, totpStep(ms) + shift);

describe('two-factor sign-in', () => {
  it('is off until the first code confirms the secret, then gives ten single-use recovery codes', async () => {
    const { secret, uri } = await beginEnrolment(h.ctx, 'office', operatorId, 'totp@paygate.example');
    expect(uri).toContain(`secret=${secret}`);
    expect(await twoFactorStatus(h.ctx, 'office', operatorId)).toEqual({ enabled: false, pending: true, recoveryCodesLeft: 0 });
    expect((await pendingEnrolment(h.ctx, 'office', operatorId, 'x'))?.secret).toBe(secret);
    // the secret is sealed at rest
    const { rows } = await h.ctx.db.query<{ totp_secret: string }>('SELECT totp_secret FROM operators WHERE id = $1', [operatorId]);
    expect(rows[0]!.totp_secret).not.toContain(secret);

    const right = codeAt(secret, h.clock.now());
    expect(await confirmEnrolment(h.ctx, 'office', operatorId, right === '000000' ? '111111' : '000000')).toBeNull();
    const codes = await confirmEnrolment(h.ctx, 'office', operatorId, codeAt(secret, h.clock.now()));
    expect(codes).toHaveLength(10);
    expect(await twoFactorStatus(h.ctx, 'office', operatorId)).toEqual({ enabled: true, pending: false, recoveryCodesLeft: 10 });

    // the code that confirmed enrolment cannot be replayed; the next step's code passes once
    expect(await verifySecondFactor(h.ctx, 'office', operatorId, codeAt(secret, h.clock.now()))).toBe(false);
    h.clock.advance(30_000);
    const next = codeAt(secret, h.clock.now());
    expect(await verifySecondFactor(h.ctx, 'office', operatorId, next)).toBe(true);
    expect(await verifySecondFactor(h.ctx, 'office', operatorId, next)).toBe(false);

    expect(await verifySecondFactor(h.ctx, 'office', operatorId, codes![0]!.toUpperCase())).toBe(true);
    expect(await verifySecondFactor(h.ctx, 'office', operatorId, codes![0]!)).toBe(false);
    expect((await twoFactorStatus(h.ctx, 'office', operatorId)).recoveryCodesLeft).toBe(9);

    await disableTwoFactor(h.ctx, 'office', operatorId);
    expect(await twoFactorStatus(h.ctx, 'office', operatorId)).toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
    expect(await verifySecondFactor(h.ctx, 'office', operatorId, codes![1]!)).toBe(false);
  });

  it('carries the password step in a signed challenge that expires and is bound to its surface', async () => {
    const token = issueChallenge(h.ctx, 'office', operatorId);
    expect(openChallenge(h.ctx, 'office', token)).toBe(operatorId);
    expect(openChallenge(h.ctx, 'cabinet', token)).toBeNull();
    expect(openChallenge(h.ctx, 'office', token.replace(operatorId, 'opr_other'))).toBeNull();
    h.clock.advance(CHALLENGE_TTL_MS + 1);
    expect(openChallenge(h.ctx, 'office', token)).toBeNull();
    // two challenges of one account at one instant are two challenges (each counts its own codes)
    expect(issueChallenge(h.ctx, 'office', operatorId)).not.toBe(issueChallenge(h.ctx, 'office', operatorId));
    // the old three-part form is no challenge
    const [account, expires, , mac] = issueChallenge(h.ctx, 'office', operatorId).split('.');
    expect(openChallenge(h.ctx, 'office', `${account}.${expires}.${mac}`)).toBeNull();
  });

  it(`a challenge takes ${CHALLENGE_ATTEMPTS} codes; the next is refused unchecked, and the challenge is void`, async () => {
    const id = (await createOperator(h.ctx, { email: 'cap@paygate.example', password: 'another long password', role: 'support' })).id;
    const { secret } = await beginEnrolment(h.ctx, 'office', id, 'cap@paygate.example');
    expect(await confirmEnrolment(h.ctx, 'office', id, codeAt(secret, h.clock.now()))).toHaveLength(10);
    h.clock.advance(30_000);
    const token = issueChallenge(h.ctx, 'office', id);
    const right = codeAt(secret, h.clock.now());
    const wrong = [-1, 0, 1].map((d) => codeAt(secret, h.clock.now(), d)).includes('000000') ? '999999' : '000000';
    for (let i = 0; i < CHALLENGE_ATTEMPTS; i++) expect(await answerChallenge(h.ctx, 'office', token, wrong)).toEqual({ kind: 'wrong' });
    expect(await answerChallenge(h.ctx, 'office', token, right)).toEqual({ kind: 'void' });
    expect(await answerChallenge(h.ctx, 'office', 'opr_x.1.y.z', right)).toEqual({ kind: 'expired' });
    // the right code was never tried, so it still signs in on a new challenge
    expect(await answerChallenge(h.ctx, 'office', issueChallenge(h.ctx, 'office', id), right)).toEqual({ kind: 'ok', accountId: id });
  });
});
