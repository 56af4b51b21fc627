/** The volume tool's command line (spec/scale.md): `--orders N [--merchants M] [--months K] [--seed S]`. */

export interface VolumeArgs {
  orders: number;
  merchants: number;
  months: number;
  seed: number;
}

export const DEFAULTS = { merchants: 100, months: 12, seed: 20_260_115 } as const;

/** Bounds of each option: the large merchant plus at least one other; at most ten years. */
const BOUNDS: Record<keyof VolumeArgs, [number, number]> = {
  orders: [100, 100_000_000],
  merchants: [2, 10_000],
  months: [1, 120],
  seed: [0, 2_147_483_647],
};

export class UsageError extends Error {}

export const USAGE = 'usage: npm run seed:volume -- --orders N [--merchants M] [--months K] [--seed S]';

/** The options, or a UsageError naming what is wrong. */
export function parseVolumeArgs(argv: readonly string[]): VolumeArgs {
  const given: Partial<Record<keyof VolumeArgs, number>> = {};
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k]!;
    const m = /^--(orders|merchants|months|seed)(?:=(.*))?$/.exec(arg);
    if (!m) throw new UsageError(`unknown argument "${arg}"`);
    const name = m[1] as keyof VolumeArgs;
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
  return { orders: given.orders, merchants: given.merchants ?? DEFAULTS.merchants, months: given.months ?? DEFAULTS.months, seed: given.seed ?? DEFAULTS.seed };
}
