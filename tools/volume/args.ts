/**
 * The volume tool's command line: `--orders N [--merchants M] [--months K] [--seed S]
 * [--pool] [--credits C] [--requisites R]`, and `--help`.
 */

export interface VolumeArgs {
  orders: number;
  merchants: number;
  months: number;
  seed: number;
  /** Credits of the pool provider; 0: no pool provider (no requisites, credits or statements). */
  credits: number;
  /** Requisites of the pool provider; 0 without one. */
  requisites: number;
}

export const DEFAULTS = { merchants: 100, months: 12, seed: 20_260_115, requisites: 200 } as const;

/** With `--pool` and no `--credits`: a credit for every this many orders. */
export const ORDERS_PER_CREDIT = 4;

type Numeric = 'orders' | 'merchants' | 'months' | 'seed' | 'credits' | 'requisites';

/**
 * Bounds of each option: the large merchant plus at least one other; at most ten years; a pool of
 * at most 5,000 requisites (each account's last four digits name one of them).
 */
const BOUNDS: Record<Numeric, [number, number]> = {
  orders: [100, 100_000_000],
  merchants: [2, 10_000],
  months: [1, 120],
  seed: [0, 2_147_483_647],
  credits: [1, 50_000_000],
  requisites: [10, 5_000],
};

export class UsageError extends Error {}

export const USAGE = 'usage: npm run seed:volume -- --orders N [--merchants M] [--months K] [--seed S] [--pool] [--credits C] [--requisites R]';

/** What `--help` prints: the usage and what each option does. */
export const HELP = `${USAGE}

Fills an empty database (DATABASE_URL, else the embedded one in DATA_DIR; migrated first) with K
months of a platform's history ending now, and prints one JSON object on stdout (credentials and
samples). Refuses a database that holds data, changing nothing.

  --orders N        orders in all (${BOUNDS.orders[0].toLocaleString('en')} to ${BOUNDS.orders[1].toLocaleString('en')}); required
  --merchants M     merchants, the first holding 45 % of the orders (default ${DEFAULTS.merchants})
  --months K        months of history ending now (default ${DEFAULTS.months})
  --seed S          the same seed makes the same data (default ${DEFAULTS.seed})
  --pool            also a pool provider with requisites, which serves part of the live RUB card and
                    SBP orders, and its credits (one for every ${ORDERS_PER_CREDIT} orders unless --credits says)
  --credits C       credits of the pool (${BOUNDS.credits[0].toLocaleString('en')} to ${BOUNDS.credits[1].toLocaleString('en')}; implies --pool): most paid one of the
                    pool's orders, the rest matched none (unknown accounts, amounts of no order,
                    many of the older ones ignored); fed credits with their items, some evidenced
                    by weekly statements of a quarter of the requisites, some recorded by them
  --requisites R    requisites of the pool (${BOUNDS.requisites[0].toLocaleString('en')} to ${BOUNDS.requisites[1].toLocaleString('en')}, default ${DEFAULTS.requisites}; implies --pool), cards and SBP phones
  --help, -h        this text

Environment: VOLUME_PROVIDER_URL (the live providers' connector), RETENTION_DAYS and
RETENTION_ARCHIVE (where old delivered callbacks are written), VOLUME_EXPLAIN=label,… (bulk
statements to run under EXPLAIN ANALYZE).`;

/** `--help` or `-h` anywhere: the caller prints HELP and does nothing else. */
export const wantsHelp = (argv: readonly string[]): boolean => argv.some((a) => a === '--help' || a === '-h');

/** The options, or a UsageError naming what is wrong. */
export function parseVolumeArgs(argv: readonly string[]): VolumeArgs {
  const given: Partial<Record<Numeric, number>> = {};
  let pool = false;
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k]!;
    if (arg === '--pool') {
      if (pool) throw new UsageError('--pool is given twice');
      pool = true;
      continue;
    }
    const m = /^--(orders|merchants|months|seed|credits|requisites)(?:=(.*))?$/.exec(arg);
    if (!m) throw new UsageError(`unknown argument "${arg}"`);
    const name = m[1] as Numeric;
    if (name in given) throw new UsageError(`--${name} is given twice`);
    const raw = m[2] ?? argv[++k];
    if (raw === undefined) throw new UsageError(`--${name} needs a value`);
    const [min, max] = BOUNDS[name];
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new UsageError(`--${name} must be a whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}, got "${raw}"`);
    }
    given[name] = Number(raw);
  }
  if (given.orders === undefined) throw new UsageError('--orders is required');
  const withPool = pool || given.credits !== undefined || given.requisites !== undefined;
  return {
    orders: given.orders,
    merchants: given.merchants ?? DEFAULTS.merchants,
    months: given.months ?? DEFAULTS.months,
    seed: given.seed ?? DEFAULTS.seed,
    credits: withPool ? (given.credits ?? Math.ceil(given.orders / ORDERS_PER_CREDIT)) : 0,
    requisites: withPool ? (given.requisites ?? DEFAULTS.requisites) : 0,
  };
}
