/**
 * Registers reelflow's search attributes on a namespace, idempotently: `reelflow setup`
 * does it on a self-hosted cluster, and the dev stack at every start (an existing DB file
 * included). It lives with the CLI because production uses it; the dev stack imports it
 * from here, never the other way. (Temporal Cloud registers them through its own console
 * or API.)
 */
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { REELFLOW_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';

const INDEXED = temporal.api.enums.v1.IndexedValueType;
const SA_TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: INDEXED.INDEXED_VALUE_TYPE_KEYWORD,
  KeywordList: INDEXED.INDEXED_VALUE_TYPE_KEYWORD_LIST,
  Text: INDEXED.INDEXED_VALUE_TYPE_TEXT,
  Int: INDEXED.INDEXED_VALUE_TYPE_INT,
};

/** Adds whichever reelflow search attributes the namespace lacks (idempotent). */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const have = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = Object.entries(REELFLOW_SEARCH_ATTRIBUTES).filter(([name]) => !have.has(name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, SA_TYPES[type]])),
  });
  return missing.map(([name]) => name);
}
