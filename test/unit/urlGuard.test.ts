import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BlockedAddressError,
  EMPTY_ALLOWLIST,
  checkCallbackUrl,
  checkCallbackUrlSyntax,
  isAllowlistedAddress,
  isAllowlistedHost,
  isBlockedAddress,
  isBlockedAddressError,
  parseAllowlist,
  type Allowlist,
  type Resolver,
} from '../../src/callbacks/urlGuard.js';

/** Fake DNS: names map to fixed answers; anything else fails like NXDOMAIN. */
const DNS: Record<string, string[]> = {
  'public.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:1e40'],
  'shop.example': ['93.184.215.14'],
  'internal.example': ['10.0.0.5'],
  'mixed.example': ['93.184.215.14', '192.168.0.10'],
  'mixed-v6.example': ['2606:4700::1111', 'fd12::1'],
  'v6private.example': ['fd12:3456::1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'meta.example': ['169.254.169.254'],
  'cgnat.example': ['100.100.100.200'],
  'loop6.example': ['::1'],
  'empty.example': [],
  'lo.example': ['127.0.0.2'],
  'xn--bcher-kva.example': ['93.184.215.14'],
};

function fakeResolve(calls?: string[]) {
  return async (host: string): Promise<string[]> => {
    calls?.push(host);
    const answer = DNS[host.replace(/\.$/, '')];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer;
  };
}

async function check(url: string, allowlist: Allowlist = EMPTY_ALLOWLIST) {
  return checkCallbackUrl(url, { allowlist, resolve: fakeResolve() });
}

type Vector = [name: string, url: string];

const REFUSED: Vector[] = [
  // IPv4 literal spellings the URL parser normalises to a loopback or private address
  ['dotted loopback', 'http://127.0.0.1/'],
  ['decimal integer', 'http://2130706433/'],
  ['hex integer', 'http://0x7f000001/'],
  ['hex first octet', 'http://0x7f.0.0.1/'],
  ['octal octets', 'http://0177.0.0.1/'],
  ['octal integer', 'http://017700000001/'],
  ['short form 127.1', 'http://127.1/'],
  ['short form 10.1', 'http://10.1/'],
  ['mixed hex short form', 'http://0x7f.1/'],
  ['zero', 'http://0/'],
  ['unspecified v4', 'http://0.0.0.0/'],
  ['trailing dot literal with port', 'http://127.0.0.1.:8080/'],
  ['percent-encoded digits', 'http://%31%32%37.0.0.1/'],
  ['full-width digits', 'http://１２７.０.０.１/'],
  ['enclosed digits', 'http://①②⑦.0.0.1/'],
  ['ideographic full stop', 'http://127。0。0。1/'],
  // private, shared and special-purpose IPv4 ranges
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
  ['10/8 https with port', 'https://10.0.0.1:443/'],
  ['100.64/10', 'http://100.64.0.1/'],
  ['172.16/12 low', 'http://172.16.0.1/'],
  ['172.16/12 high', 'http://172.31.255.255/'],
  ['192.168/16', 'http://192.168.1.1/'],
  ['192.0.0/24', 'http://192.0.0.170/'],
  ['198.18/15', 'http://198.19.255.1/'],
  ['TEST-NET-1', 'http://192.0.2.1/'],
  ['TEST-NET-3', 'http://203.0.113.9/'],
  ['multicast', 'http://224.0.0.1/'],
  ['240/4', 'http://240.0.0.1/'],
  ['limited broadcast', 'http://255.255.255.255/'],
  // IPv6 literals and IPv4 carried inside IPv6
  ['IPv4-mapped dotted', 'http://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped hex', 'http://[::ffff:7f00:1]/'],
  ['IPv4-mapped metadata', 'http://[::ffff:a9fe:a9fe]/'],
  ['IPv4-compatible', 'http://[::127.0.0.1]/'],
  ['IPv4-compatible public', 'http://[::8.8.8.8]/'],
  ['NAT64 private', 'http://[64:ff9b::a00:1]/'],
  ['NAT64 public', 'http://[64:ff9b::808:808]/'],
  ['6to4 private', 'http://[2002:a00:1::]/'],
  ['6to4 public', 'http://[2002:808:808::1]/'],
  ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
  ['link-local v6', 'http://[fe80::1]/'],
  ['unique local fd', 'http://[fd00::1]/'],
  ['unique local fc', 'http://[fc00::1]/'],
  ['unspecified v6', 'http://[::]/'],
  ['loopback v6', 'http://[::1]/'],
  ['loopback v6 long form', 'http://[0:0:0:0:0:0:0:1]/'],
  ['multicast v6', 'http://[ff02::1]/'],
  ['documentation v6', 'http://[2001:db8::1]/'],
  ['documentation v6 3fff::/20', 'http://[3fff::1]/'],
  ['site-local v6', 'http://[fec0::1]/'],
  // credentials in any form
  ['userinfo host before private', 'http://good.com@10.0.0.1/'],
  ['backslash before @', 'http://10.0.0.1\\@good.com'],
  ['user and password', 'http://user:pass@shop.example/'],
  ['empty credentials', 'http://:@shop.example/'],
  ['user only on public host', 'http://shop.example@public.example/'],
  ['userinfo on v6 literal', 'http://user@[::1]/'],
  ['percent-encoded @ in host', 'http://shop.example%40127.0.0.1/'],
  // blocked names, case and trailing dots
  ['localhost', 'http://localhost/'],
  ['localhost upper with dot', 'http://LOCALHOST./'],
  ['localhost mixed case with port', 'http://LocalHost:3000/'],
  ['localhost two trailing dots', 'http://localhost../'],
  ['subdomain of localhost', 'http://a.b.localhost/'],
  ['percent-encoded localhost', 'http://%6c%6fcalhost/'],
  ['full-width localhost', 'http://ｌｏｃａｌｈｏｓｔ/'],
  ['GCP metadata with dot', 'http://metadata.google.internal./'],
  ['GCP metadata upper', 'http://METADATA.GOOGLE.INTERNAL/computeMetadata/v1/'],
  ['bare metadata', 'http://metadata/'],
  ['instance-data', 'http://instance-data/latest/'],
  // schemes and shapes that are not an absolute http(s) URL
  ['file', 'file:///etc/passwd'],
  ['gopher', 'gopher://shop.example:70/_GET'],
  ['ftp', 'ftp://shop.example/'],
  ['javascript', 'javascript:alert(1)'],
  ['data', 'data:text/plain,hi'],
  ['websocket', 'ws://shop.example/'],
  ['scheme-relative', '//shop.example/cb'],
  ['path only', '/callback'],
  ['no slashes after scheme', 'http:shop.example/cb'],
  ['single slash after scheme', 'http:/shop.example/cb'],
  ['embedded space', 'http://shop.example/a b'],
  ['embedded tab', 'http://shop.exa\tmple/'],
  ['leading space', ' http://shop.example/'],
  ['empty', ''],
  ['too long', `https://shop.example/${'a'.repeat(2100)}`],
  // host names whose records point inside
  ['resolves to 10/8', 'http://internal.example/'],
  ['one public and one private record', 'http://mixed.example/'],
  ['one public and one private v6 record', 'https://mixed-v6.example/'],
  ['resolves to unique local v6', 'http://v6private.example/'],
  ['resolves to mapped loopback', 'http://mapped.example/'],
  ['resolves to metadata address', 'http://meta.example/'],
  ['resolves to carrier NAT', 'http://cgnat.example/'],
  ['resolves to v6 loopback', 'http://loop6.example/'],
];

const ACCEPTED: Vector[] = [
  ['public IPv4 literal', 'https://93.184.215.14/'],
  ['public IPv6 literal', 'https://[2606:4700::1111]/'],
  ['IPv4-mapped public address', 'https://[::ffff:8.8.8.8]/'],
  ['public name, all records public', 'https://public.example/cb?order=1#x'],
  ['public name with trailing dot and port', 'http://shop.example.:8080/notify'],
  ['@ in the path is not userinfo', 'https://shop.example/users/@me'],
  ['upper-case scheme and host', 'HTTPS://SHOP.EXAMPLE/cb'],
  ['internationalised name', 'https://bücher.example/cb'],
  // Not resolvable where the check runs: nothing shows it points anywhere private; delivery resolves and checks again.
  ['does not resolve', 'http://nxdomain.example/'],
  ['resolves to nothing', 'http://empty.example/'],
];

describe('checkCallbackUrl bypass vectors', () => {
  it('has a table of at least 50 refused vectors', () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(50);
  });

  it.each(REFUSED)('refuses %s: %s', async (_name, url) => {
    const result = await check(url);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      // Reasons become the `detail` of INVALID_CALLBACK_URL: short text, no stack.
      expect(result.reason.length).toBeGreaterThan(0);
      expect(result.reason.length).toBeLessThan(200);
      expect(result.reason).not.toMatch(/\n|\bat .*:\d+:\d+/);
    }
  });

  it.each(ACCEPTED)('accepts %s: %s', async (_name, url) => {
    const result = await check(url);
    expect(result).toMatchObject({ ok: true });
    if (result.ok) expect(result.url).toBeInstanceOf(URL);
  });
});

describe('checkCallbackUrl reasons', () => {
  it.each([
    ['http://2130706433/', /127\.0\.0\.1.*loopback/],
    ['http://[::ffff:7f00:1]/', /IPv4-mapped loopback/],
    ['http://[64:ff9b::a00:1]/', /NAT64 private/],
    ['http://good.com@10.0.0.1/', /credentials/],
    ['gopher://shop.example/', /scheme gopher:/],
    ['http://LOCALHOST./', /host localhost is not allowed/],
    ['http://mixed.example/', /resolves to a non-public address 192\.168\.0\.10/],
  ])('%s is refused with a reason matching %s', async (url, pattern) => {
    const result = await check(url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(pattern);
  });

  it('returns the parsed URL, normalised', async () => {
    const result = await check('HTTPS://SHOP.EXAMPLE:443/a/../cb');
    expect(result.ok && result.url.href).toBe('https://shop.example/cb');
  });

  it('resolves the parsed (IDNA) host name, not the raw text', async () => {
    const calls: string[] = [];
    const result = await checkCallbackUrl('https://BÜCHER.example/cb', { allowlist: EMPTY_ALLOWLIST, resolve: fakeResolve(calls) });
    expect(result.ok).toBe(true);
    expect(calls).toEqual(['xn--bcher-kva.example']);
  });

  it('does not resolve IP literals or names refused by syntax', async () => {
    const calls: string[] = [];
    const resolve = fakeResolve(calls);
    await checkCallbackUrl('https://93.184.215.14/', { allowlist: EMPTY_ALLOWLIST, resolve });
    await checkCallbackUrl('http://localhost/', { allowlist: EMPTY_ALLOWLIST, resolve });
    await checkCallbackUrl('http://user@shop.example/', { allowlist: EMPTY_ALLOWLIST, resolve });
    expect(calls).toEqual([]);
  });
});

describe('checkCallbackUrlSyntax', () => {
  it('leaves a host name to resolve and needs none for literals', () => {
    expect(checkCallbackUrlSyntax('https://shop.example/cb', EMPTY_ALLOWLIST)).toMatchObject({ ok: true, resolveHost: 'shop.example' });
    expect(checkCallbackUrlSyntax('https://93.184.215.14/cb', EMPTY_ALLOWLIST)).toMatchObject({ ok: true, resolveHost: null });
    expect(checkCallbackUrlSyntax('http://0x7f.1/', EMPTY_ALLOWLIST)).toMatchObject({ ok: false });
  });
});

describe('allowlist', () => {
  const allowlist = parseAllowlist(' dev.internal , 127.0.0.0/8,fd00::/8, [::1], 10.9.8.7 ,');

  it.each([
    ['IPv4 literal in an allowlisted CIDR', 'http://127.0.0.1:3000/cb'],
    ['decimal form of an allowlisted address', 'http://2130706433/'],
    ['IPv4-mapped form of an allowlisted address', 'http://[::ffff:127.0.0.1]/'],
    ['IPv6 literal in an allowlisted CIDR', 'http://[fd00::5]/'],
    ['bracketed single IPv6 address', 'http://[::1]/'],
    ['single IPv4 address', 'http://10.9.8.7/'],
    ['allowlisted host name', 'http://dev.internal/'],
    ['allowlisted host name, any case, trailing dot', 'http://DEV.INTERNAL./'],
    ['name resolving inside an allowlisted CIDR', 'http://lo.example/'],
  ])('exempts %s: %s', async (_name, url) => {
    expect(await check(url, allowlist)).toMatchObject({ ok: true });
  });

  it('does not consult DNS for an allowlisted host name', async () => {
    const calls: string[] = [];
    const result = await checkCallbackUrl('http://dev.internal/', { allowlist, resolve: fakeResolve(calls) });
    expect(result.ok).toBe(true);
    expect(calls).toEqual([]);
  });

  it.each([
    ['address outside the allowlist', 'http://10.0.0.1/'],
    ['neighbour of a single allowlisted address', 'http://10.9.8.8/'],
    ['blocked name not on the list', 'http://localhost/'],
    ['name resolving outside the allowlist', 'http://internal.example/'],
    ['credentials on an allowlisted address', 'http://user@127.0.0.1/'],
    ['non-http scheme on an allowlisted host', 'ftp://dev.internal/'],
  ])('still refuses %s: %s', async (_name, url) => {
    expect(await check(url, allowlist)).toMatchObject({ ok: false });
  });

  it('matches hosts and addresses directly', () => {
    expect(isAllowlistedHost(allowlist, 'Dev.Internal.')).toBe(true);
    expect(isAllowlistedHost(allowlist, 'other.internal')).toBe(false);
    expect(isAllowlistedAddress(allowlist, '127.255.0.1')).toBe(true);
    expect(isAllowlistedAddress(allowlist, '128.0.0.1')).toBe(false);
    expect(isAllowlistedAddress(allowlist, 'fdff::1')).toBe(true);
    expect(isAllowlistedAddress(allowlist, 'fe80::1')).toBe(false);
  });

  it('is empty for an empty string', () => {
    const empty = parseAllowlist('');
    expect(empty.hosts.size).toBe(0);
    expect(empty.ranges.length).toBe(0);
  });

  it.each(['10.0.0.0/33', 'fd00::/129', 'not a host/8', ' , exa mple'])('rejects malformed entry %j', (raw) => {
    expect(() => parseAllowlist(raw)).toThrow(/allowlist entry/);
  });
});

describe('isBlockedAddress', () => {
  it.each([
    '0.0.0.0', '0.255.255.255', '10.0.0.0', '10.255.255.255', '100.64.0.0', '100.127.255.255', '127.0.0.1', '127.255.255.254',
    '169.254.0.1', '172.16.0.0', '172.31.255.255', '192.0.0.8', '192.0.2.55', '192.88.99.1', '192.168.0.1', '198.18.0.0',
    '198.19.255.255', '198.51.100.7', '203.0.113.200', '224.0.0.251', '239.255.255.250', '240.0.0.0', '255.255.255.255',
    '::', '::1', '::ffff:10.1.2.3', '::ffff:0.0.0.0', '::a00:1', '64:ff9b::7f00:1', '64:ff9b::808:808', '64:ff9b:1::1',
    '2002:c0a8:101::1', '2002:808:808::', '2001::1', '2001:2::1', '2001:db8:ffff::1', '3fff:fff::1', '100::1', 'fc00::',
    'fdff:ffff::1', 'fe80::1', 'febf::1', 'fe80::1%eth0', 'ff02::1', 'ff0e::1', '4000::1', '1::1',
    // not addresses at all: fail closed
    '', 'localhost', '0177.0.0.1', '127.1', '2130706433', '[::1]', '1.2.3.4.5',
  ])('blocks %j', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.0.1.1',
    '192.169.0.1', '198.17.255.255', '198.20.0.0', '223.255.255.254', '11.0.0.1', '126.255.255.255', '128.0.0.1',
    '2606:4700::1111', '2a00:1450:4001:82a::200e', '2001:200::1', '2003::1', '3ffe::1', '::ffff:8.8.8.8'])('passes global unicast %j', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });

  // Property: whatever spelling of a blocked IPv4 address a URL uses, the parsed URL is refused.
  it('refuses every spelling of any address in a private or loopback range', async () => {
    const privateV4 = fc.oneof(
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
    );
    await fc.assert(
      fc.asyncProperty(privateV4, fc.nat(4), async (octets, spelling) => {
        const int = ((octets[0] << 24) >>> 0) + (octets[1] << 16) + (octets[2] << 8) + octets[3];
        const hex = (n: number) => n.toString(16).padStart(4, '0');
        const host = [
          octets.join('.'),
          String(int),
          `0x${int.toString(16)}`,
          octets.map((o) => `0${o.toString(8)}`).join('.'),
          `[::ffff:${hex(int >>> 16)}:${hex(int & 0xffff)}]`,
        ][spelling];
        const result = await checkCallbackUrl(`http://${host}/cb`, { allowlist: EMPTY_ALLOWLIST, resolve: fakeResolve() });
        expect(result.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('BlockedAddressError', () => {
  it('is recognisable by class and by code', () => {
    const err = new BlockedAddressError('evil.example', 'resolves to 10.0.0.1');
    expect(isBlockedAddressError(err)).toBe(true);
    expect(isBlockedAddressError(Object.assign(new Error('x'), { code: 'ERR_BLOCKED_ADDRESS' }))).toBe(true);
    expect(isBlockedAddressError(new Error('connect ECONNREFUSED'))).toBe(false);
    expect(err.message).toContain('evil.example');
  });
});

describe('DNS at check time', () => {
  it('a lookup that does not answer in time leaves the name to the connect-time check', async () => {
    const never: Resolver = () => new Promise(() => {});
    const started = Date.now();
    const r = await checkCallbackUrl('https://slow-dns.example/cb', { allowlist: EMPTY_ALLOWLIST, resolve: never, resolveTimeoutMs: 50 });
    expect(r.ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a name that resolves to a private address is still refused, however the lookup ends', async () => {
    const r = await checkCallbackUrl('https://inside.example/cb', { allowlist: EMPTY_ALLOWLIST, resolve: async () => ['10.1.2.3'] });
    expect(r.ok).toBe(false);
  });
});
