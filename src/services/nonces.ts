import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import { claimNonce, pruneNonces } from '../store/nonces.js';
import { claimNonceWithDesk, type DeskAtAuth } from '../store/desks.js';
import { AppError } from '../domain/errors.js';

export const REDIS_DOWN = 'shared request memory (Redis) is unavailable; retry shortly';

/** Replay memory: 360 s per desk key, surviving restarts and shared by every instance. */
export const NONCE_MEMORY_MS = 360_000;

export interface NonceStore {
  /** True when the nonce is fresh for this key (and is now remembered); false on a replay. */
  claim(deskKey: string, nonce: string): Promise<boolean>;
  /** Drops expired entries; returns how many. */
  prune(): Promise<number>;
  /**
   * Where the memory is the database: reads the desk and its merchant and claims the nonce in one
   * statement, the claim only while the desk's sealed secret is still `sealedSecret`.
   */
  claimWithDesk?(remembered: DeskAtAuth, nonce: string): Promise<(DeskAtAuth & { claimed: boolean }) | null>;
}

/** A claim made at `nowMs`: its time, and when the nonce may be used again. */
export function claimWindow(nowMs: number): { now: Date; nonceExpiresAt: Date } {
  return { now: new Date(nowMs), nonceExpiresAt: new Date(nowMs + NONCE_MEMORY_MS) };
}

export function dbNonceStore(db: Db, clock: Clock): NonceStore {
  return {
    claim(deskKey, nonce) {
      const w = claimWindow(clock.now());
      return claimNonce(db, deskKey, nonce, w.now, w.nonceExpiresAt);
    },
    prune() {
      return pruneNonces(db, new Date(clock.now()));
    },
    claimWithDesk(remembered, nonce) {
      const w = claimWindow(clock.now());
      return claimNonceWithDesk(db, remembered, nonce, w.now, w.nonceExpiresAt);
    },
  };
}

/** Redis keeps the memory with its own expiry, so nothing needs pruning. */
export function redisNonceStore(redis: Redis, prefix = 'paygate:nonce:'): NonceStore {
  return {
    async claim(deskKey, nonce) {
      let r: string | null;
      try {
        r = await redis.set(`${prefix}${deskKey}:${nonce}`, '1', 'PX', NONCE_MEMORY_MS, 'NX');
      } catch {
        // Without the shared memory no request can be told fresh from a replay: refuse, retryable.
        throw new AppError('SERVICE_UNAVAILABLE', REDIS_DOWN);
      }
      return r === 'OK';
    },
    async prune() {
      return 0;
    },
  };
}
