-- A money-right first day: no desk trades at a zero fee nobody chose, demo rates say they are the
-- demo's, and a merchant asks for approval with an application an operator approves or rejects.

-- A desk without a tariff was priced at no fee, whether an operator chose that (`tariffId: null`)
-- or the desk was simply made while no default tariff existed. `no_fee` tells the two apart: true
-- only when an operator chose no fee. A desk with neither a tariff nor `no_fee` has no price yet:
-- approving its merchant gives it the default tariff, or is refused (TARIFF_REQUIRED).
ALTER TABLE desks ADD COLUMN no_fee boolean NOT NULL DEFAULT false;
ALTER TABLE desks ADD CONSTRAINT desks_no_fee_without_tariff CHECK (NOT no_fee OR tariff_id IS NULL);
-- Desks of merchants approved before this keep the fee they trade at: none, now marked as chosen,
-- so nothing an operator agreed changes under a live merchant (the back office shows "No fee").
UPDATE desks d SET no_fee = true
  FROM merchants m
 WHERE m.id = d.merchant_id AND d.tariff_id IS NULL
   AND (m.status = 'Active' OR (m.status = 'Blocked' AND m.status_before_block = 'Active'));

-- A manual rate the demo data set (RUB 91.80, KZT 478.50, INR 84.20): shown as `source: "demo"`
-- until an operator sets the rate by hand.
ALTER TABLE rates ADD COLUMN manual_demo boolean NOT NULL DEFAULT false;
-- On a database the demo data filled before: its rates are the ones nobody set through the operator
-- API or the back office (each such change has an audit entry), still at the demo's values.
UPDATE rates r SET manual_demo = true
 WHERE (r.code, r.manual_rate) IN (('RUB', 91.8), ('KZT', 478.5), ('INR', 84.2))
   AND EXISTS (SELECT 1 FROM merchants WHERE name = 'Demo merchant')
   AND NOT EXISTS (SELECT 1 FROM audit_entries a WHERE a.action = 'rate.set' AND a.object_id = r.code AND a.outcome = 'ok');

-- The demo data's tariff is the default tariff; on a database it filled before, it becomes the
-- default when none was chosen (the seed's tariff is the one named so that no audited action made).
UPDATE tariffs t SET is_default = true
 WHERE t.id = (SELECT x.id FROM tariffs x
                WHERE x.name = 'Demo tariff' AND NOT EXISTS (SELECT 1 FROM audit_entries a WHERE a.object_id = x.id)
                ORDER BY x.created_at, x.id LIMIT 1)
   AND NOT EXISTS (SELECT 1 FROM tariffs WHERE is_default);

-- A merchant's application for approval, one per merchant: the business's details as the cabinet's
-- form keeps them (any field may be empty in a draft), and where it stands.
CREATE TABLE merchant_applications (
  merchant_id text PRIMARY KEY REFERENCES merchants(id),
  -- draft → submitted → approved | rejected (edited and submitted again); see src/domain/applications.ts.
  status text NOT NULL CHECK (status IN ('draft', 'submitted', 'approved', 'rejected')),
  legal_name text,
  -- ISO 3166-1 alpha-2.
  country text CHECK (country ~ '^[A-Z]{2}$'),
  website text,
  description text,
  monthly_volume_usd numeric(15, 2) CHECK (monthly_volume_usd > 0),
  contact text,
  -- When it was last submitted, and when an operator last decided it (both cleared by a new submission).
  submitted_at timestamptz,
  decided_at timestamptz,
  -- The operator's reason for a rejection.
  reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- The back office's review queue: submitted applications, the longest waiting first.
CREATE INDEX merchant_applications_submitted ON merchant_applications (submitted_at, merchant_id) WHERE status = 'submitted';
