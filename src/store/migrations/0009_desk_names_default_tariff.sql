-- Desks have names ("Desk N" by default, numbered per merchant in order of creation), and one
-- tariff may be the default that desks get when none is named.
ALTER TABLE desks ADD COLUMN name text;
UPDATE desks d SET name = 'Desk ' || x.n
  FROM (SELECT id, row_number() OVER (PARTITION BY merchant_id ORDER BY created_at, id) AS n FROM desks) x
 WHERE x.id = d.id;
ALTER TABLE desks ALTER COLUMN name SET NOT NULL;
ALTER TABLE desks ADD CONSTRAINT desks_name_length CHECK (char_length(name) BETWEEN 1 AND 100);

ALTER TABLE tariffs ADD COLUMN is_default boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX tariffs_one_default ON tariffs ((true)) WHERE is_default;
