/**
 * Everything the emulator remembers, as plain records. One Store per emulator
 * instance; reset() swaps in a fresh one. Logic lives in the interface modules.
 */
import type { GenerationState, ReviewState } from '../vendor-api/assumed-values';
import type { ReviewItem } from '../vendor-api/assumed-shapes';
import type { Staged } from './stages';
import type { MediaType } from './urls';

/** NOT_START: the upstream dialect's first state of a tool task (new-api style resellers). */
export type EraseState = 'NOT_START' | 'SUBMITTED' | 'QUEUED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE';
export type AssetStatus = 'Pending' | 'Active' | 'Failed' | 'Deleted';
export type GroupType = 'AIGC' | 'LivenessFace';

/** Task faults decided when the task's create answered (task-faults.ts). */
export interface TaskQuirks {
  quirks?: {
    /** Queries answer "not found" until this emulator time (read-after-write lag). */
    hiddenUntilMs?: number;
    /** Queries report `state` instead of the real one while `remaining` > 0 (Infinity: forever). */
    fakeState?: { state: string; remaining: number };
  };
}

export interface GenerationRecord extends Staged<GenerationState>, TaskQuirks {
  id: string;
  owner: string;
  model: string;
  /** All text items joined: the deterministic failure rules read it. */
  prompt: string;
  callbackUrl?: string;
  /** The create body as received (it carries no credentials). */
  request: Record<string, unknown>;
  createdAtMs: number;
  /** Outcome decided at creation; applied when the plan reaches it. */
  failReason?: string;
}

export interface EraseRecord extends Staged<EraseState>, TaskQuirks {
  taskId: string;
  requestId: string;
  owner: string;
  /** The submitted original URL, signature masked. */
  sourceVideoUrl: string;
  generationTaskId: string;
  traceId?: string;
  callbackUrl?: string;
  callbackSource?: 'body' | 'header';
  createdAtMs: number;
  failReason?: string;
  /** Upstream dialect: one query, past NOT_START and before the end, still reports UNKNOWN. */
  unknownOnce?: boolean;
}

export interface GroupRecord {
  Id: string;
  Name: string;
  Description: string;
  GroupType: GroupType;
  owner: string;
  /** System groups every user has; both are immutable in name. */
  system?: 'default' | 'real_person';
  createdAtMs: number;
  updatedAtMs: number;
  trackId?: string;
}

export interface AssetRecord extends Staged<AssetStatus>, TaskQuirks {
  Id: string;
  Name: string;
  AssetType: MediaType;
  GroupId: string;
  owner: string;
  sourceUrl: string;
  origin: 'CreateAsset' | 'review';
  reviewTaskId?: string;
  createdAtMs: number;
  trackId?: string;
}

export interface ReviewRecord extends Staged<ReviewState>, TaskQuirks {
  taskId: string;
  owner: string;
  mode: 'sync' | 'async';
  /** X-Track-Id as the client sent it. */
  trackId: string;
  /** The 32-hex track_id the 202 answer carries. */
  responseTrackId: string;
  callbackUrl?: string;
  assetType: MediaType;
  urls: string[];
  groupId?: string;
  groupSource?: string;
  batchId: string;
  createdAtMs: number;
  /** Planned processing span: done_count grows across it. */
  processingWindow: { startMs: number; endMs: number };
  /** Per-item results, filled when the task reaches a terminal state. */
  items?: ReviewItem[];
}

export class Store {
  readonly generation = new Map<string, GenerationRecord>();
  readonly erase = new Map<string, EraseRecord>();
  readonly groups = new Map<string, GroupRecord>();
  readonly assets = new Map<string, AssetRecord>();
  readonly review = new Map<string, ReviewRecord>();
  /** GetAsset call times per principal: the 1 s sliding rate window. */
  readonly getAssetWindow = new Map<string, number[]>();
  /** Last answered query per review task: the minimum query interval. */
  readonly reviewLastQuery = new Map<string, number>();
}
