import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

const HEX_KEY = 'ab'.repeat(32);
const PG = 'postgres://postgres@127.0.0.1:5432/paygate';

/** Expects parseConfig to stop with a ConfigError that names the variable, in the property and in the message. */
function expectRefused(env: Record<string, string>, variable: string) {
  let err: unknown;
  try {
    parseConfig(env);
  } catch (e) {
    err = e;
  }
  expect(err, `${JSON.stringify(env)} should be refused`).toBeInstanceOf(ConfigError);
  expect((err as ConfigError).variable).toBe(variable);
  expect((err as ConfigError).message).toContain(variable);
}

describe('parseConfig', () => {
  it('an empty environment gives the documented defaults', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: './data',
      databaseUrl: null,
      redisUrl: null,
      adminToken: null,
      masterKey: null,
      publicBaseUrl: 'http://127.0.0.1:8080',
      callbackAllowlist: '',
      seedDemo: true,
      logLevel: 'info',
      fxSources: [],
    });
    expect(c.breaker).toEqual({ windowSize: 20, minSamples: 10, successRateBelow: 0.5, coolDownMs: 60_000, halfOpenShare: 0.1, halfOpenSuccessesToClose: 5 });
  });

  it('blank values count as unset', () => {
    const c = parseConfig({ PORT: '', HOST: '  ', DATABASE_URL: '', SEED_DEMO: ' ' });
    expect(c).toMatchObject({ port: 8080, host: '127.0.0.1', databaseUrl: null, databasePoolSize: 10, seedDemo: true });
    expect(parseConfig({ DATABASE_POOL_SIZE: '4' }).databasePoolSize).toBe(4);
  });

  it('reads the given values', () => {
    const c = parseConfig({
      PORT: '9090',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/paygate',
      DATABASE_URL: PG,
      REDIS_URL: 'redis://127.0.0.1:6379',
      ADMIN_TOKEN: 'a-long-operator-token',
      MASTER_KEY: HEX_KEY,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      FX_SOURCES: 'cbr, ecb',
      CALLBACK_ALLOWLIST: '10.0.0.0/8',
    });
    expect(c).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      dataDir: '/var/lib/paygate',
      databaseUrl: PG,
      redisUrl: 'redis://127.0.0.1:6379',
      adminToken: 'a-long-operator-token',
      seedDemo: false,
      logLevel: 'warn',
      fxSources: ['cbr', 'ecb'],
      callbackAllowlist: '10.0.0.0/8',
    });
    // Links handed to customers never point at the wildcard address.
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:9090');
    expect(c.masterKey!.equals(Buffer.from(HEX_KEY, 'hex'))).toBe(true);
  });

  it('PUBLIC_BASE_URL wins over HOST and PORT and loses its trailing slash', () => {
    expect(parseConfig({ PORT: '9090', PUBLIC_BASE_URL: 'https://pay.example.com/' }).publicBaseUrl).toBe('https://pay.example.com');
  });

  it('PUBLIC_URL is the name to use; PUBLIC_BASE_URL still works, and PUBLIC_URL wins over it', () => {
    expect(parseConfig({ PORT: '9090', PUBLIC_URL: 'https://pay.example.com/gate/' }).publicBaseUrl).toBe('https://pay.example.com/gate');
    expect(parseConfig({ PUBLIC_URL: 'https://new.example.com', PUBLIC_BASE_URL: 'https://old.example.com' }).publicBaseUrl).toBe('https://new.example.com');
    // Blank counts as not given, as for every variable.
    expect(parseConfig({ PUBLIC_URL: ' ', PUBLIC_BASE_URL: 'https://old.example.com' }).publicBaseUrl).toBe('https://old.example.com');
  });

  it.each(['true', 'TRUE', '1', 'yes'])('SEED_DEMO=%s is true', (v) => expect(parseConfig({ SEED_DEMO: v }).seedDemo).toBe(true));
  it.each(['false', 'False', '0', 'no'])('SEED_DEMO=%s is false', (v) => expect(parseConfig({ SEED_DEMO: v }).seedDemo).toBe(false));

  const bad: [string, Record<string, string>][] = [
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '80.5' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '65536' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: '0' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: 'many' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/paygate', MASTER_KEY: HEX_KEY }],
    ['DATABASE_URL', { DATABASE_URL: 'localhost:5432', MASTER_KEY: HEX_KEY }],
    ['REDIS_URL', { REDIS_URL: 'http://127.0.0.1:6379' }],
    ['REDIS_URL', { REDIS_URL: '127.0.0.1:6379' }],
    ['MASTER_KEY', { MASTER_KEY: 'too-short' }],
    ['MASTER_KEY', { MASTER_KEY: 'ab'.repeat(31) }],
    ['MASTER_KEY', { MASTER_KEY: randomBytes(31).toString('base64') }],
    ['MASTER_KEY', { MASTER_KEY: randomBytes(33).toString('base64') }],
    ['SEED_DEMO', { SEED_DEMO: 'maybe' }],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'short' }],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: '0123456789abcde' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['FX_SOURCES', { FX_SOURCES: 'cbr,yahoo' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://pay.example.com' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'pay.example.com' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'pay.example.com' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'https://pay.example.com/?shop=1' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'https://pay.example.com/#top' }],
    // The name given is the name blamed, even beside a good older one.
    ['PUBLIC_URL', { PUBLIC_URL: 'ftp://pay.example.com', PUBLIC_BASE_URL: 'https://pay.example.com' }],
    ['RATE_MAX_JUMP_PERCENT', { RATE_MAX_JUMP_PERCENT: '0' }],
    ['APPEAL_SLA_HOURS', { APPEAL_SLA_HOURS: '0' }],
    ['CABINET_SIGNUP', { CABINET_SIGNUP: 'invite' }],
    ['OFFICE_REQUIRE_2FA', { OFFICE_REQUIRE_2FA: 'sometimes' }],
    ['BREAKER_SUCCESS_RATE_BELOW', { BREAKER_SUCCESS_RATE_BELOW: '1.5' }],
  ];
  it.each(bad)('a bad %s stops with a ConfigError naming it (%j)', (variable, env) => expectRefused(env, variable));

  it('CABINET_SIGNUP is open by default and may be closed', () => {
    expect(parseConfig({}).cabinetSignup).toBe('open');
    expect(parseConfig({ CABINET_SIGNUP: 'closed' }).cabinetSignup).toBe('closed');
  });

  it('OFFICE_REQUIRE_2FA is on by default and may be turned off', () => {
    expect(parseConfig({}).officeRequire2fa).toBe(true);
    expect(parseConfig({ OFFICE_REQUIRE_2FA: 'false' }).officeRequire2fa).toBe(false);
  });

  describe('TRUST_PROXY', () => {
    it('is off unset, with false, no or 0', () => {
      for (const env of [{}, { TRUST_PROXY: 'false' }, { TRUST_PROXY: 'No' }, { TRUST_PROXY: '0' }, { TRUST_PROXY: ' ' }]) {
        expect(parseConfig(env).trustProxy, JSON.stringify(env)).toBe(false);
      }
    });

    it('true (or yes) trusts every hop', () => {
      expect(parseConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
      expect(parseConfig({ TRUST_PROXY: 'YES' }).trustProxy).toBe(true);
    });

    it('a whole number is a hop count: 1 trusts the one proxy in front, not every hop', () => {
      expect(parseConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
      expect(parseConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
      expect(parseConfig({ TRUST_PROXY: '20' }).trustProxy).toBe(20);
    });

    it('a comma-separated list of addresses, CIDR ranges and proxy-addr range names is kept as a frozen list', () => {
      const c = parseConfig({ TRUST_PROXY: ' 10.0.0.5, 10.1.0.0/16 ,2001:db8::1,2001:db8::/32,loopback,uniquelocal,linklocal,192.168.1.0/0' });
      expect(c.trustProxy).toEqual(['10.0.0.5', '10.1.0.0/16', '2001:db8::1', '2001:db8::/32', 'loopback', 'uniquelocal', 'linklocal', '192.168.1.0/0']);
      expect(Object.isFrozen(c.trustProxy)).toBe(true);
      expect(parseConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
    });

    it.each([
      ['a name', 'proxy.internal'],
      ['an address out of range', '10.0.0.300'],
      ['an IPv4 prefix above 32', '10.0.0.0/33'],
      ['an IPv6 prefix above 128', '2001:db8::/129'],
      ['a netmask instead of a prefix', '10.0.0.0/255.0.0.0'],
      ['two slashes', '10.0.0.0/8/8'],
      ['an empty entry', '10.0.0.1,,10.0.0.2'],
      ['a trailing comma', '10.0.0.1,'],
      ['a hop count above 20', '21'],
      ['a negative hop count', '-1'],
      ['a boolean-looking word', 'maybe'],
    ])('refuses %s (%s) with a ConfigError naming TRUST_PROXY', (_what, value) => {
      expectRefused({ TRUST_PROXY: value }, 'TRUST_PROXY');
    });

    it('says what it takes when refusing', () => {
      expect(() => parseConfig({ TRUST_PROXY: 'proxy.internal' })).toThrow(/"proxy.internal" is not an address or a CIDR range; give the proxies' addresses or CIDR ranges/);
    });
  });

  it('an ADMIN_TOKEN of exactly 16 characters is accepted', () => {
    expect(parseConfig({ ADMIN_TOKEN: '0123456789abcdef' }).adminToken).toBe('0123456789abcdef');
  });

  it('MASTER_KEY is required with DATABASE_URL, and optional without it', () => {
    expectRefused({ DATABASE_URL: PG }, 'MASTER_KEY');
    expect(parseConfig({ DATABASE_URL: PG, MASTER_KEY: HEX_KEY }).databaseUrl).toBe(PG);
    expect(parseConfig({ DATABASE_URL: 'postgresql://u@db/paygate', MASTER_KEY: HEX_KEY }).databaseUrl).toBe('postgresql://u@db/paygate');
    expect(parseConfig({}).masterKey).toBeNull();
  });

  it('MASTER_KEY is read as 64 hex characters (either case) or as base64 of 32 bytes', () => {
    const raw = randomBytes(32);
    for (const given of [raw.toString('hex'), raw.toString('hex').toUpperCase(), raw.toString('base64'), raw.toString('base64url')]) {
      const key = parseConfig({ MASTER_KEY: given }).masterKey!;
      expect(key.length, given).toBe(32);
      expect(key.equals(raw), given).toBe(true);
    }
  });

  it('the configuration is frozen, its nested parts too', () => {
    const c = parseConfig({});
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.breaker)).toBe(true);
    expect(() => {
      (c as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (c.breaker as { minSamples: number }).minSamples = 1;
    }).toThrow(TypeError);
    expect(() => {
      (c.fxSources as string[]).push('cbr');
    }).toThrow(TypeError);
    expect(c.port).toBe(8080);
  });
});
