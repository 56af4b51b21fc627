import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';

/*
 * Callback targets are merchant-supplied URLs that the gateway itself fetches, so every one is a
 * potential request forgery into our own network. Only global unicast addresses pass; everything
 * else (loopback, private, link-local, carrier NAT, documentation, multicast, transition
 * wrappers that could smuggle one of those) is refused. The same rules run when the URL is
 * accepted (checkCallbackUrl) and when the socket is opened (pinnedDispatcher), so a DNS answer
 * that changes between the two cannot reach an internal address.
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** Hosts and address ranges exempt from every address rule; meant for development and tests. */
export interface Allowlist {
  /** Lower-case ASCII host names without trailing dot. */
  readonly hosts: ReadonlySet<string>;
  readonly ranges: readonly Cidr[];
}

export const EMPTY_ALLOWLIST: Allowlist = Object.freeze({ hosts: new Set<string>(), ranges: Object.freeze([]) as readonly Cidr[] });

/** Returns every A and AAAA address of a host name. */
export type Resolver = (host: string) => Promise<string[]>;

export const defaultResolve: Resolver = async (host) => {
  // verbatim keeps the resolver's order, which is the order the dispatcher tries them in.
  const records = await lookup(host, { all: true, verbatim: true });
  return records.map((r) => r.address);
};

/** Thrown from the connect step when the target is refused; the sender maps it to a permanent rejection. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`callback target ${host} refused: ${reason}`);
    this.name = 'BlockedAddressError';
  }
}

export function isBlockedAddressError(err: unknown): err is BlockedAddressError {
  return err instanceof BlockedAddressError || (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ERR_BLOCKED_ADDRESS');
}

function cidrs(table: ReadonlyArray<readonly [string, string]>): Array<[Cidr, string]> {
  return table.map(([cidr, label]) => [ipaddr.parseCIDR(cidr), label]);
}

// IANA special-purpose registry entries that are not globally reachable, plus multicast and the
// former class E (which holds the limited broadcast address). AS112 and AMT anycast ranges are
// globally reachable and stay allowed.
const IPV4_REFUSED = cidrs([
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

// Inside 2000::/3, the blocks that are not ordinary global unicast. 2001::/23 is refused whole:
// it holds Teredo, benchmarking and ORCHID, and none of it hosts a merchant's web server.
const IPV6_REFUSED_IN_GLOBAL = cidrs([
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
]);

// Outside 2000::/3 everything is refused; these only name the reason.
const IPV6_NAMED_OUTSIDE_GLOBAL = cidrs([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'local NAT64'],
  ['100::/64', 'discard'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
]);

function firstMatch(addr: Address, table: Array<[Cidr, string]>): string | null {
  for (const [range, label] of table) {
    if (range[0].kind() === addr.kind() && addr.match(range)) return label;
  }
  return null;
}

function v4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address carried inside a transition form, with the form's name. */
function embeddedIPv4(v6: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | null {
  const p = v6.parts;
  if (v6.isIPv4MappedAddress()) return { form: 'IPv4-mapped', v4: v6.toIPv4Address() };
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 && !(p[6] === 0 && p[7] <= 1)) {
    return { form: 'IPv4-compatible', v4: v4FromParts(p[6], p[7]) };
  }
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
    return { form: 'NAT64', v4: v4FromParts(p[6], p[7]) };
  }
  if (p[0] === 0x2002) return { form: '6to4', v4: v4FromParts(p[1], p[2]) };
  return null;
}

function parseAddress(ip: string): Address | null {
  // Only canonical literals: inet_aton-style forms (octal, hex, short) never come from the URL
  // parser or the resolver, so anything else is a caller mistake and fails closed.
  if (isIP(ip) === 0) return null;
  try {
    return ipaddr.parse(ip);
  } catch {
    return null;
  }
}

function v4Reason(v4: ipaddr.IPv4): string | null {
  return firstMatch(v4, IPV4_REFUSED);
}

/**
 * Why an address may not be a callback target, or null for a global unicast address.
 * Anything that does not parse as an IP address is refused too.
 */
export function blockedAddressReason(ip: string): string | null {
  const addr = parseAddress(ip);
  if (addr === null) return 'not an IP address';
  if (addr.kind() === 'ipv4') return v4Reason(addr as ipaddr.IPv4);

  const v6 = addr as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  // An IPv4-mapped address is the IPv4 host itself on a dual-stack socket: judge the IPv4 address.
  if (embedded?.form === 'IPv4-mapped') {
    const inner = v4Reason(embedded.v4);
    return inner === null ? null : `IPv4-mapped ${inner}`;
  }
  // The other wrappers are refused whatever they carry (their gateways are not ours to vouch
  // for); naming the inner range makes the refusal easier to understand.
  if (embedded !== null) {
    const inner = v4Reason(embedded.v4);
    return inner === null ? embedded.form : `${embedded.form} ${inner}`;
  }
  if (!v6.match(IPV6_GLOBAL_UNICAST)) return firstMatch(v6, IPV6_NAMED_OUTSIDE_GLOBAL) ?? 'not global unicast';
  return firstMatch(v6, IPV6_REFUSED_IN_GLOBAL);
}

/** True for every address that is not global unicast (including anything unparseable). */
export function isBlockedAddress(ip: string): boolean {
  return blockedAddressReason(ip) !== null;
}

function normaliseHostName(name: string): string {
  return name.toLowerCase().replace(/\.+$/, '');
}

const BLOCKED_NAMES = new Set(['localhost', 'metadata.google.internal', 'metadata', 'instance-data']);

/** Names that point at the machine itself or at a cloud metadata service, whatever DNS says. */
export function isBlockedHostName(name: string): boolean {
  const n = normaliseHostName(name);
  return BLOCKED_NAMES.has(n) || n.endsWith('.localhost');
}

/**
 * Parses a comma-separated list of host names, IP addresses and CIDR ranges (IPv4 or IPv6).
 * Throws on an entry that is none of these, so a typo in configuration stops startup instead
 * of silently exempting nothing.
 */
export function parseAllowlist(raw: string): Allowlist {
  const hosts = new Set<string>();
  const ranges: Cidr[] = [];
  for (const part of raw.split(',')) {
    let entry = part.trim();
    if (entry === '') continue;
    if (entry.startsWith('[') && entry.endsWith(']')) entry = entry.slice(1, -1);
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`allowlist entry "${part.trim()}" is not a valid CIDR range`);
      ranges.push(ipaddr.parseCIDR(entry));
      continue;
    }
    if (isIP(entry) !== 0) {
      const addr = ipaddr.parse(entry);
      ranges.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
      continue;
    }
    // The same IDNA mapping the URL parser applies, so an entry matches the parsed hostname.
    const ascii = domainToASCII(entry);
    const name = normaliseHostName(ascii);
    if (name === '') throw new Error(`allowlist entry "${part.trim()}" is not a host name, address or CIDR range`);
    hosts.add(name);
  }
  return Object.freeze({ hosts, ranges: Object.freeze(ranges) });
}

export function isAllowlistedHost(allowlist: Allowlist, hostname: string): boolean {
  return allowlist.hosts.size > 0 && allowlist.hosts.has(normaliseHostName(hostname));
}

export function isAllowlistedAddress(allowlist: Allowlist, ip: string): boolean {
  if (allowlist.ranges.length === 0) return false;
  let addr = parseAddress(ip);
  if (addr === null) return false;
  // 127.0.0.1/32 must also cover ::ffff:127.0.0.1, the form a dual-stack resolver may return.
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  for (const range of allowlist.ranges) {
    if (range[0].kind() === addr.kind() && addr.match(range)) return true;
  }
  return false;
}

/**
 * Checks the addresses a host name resolved to. Returns a refusal reason when the list is empty
 * or any address is blocked and not allowlisted: one private record is enough for a rebinding
 * resolver to pick it later.
 */
export function checkResolvedAddresses(host: string, addresses: readonly string[], allowlist: Allowlist): string | null {
  if (addresses.length === 0) return `host ${host} has no addresses`;
  for (const ip of addresses) {
    if (isAllowlistedAddress(allowlist, ip)) continue;
    const reason = blockedAddressReason(ip);
    if (reason !== null) return `host ${host} resolves to a non-public address ${ip} (${reason})`;
  }
  return null;
}

/** Checks an IP literal used as host. Returns a refusal reason or null. */
export function checkLiteralAddress(ip: string, allowlist: Allowlist): string | null {
  if (isAllowlistedAddress(allowlist, ip)) return null;
  const reason = blockedAddressReason(ip);
  return reason === null ? null : `address ${ip} is not public (${reason})`;
}

// Generous for any real endpoint, small enough to store and log without thought.
export const MAX_CALLBACK_URL_LENGTH = 2048;

export type CallbackUrlSyntaxCheck =
  | { ok: true; url: URL; /** host name still to be resolved and checked; null when nothing is left to check */ resolveHost: string | null }
  | { ok: false; reason: string };

/**
 * Every rule that needs no DNS: absolute http(s) URL, no credentials, host not a blocked name,
 * IP literal not blocked. Checks the parsed hostname, because the URL parser is what turns
 * `0x7f.1`, `2130706433` or full-width digits into `127.0.0.1`, and the parsed URL is what
 * will be fetched.
 */
export function checkCallbackUrlSyntax(raw: string, allowlist: Allowlist): CallbackUrlSyntaxCheck {
  if (typeof raw !== 'string' || raw === '') return { ok: false, reason: 'URL is empty' };
  if (raw.length > MAX_CALLBACK_URL_LENGTH) return { ok: false, reason: `URL is longer than ${MAX_CALLBACK_URL_LENGTH} characters` };
  // The URL parser silently drops tabs and newlines and trims spaces, so the string stored would
  // differ from the one checked; refuse rather than guess.
  if (/[\u0000-\u0020\u007f]/.test(raw)) return { ok: false, reason: 'URL contains whitespace or control characters' };
  // Browsers and the URL parser read `\` as `/` in http(s) URLs, which is how `http://a\@b`
  // means different hosts to different parsers.
  if (raw.includes('\\')) return { ok: false, reason: 'URL contains a backslash' };

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `scheme ${url.protocol} is not allowed; use http or https` };
  }
  // `http:host` and `http:/host` parse too; demanding the `//` keeps one obvious spelling.
  const schemeEnd = url.protocol.length;
  if (raw.slice(schemeEnd, schemeEnd + 2) !== '//') return { ok: false, reason: 'URL must start with http:// or https://' };
  const authority = raw.slice(schemeEnd + 2).split(/[/?#]/, 1)[0] ?? '';
  // Checked on the raw text as well as the parsed fields: `http://:@host/` parses to empty
  // credentials but is still a credential form.
  if (authority.includes('@') || url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'URL must not contain credentials (user info)' };
  }

  const hostname = url.hostname;
  if (hostname.startsWith('[')) {
    const reason = checkLiteralAddress(hostname.slice(1, -1), allowlist);
    return reason === null ? { ok: true, url, resolveHost: null } : { ok: false, reason };
  }
  if (isIP(hostname) === 4) {
    const reason = checkLiteralAddress(hostname, allowlist);
    return reason === null ? { ok: true, url, resolveHost: null } : { ok: false, reason };
  }
  if (normaliseHostName(hostname) === '') return { ok: false, reason: 'URL has no host' };
  if (isAllowlistedHost(allowlist, hostname)) return { ok: true, url, resolveHost: null };
  if (isBlockedHostName(hostname)) return { ok: false, reason: `host ${normaliseHostName(hostname)} is not allowed` };
  return { ok: true, url, resolveHost: hostname };
}

/**
 * Full callback URL check: the syntax rules, then every A and AAAA record of a host name.
 * A name that does not resolve is refused as well: a URL we cannot check is not accepted.
 * Store `url.href` (the parsed form) rather than the raw string.
 */
export async function checkCallbackUrl(
  raw: string,
  opts: { allowlist: Allowlist; resolve?: Resolver; resolveTimeoutMs?: number },
): Promise<{ ok: true; url: URL } | { ok: false; reason: string }> {
  const syntax = checkCallbackUrlSyntax(raw, opts.allowlist);
  if (!syntax.ok) return syntax;
  if (syntax.resolveHost === null) return { ok: true, url: syntax.url };

  const host = normaliseHostName(syntax.resolveHost);
  let addresses: string[];
  try {
    addresses = await withTimeout((opts.resolve ?? defaultResolve)(syntax.resolveHost), opts.resolveTimeoutMs ?? RESOLVE_TIMEOUT_MS);
  } catch {
    // A name that does not resolve now (not yet published, or no DNS where the check runs) is not
    // shown to point anywhere private. It is accepted here; every delivery resolves it again and
    // connects only to a checked address, so it can never reach a blocked one.
    return { ok: true, url: syntax.url };
  }
  if (addresses.length === 0) return { ok: true, url: syntax.url };
  const reason = checkResolvedAddresses(host, addresses, opts.allowlist);
  return reason === null ? { ok: true, url: syntax.url } : { ok: false, reason };
}

/** How long a URL check waits for DNS before treating the name as unresolved. */
export const RESOLVE_TIMEOUT_MS = 3_000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('DNS lookup timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
