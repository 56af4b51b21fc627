import Type from 'typebox';
import { DESTINATION_KINDS, REASON_MAX, REFERENCE_MAX, WITHDRAWAL_STATUSES } from '../domain/payouts.js';
import { Nullable, Timestamp, Usd8 } from './common.js';

/**
 * Withdrawal requests as the operator API reads and decides them (web spec, "Withdrawal
 * requests"), and the payout destination each is paid to.
 */

const nstr = (description: string) => Nullable(Type.String({ description }));

export const PayoutDestination = Type.Object(
  {
    id: Type.String({ description: '`dst_` id' }),
    kind: Type.Unsafe<string>({ type: 'string', enum: [...DESTINATION_KINDS], description: '`usdt-trc20` (USDT on Tron), `usdt-erc20` (USDT on Ethereum) or `bank`' }),
    label: Type.String({ description: 'the owner\'s name for it' }),
    address: nstr('USDT kinds: the address, checked by its checksum (Tron base58check; Ethereum in its EIP-55 mixed case)'),
    iban: nstr('`bank`: the IBAN, electronic form (no spaces), checked by its check digits; or null when `account` is given'),
    account: nstr('`bank`: a local account number where there is no IBAN'),
    holder: nstr('`bank`: the account holder'),
    bank: nstr('`bank`: the bank (and branch or SWIFT/BIC)'),
    createdAt: Timestamp,
  },
  { title: 'PayoutDestination' },
);

export const WithdrawalStatus = Type.Unsafe<string>({
  type: 'string',
  enum: [...WITHDRAWAL_STATUSES],
  title: 'WithdrawalRequestStatus',
  description: '`requested`: its amount is held until an operator decides; `paid`: the ledger\'s withdrawal was written; `rejected`: the hold released, no money moved',
});

export const RequestedWithdrawal = Type.Object(
  {
    id: Type.String({ description: '`wdr_` id; once paid, also the id of its withdrawal in the ledger and the merchant statement' }),
    merchantId: Type.String(),
    amountUsd: Usd8,
    destination: PayoutDestination,
    status: WithdrawalStatus,
    reference: nstr('the transfer\'s reference, once paid'),
    reason: nstr('why it was rejected'),
    createdAt: Timestamp,
    decidedAt: Nullable(Timestamp),
  },
  { title: 'RequestedWithdrawal', description: 'a withdrawal an owner of the merchant asked for in the cabinet' },
);

export const ListWithdrawalRequestsQuery = Type.Object({
  status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...WITHDRAWAL_STATUSES] })),
  merchantId: Type.Optional(Type.String()),
  after: Type.Optional(Type.String({ description: 'the open queue (status=requested, oldest first): the `next` of the previous page' })),
  before: Type.Optional(Type.String({ description: 'other lists (newest first): the `next` of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: '1–500, default 100', 'x-message': 'must be an integer from 1 to 500' })),
});

export const WithdrawalPaidBody = Type.Object(
  { reference: Type.String({ minLength: 1, maxLength: REFERENCE_MAX, description: 'the transfer\'s reference: the transaction hash, or the bank\'s reference of the payment' }) },
  { title: 'WithdrawalPaidRequest' },
);

export const WithdrawalRejectBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: REASON_MAX, description: 'why it is not paid; the merchant\'s owners read it' }) },
  { title: 'WithdrawalRejectRequest' },
);

export const WithdrawalIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: '`wdr_` id' }) });
