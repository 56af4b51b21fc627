import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import {
  BlockedAddressError,
  checkLiteralAddress,
  checkResolvedAddresses,
  defaultResolve,
  isAllowlistedHost,
  isBlockedHostName,
  type Allowlist,
  type Resolver,
} from './urlGuard.js';

export interface PinnedDispatcherOptions {
  allowlist: Allowlist;
  resolve?: Resolver;
  /** Per address tried; undici's own default. */
  connectTimeoutMs?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * An undici dispatcher that resolves the target itself, refuses it unless every address passes
 * the callback address rules, and then connects to one of those checked addresses. Because the
 * socket goes to the address that was checked, a resolver that answers "public" to the check
 * and "private" to the connection (DNS rebinding) gains nothing. The URL's host name still goes
 * into the Host header and, for https, into SNI and certificate verification.
 */
export function createPinnedDispatcher(opts: PinnedDispatcherOptions): Dispatcher {
  const resolve = opts.resolve ?? defaultResolve;
  const connectToAddress = buildConnector({ timeout: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS });

  async function addressesFor(hostname: string): Promise<string[] | null> {
    if (isIP(hostname) !== 0) {
      const reason = checkLiteralAddress(hostname, opts.allowlist);
      if (reason !== null) throw new BlockedAddressError(hostname, reason);
      return [hostname];
    }
    // An allowlisted name is exempt from every rule, so the system resolver may pick freely.
    if (isAllowlistedHost(opts.allowlist, hostname)) return null;
    if (isBlockedHostName(hostname)) throw new BlockedAddressError(hostname, 'host name not allowed');
    const addresses = await resolve(hostname);
    const reason = checkResolvedAddresses(hostname, addresses, opts.allowlist);
    if (reason !== null) throw new BlockedAddressError(hostname, reason);
    return addresses;
  }

  const connect: buildConnector.connector = (options, callback) => {
    const hostname = options.hostname;
    // Certificate checks and SNI follow the name the merchant gave, not the address we dial.
    const servername = options.servername || (isIP(hostname) === 0 ? hostname.replace(/\.$/, '') : undefined);

    addressesFor(hostname).then(
      (addresses) => {
        if (addresses === null) {
          connectToAddress(options, callback);
          return;
        }
        // Tried in resolver order, moving on only after a failure, so a host whose AAAA record
        // is unreachable from an IPv4-only machine is still reached over IPv4.
        let index = 0;
        const tryNext = (): void => {
          const address = addresses[index++] as string;
          connectToAddress({ ...options, hostname: address, servername }, (...args) => {
            const [err] = args;
            if (err !== null && index < addresses.length) {
              tryNext();
              return;
            }
            callback(...args);
          });
        };
        tryNext();
      },
      (err: unknown) => {
        callback(err instanceof Error ? err : new Error(String(err)), null);
      },
    );
  };

  return new Agent({ connect });
}
