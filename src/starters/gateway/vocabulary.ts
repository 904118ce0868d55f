/** The client's closed lists, as tuples zod's enum takes. */
import { LIST_STATUSES as STATUSES } from '../client/pipeline-client';
import { RERUN_FROM } from '../client/rerun';

export const LIST_STATUSES = STATUSES;
export const RERUN_FROM_VALUES = RERUN_FROM as unknown as readonly [string, ...string[]];
