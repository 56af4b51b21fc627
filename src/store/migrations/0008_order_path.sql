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

-- Orders name their desk and merchant without foreign-key constraints: the two checks (each a
-- lookup that also locks the row) cost the order insert, the hottest statement there is, about a
-- quarter of its time on the embedded database and a fifth on PostgreSQL. The ids always come
-- from the desk and merchant that authentication read, and neither can ever be deleted: these
-- triggers refuse it (nothing in Paygate deletes one; a desk is stopped, a merchant blocked).
ALTER TABLE orders DROP CONSTRAINT orders_desk_id_fkey, DROP CONSTRAINT orders_merchant_id_fkey;

CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are never deleted (stop or block them instead)', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER desks_never_deleted BEFORE DELETE ON desks FOR EACH ROW EXECUTE FUNCTION refuse_delete();
CREATE TRIGGER merchants_never_deleted BEFORE DELETE ON merchants FOR EACH ROW EXECUTE FUNCTION refuse_delete();
