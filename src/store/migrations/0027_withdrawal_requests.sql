-- Withdrawal requests. An owner saves where money may be paid to (a payout destination: a USDT
-- address on Tron or Ethereum, or a bank account) and asks for a withdrawal of live money to one of
-- them; the amount is held from then on, and an operator pays it (with the transfer's reference:
-- then the ledger's withdrawal entry) or rejects it (with a reason: the hold released).

CREATE TABLE payout_destinations (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  kind text NOT NULL CHECK (kind IN ('usdt-trc20', 'usdt-erc20', 'bank')),
  label text NOT NULL,
  -- A USDT address as checked (Tron base58check; Ethereum in its EIP-55 mixed case).
  address text,
  -- A bank destination: an IBAN (electronic form, no spaces) or a local account number, and its holder and bank.
  iban text,
  account text,
  holder text,
  bank text,
  -- The owner who saved it.
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  -- Removed from the cabinet's list; kept, so the requests made to it still say where they go.
  removed_at timestamptz,
  CHECK (
    (kind IN ('usdt-trc20', 'usdt-erc20') AND address IS NOT NULL AND iban IS NULL AND account IS NULL AND holder IS NULL AND bank IS NULL)
    OR (kind = 'bank' AND address IS NULL AND (iban IS NULL) <> (account IS NULL) AND holder IS NOT NULL AND bank IS NOT NULL)
  )
);

-- The cabinet's list: a merchant's destinations still in use, newest first.
CREATE INDEX payout_destinations_merchant ON payout_destinations (merchant_id, created_at DESC, id DESC) WHERE removed_at IS NULL;

CREATE TABLE withdrawal_requests (
  -- `wdr_`: once paid, the withdrawal of the ledger (`withdrawals`) carries the same id.
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  amount_usd numeric(24, 8) NOT NULL CHECK (amount_usd > 0),
  destination_id text NOT NULL REFERENCES payout_destinations(id),
  -- requested (its amount held) → paid | rejected; a decided request never changes again.
  status text NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'paid', 'rejected')),
  -- The transfer's reference (paid) or why not (rejected).
  reference text,
  reason text,
  -- The owner who asked (usr_), and who decided: an operator's id, or `token` for the operator API's bearer token.
  requested_by text NOT NULL,
  decided_by text,
  created_at timestamptz NOT NULL,
  decided_at timestamptz,
  CHECK ((status = 'requested') = (decided_at IS NULL)),
  CHECK (status <> 'paid' OR reference IS NOT NULL),
  CHECK (status <> 'rejected' OR reason IS NOT NULL)
);

-- What a merchant's open requests hold (summed under the merchant's lock at every request) and the
-- back office's queue, oldest first.
CREATE INDEX withdrawal_requests_held ON withdrawal_requests (merchant_id) INCLUDE (amount_usd) WHERE status = 'requested';
CREATE INDEX withdrawal_requests_queue ON withdrawal_requests (created_at, id) WHERE status = 'requested';
-- Every list of them: one merchant's (the cabinet, a filter of the operator API), or everyone's, newest first.
CREATE INDEX withdrawal_requests_merchant ON withdrawal_requests (merchant_id, created_at DESC, id DESC);
CREATE INDEX withdrawal_requests_created ON withdrawal_requests (created_at DESC, id DESC);
