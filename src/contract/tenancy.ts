/**
 * Tenants (docs/tenants.md): what the worker's tenant configuration resolves for one
 * pipeline, and the names every side shares. The policy is resolved by the worker's
 * definition check and recorded in history with its result, so the workflow reads the
 * same policy on every replay, whatever the configuration says later.
 */
import type { PriorityLevel } from '../definition/schema';
import type { VendorTaskKind } from './status';

/** Temporal priority keys: 1 runs first, 5 last; 3 is Temporal's own default. */
export const PRIORITY_KEYS: Record<PriorityLevel, number> = { interactive: 1, normal: 3, batch: 5 };

export const DEFAULT_PRIORITY: PriorityLevel = 'normal';

/** Money in integer minor units: a millionth of the currency unit holds the vendor's erase price exactly. */
export const MINOR_UNITS_PER_UNIT = 1_000_000;

/**
 * The largest single amount (a price, a budget), in currency units (docs/tenants.md, "The tenant
 * configuration").
 */
export const MAX_AMOUNT_UNITS = 1_000_000_000;

/**
 * The largest single amount, and the largest total a ledger keeps, in minor units: 1e15.
 * Nine of them still add up below Number.MAX_SAFE_INTEGER (about 9.007e15), so a sum such as
 * spent + reserved + price stays exact; the ledger refuses a total past it.
 */
export const MAX_AMOUNT_MINOR = MAX_AMOUNT_UNITS * MINOR_UNITS_PER_UNIT;

/** An amount or total of money in minor units that arithmetic keeps exact: an integer in 0–MAX_AMOUNT_MINOR. */
export function fitsMoney(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= MAX_AMOUNT_MINOR;
}

export type BudgetPeriod = 'day' | 'month';

export interface TenantBudget {
  period: BudgetPeriod;
  /** The configured amount per period, in minor units; `reelflow budget set` overrides it in the ledger. */
  amount: number;
}

export interface TenantPolicy {
  tenant: string;
  /** The level the pipeline runs at: what it asked, lowered to the tenant's highest allowed. */
  priority: PriorityLevel;
  priorityKey: number;
  /** Fairness weight of the tenant's tasks (Temporal clamps it to 0.001–1000). */
  weight: number;
  /** At most this many of the tenant's pipelines do vendor work at once; absent: no limit. */
  concurrency?: number;
  /** Absent: spend is counted, never refused. */
  budget?: TenantBudget;
  /** Price per paid create, minor units; every kind is listed (0 when unset: still counted). */
  prices: Record<VendorTaskKind, number>;
  currency: string;
  /** Offset of the budget periods' clock from UTC, minutes (0: periods start at 00:00 UTC). */
  utcOffsetMinutes: number;
  overBudget: 'wait' | 'fail';
}

/** The Temporal Priority of every task the pipeline schedules. */
export function taskPriority(p: TenantPolicy): { priorityKey: number; fairnessKey: string; fairnessWeight: number } {
  return { priorityKey: p.priorityKey, fairnessKey: p.tenant, fairnessWeight: p.weight };
}

/** What a start sets from the definition alone (the worker's policy may lower it; docs/tenants.md). */
export function startPriority(
  tenant: string | undefined,
  priority: PriorityLevel | undefined,
): { priorityKey?: number; fairnessKey?: string } | undefined {
  if (tenant === undefined && priority === undefined) return undefined;
  return {
    ...(priority ? { priorityKey: PRIORITY_KEYS[priority] } : {}),
    ...(tenant ? { fairnessKey: tenant } : {}),
  };
}
