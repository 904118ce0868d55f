/**
 * The worker's tenant configuration (docs/tenants.md): a JSON file named by
 * REELFLOW_TENANTS_FILE. It is the source of truth: anyone who can start a workflow can
 * write any tenant into its input, so the tenants known, their highest priority, their
 * limits, weights, budgets and credential profiles, and the price table all come from here.
 *
 *   {
 *     "currency": "CNY",
 *     "utcOffset": "+08:00",
 *     "prices": { "generation": "0.35", "asset": "0.0002" },
 *     "defaultTenant": "shared",
 *     "defaults": { "maxPriority": "normal", "concurrency": 20, "weight": 1 },
 *     "tenants": { "acme": { "maxPriority": "interactive", "weight": 3, "budget": { "period": "month", "amount": "500" },
 *                            "profiles": ["acme"] } }
 *   }
 *
 * Amounts are decimal strings in currency units with at most 6 decimals and at most
 * MAX_AMOUNT_UNITS, held as integer minor units (millionths). Errors name the field and never
 * quote a value.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PRIORITY_LEVELS, ProfileNameSchema, TenantIdSchema } from '../definition/schema';
import { MAX_AMOUNT_MINOR, MAX_AMOUNT_UNITS, MINOR_UNITS_PER_UNIT, type BudgetPeriod } from '../contract/tenancy';
import type { VendorTaskKind } from '../contract/status';
import { TASK_KINDS } from '../contract/stages';
import { ERASE_UNIT_PRICE } from '../vendor-api/documented-values';

/** A tenant prices every kind of vendor task (the stage table's). */
export const PAID_KINDS = TASK_KINDS;

/** "0.000125" → 125: a decimal amount in currency units, as integer minor units. */
export function toMinorUnits(amount: string): number {
  const [whole, frac = ''] = amount.split('.');
  return Number(whole) * MINOR_UNITS_PER_UNIT + Number(frac.padEnd(6, '0'));
}

/** Minor units → "0.000125": exact, for reports. */
export function formatMinorUnits(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const frac = String(abs % MINOR_UNITS_PER_UNIT)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${sign}${Math.floor(abs / MINOR_UNITS_PER_UNIT)}${frac ? `.${frac}` : ''}`;
}

/**
 * At most MAX_AMOUNT_UNITS, so that sums of amounts stay exact (docs/tenants.md, "The tenant
 * configuration").
 */
const Amount = z
  .string({ error: 'must be a decimal string such as "12.50" (a string keeps it exact)' })
  .regex(/^\d{1,12}(\.\d{1,6})?$/, 'must be a decimal amount with at most 6 decimals, e.g. "0.000125"')
  .transform(toMinorUnits)
  .refine((minor) => minor <= MAX_AMOUNT_MINOR, `must be at most ${MAX_AMOUNT_UNITS}`);

/** A decimal amount typed by an operator (`reelflow budget set --amount`), in minor units; the error names `field`. */
export function parseAmount(text: string, field: string): number {
  const res = Amount.safeParse(text);
  if (!res.success) throw new TenantsConfigError(`${field}: ${res.error.issues[0].message}`);
  return res.data;
}

const BudgetSchema = z.strictObject({
  period: z.enum(['day', 'month'] satisfies BudgetPeriod[]),
  amount: Amount,
});

const LimitsSchema = z.strictObject({
  /** The highest level this tenant's pipelines may run at; a higher ask is lowered to it. */
  maxPriority: z.enum(PRIORITY_LEVELS).optional(),
  /** Pipelines doing vendor work at once. */
  concurrency: z.number().int().min(1, 'must be at least 1').max(100_000).optional(),
  /** Fairness weight: this tenant's share of each queue against the others' (Temporal clamps 0.001–1000). */
  weight: z.number().min(0.001, 'must be at least 0.001').max(1000, 'must be at most 1000').optional(),
  budget: BudgetSchema.optional(),
  /**
   * The credential profiles the tenant's pipelines may spend on (their options.profile); a
   * tenant's own list replaces the defaults'. Absent from both: every profile (docs/tenants.md).
   */
  profiles: z.array(ProfileNameSchema).optional(),
});

const UtcOffset = z
  .string()
  .regex(/^(UTC|[+-](0\d|1[0-4]):[0-5]\d)$/, 'must be "UTC" or an offset such as "+08:00"')
  .transform((s) => (s === 'UTC' ? 0 : (s[0] === '-' ? -1 : 1) * (Number(s.slice(1, 3)) * 60 + Number(s.slice(4, 6)))));

export const TenantsFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as "CNY"')
      .default('CNY'),
    /** Budget periods start at 00:00 of this offset (the first of the month for monthly ones). */
    utcOffset: UtcOffset.default(0),
    prices: z.partialRecord(z.enum(PAID_KINDS), Amount).default({}),
    /** A pipeline naming no tenant, or an unknown one, runs as this tenant; without it both are refused. */
    defaultTenant: TenantIdSchema.optional(),
    defaults: LimitsSchema.default({}),
    tenants: z.record(TenantIdSchema, LimitsSchema),
  })
  .superRefine((f, ctx) => {
    if (f.defaultTenant !== undefined && !(f.defaultTenant in f.tenants))
      ctx.addIssue({ code: 'custom', path: ['defaultTenant'], message: 'must be one of the tenants listed' });
  });

export type TenantsConfig = z.output<typeof TenantsFileSchema>;

/** The price table with every paid kind: erase defaults to the vendor's listed price, the rest to 0. */
export function priceTable(config: TenantsConfig): Record<VendorTaskKind, number> {
  const defaults = { review: 0, assetGroup: 0, asset: 0, generation: 0, erase: toMinorUnits(String(ERASE_UNIT_PRICE)) };
  return { ...defaults, ...config.prices };
}

/** The profiles a tenant may spend on: its own list, else the defaults'; undefined: every profile. */
export function profilesOf(config: TenantsConfig, tenant: string): readonly string[] | undefined {
  return config.tenants[tenant]?.profiles ?? config.defaults.profiles;
}

/** The tenants that may spend on every profile: no list of their own, none in the defaults. */
export function unboundTenants(config: TenantsConfig): string[] {
  return Object.keys(config.tenants).filter((tenant) => profilesOf(config, tenant) === undefined);
}

/**
 * A profile the file lists that the worker does not serve, as a problem naming its field
 * (`tenants.acme.profiles.0: …`); the profile itself is not quoted.
 */
export function unservedProfiles(config: TenantsConfig, served: readonly string[]): string[] {
  const lists: [string, readonly string[] | undefined][] = [
    ['defaults', config.defaults.profiles],
    ...Object.entries(config.tenants).map(([id, limits]): [string, readonly string[] | undefined] => [
      `tenants.${id}`,
      limits.profiles,
    ]),
  ];
  return lists.flatMap(([field, profiles = []]) =>
    profiles.flatMap((profile, i) =>
      served.includes(profile)
        ? []
        : [`${field}.profiles.${i}: must be a profile this worker serves (REELFLOW_PROFILES)`],
    ),
  );
}

export class TenantsConfigError extends Error {
  override readonly name = 'TenantsConfigError';
}

/** Parses the file's JSON; every problem names its field (`tenants.acme.concurrency: must be at least 1`). */
export function parseTenantsConfig(json: unknown, source = 'REELFLOW_TENANTS_FILE'): TenantsConfig {
  const res = TenantsFileSchema.safeParse(json);
  if (res.success) return res.data;
  const problems = res.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new TenantsConfigError(`${source}: ${problems.join('; ')}`);
}

export function loadTenantsConfig(file: string): TenantsConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TenantsConfigError(`REELFLOW_TENANTS_FILE: cannot read it (${(err as NodeJS.ErrnoException).code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TenantsConfigError('REELFLOW_TENANTS_FILE: is not valid JSON');
  }
  return parseTenantsConfig(json);
}
