-- The turnover caps join the catalogues that authentication reads a version of, so an instance may
-- keep the caps in memory for order creation and still see a cap added or removed anywhere on the
-- very next request. (The counters they are checked against are read afresh, as before.)
INSERT INTO catalog_versions (name, version) VALUES ('limits', 1);

CREATE TRIGGER turnover_limits_catalog_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON turnover_limits
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version('limits');

-- A version per desk and per merchant row, raised by the database itself on every change that can
-- matter to a request (a merchant's balance moving is not one). Order creation checks in its one
-- statement that the desk and merchant it validated against are still at the versions it saw.
ALTER TABLE desks ADD COLUMN row_version bigint NOT NULL DEFAULT 1;
ALTER TABLE merchants ADD COLUMN row_version bigint NOT NULL DEFAULT 1;

CREATE FUNCTION bump_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.row_version := OLD.row_version + 1;
  RETURN NEW;
END;
$$;

CREATE TRIGGER desks_row_version BEFORE UPDATE ON desks
  FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER merchants_row_version BEFORE UPDATE OF name, status, status_before_block, block_reason, sandbox ON merchants
  FOR EACH ROW EXECUTE FUNCTION bump_row_version();
