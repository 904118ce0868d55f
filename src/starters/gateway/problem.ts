/**
 * Errors as `application/problem+json` (RFC 9457): a type URI per kind of problem, a title,
 * the status, a detail for people and, for a definition or request that failed validation,
 * `errors` with each field's path. A detail never names another tenant's pipeline or a secret.
 */
import { HTTPException } from 'hono/http-exception';

export const PROBLEM_TYPE_BASE = 'https://reelflow.dev/problems/';

export interface FieldError {
  /** The field's path, e.g. "generation.content.0.role" ("" for the root). */
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

const TITLES: Record<string, string> = {
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  'not-found': 'Not found',
  'invalid-request': 'Invalid request',
  'invalid-definition': 'Invalid pipeline definition',
  'rate-limited': 'Too many requests',
  'too-large': 'Request too large',
  conflict: 'Conflict',
  'not-finished': 'Pipeline not finished',
  'resolve-refused': 'Decision refused',
  'rerun-refused': 'Rerun refused',
  unavailable: 'Service unavailable',
  internal: 'Internal error',
};

export type ProblemKind = keyof typeof TITLES;

/** An HTTPException whose response is the problem document. */
export class ProblemError extends HTTPException {
  readonly problem: Problem;
  constructor(
    status: number,
    kind: ProblemKind,
    detail?: string,
    extra: Omit<Partial<Problem>, 'type' | 'title' | 'status'> = {},
    headers: Record<string, string> = {},
  ) {
    const problem: Problem = {
      type: `${PROBLEM_TYPE_BASE}${kind}`,
      title: TITLES[kind] ?? kind,
      status,
      ...(detail !== undefined ? { detail } : {}),
      ...extra,
    };
    super(status as 400, {
      res: new Response(JSON.stringify(problem), {
        status,
        headers: { 'content-type': 'application/problem+json', ...headers },
      }),
    });
    this.problem = problem;
  }
}

/** The same answer for a pipeline that does not exist and one the caller may not see. */
export function notFound(): ProblemError {
  return new ProblemError(404, 'not-found', 'no such pipeline');
}
