-- A version per catalogue that every signed request reads in its authentication statement, so an
-- instance may keep the providers (with their circuits) and the currencies (with their rates) in
-- memory and still see any change, made by any instance, on the very next request.
CREATE TABLE catalog_versions (
  name text PRIMARY KEY,
  version bigint NOT NULL
);
INSERT INTO catalog_versions (name, version) VALUES ('providers', 1), ('currencies', 1);

CREATE FUNCTION bump_catalog_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_versions SET version = version + 1 WHERE name = TG_ARGV[0];
  RETURN NULL;
END;
$$;

CREATE TRIGGER providers_catalog_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON providers
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version('providers');
CREATE TRIGGER provider_circuits_catalog_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON provider_circuits
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version('providers');
CREATE TRIGGER currencies_catalog_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON currencies
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version('currencies');
CREATE TRIGGER rates_catalog_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON rates
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version('currencies');
