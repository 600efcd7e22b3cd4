/**
 * Result types of the store. The synchronous core returns *views*: objects
 * the store reuses, valid until its next call, whose bytes point into the
 * log (no copy, no allocation). Only when the device is needed does a view
 * carry `status: 'pending'` and a promise of a *result* (owned copies). The
 * async facade always resolves to results.
 *
 * Every result that finds a record carries its `type` (RecordType): values of
 * collections are serialized into records of their own type, and a caller
 * answers WRONGTYPE from it.
 */

import type { RecordType } from './record-layout.js';

export interface ValueView {
  bytes: Buffer;
  offset: number;
  length: number;
}

export interface PendingView<T> {
  readonly status: 'pending';
  readonly pending: Promise<T>;
}

// ---- read ------------------------------------------------------------------

export interface FoundView extends ValueView {
  readonly status: 'found';
  /** ms since the epoch; 0 = no expiry. */
  expiresAt: number;
  type: RecordType;
}

export interface NotFoundView {
  readonly status: 'notFound';
}

export type ReadView = FoundView | NotFoundView | PendingView<ReadResult>;

export type ReadResult =
  | { status: 'found'; value: Buffer; expiresAt: number; type: RecordType }
  | { status: 'notFound' };

// ---- ranged read -----------------------------------------------------------

/**
 * Part of a string value: bytes `[from, from + length)` of a value of
 * `totalLength` bytes, at `bytes[offset]`. `blob` is the address of the
 * blob holding the value (blobs never change once written, so two reads
 * with the same `blob` saw the same value), or -1 for a value inside its
 * record.
 */
export interface RangeView extends ValueView {
  readonly status: 'found';
  from: number;
  totalLength: number;
  /** ms since the epoch; 0 = no expiry. */
  expiresAt: number;
  blob: number;
}

/**
 * Chooses the bytes a ranged read loads once the value's length is known:
 * `pick(totalLength)` sets `from` and `to` (`0 <= from <= to <= totalLength`).
 * It may run more than once (a pending read runs its step again).
 */
export interface RangePicker {
  pick(totalLength: number): void;
  from: number;
  to: number;
}

export type ReadRangeView = RangeView | NotFoundView | WrongTypeView | PendingView<RangeResult>;

export type RangeResult =
  | {
      status: 'found';
      /** Bytes `[from, from + value.length)` of the value. */
      value: Buffer;
      from: number;
      totalLength: number;
      expiresAt: number;
      blob: number;
    }
  | { status: 'notFound' }
  | WrongTypeResult;

/**
 * The key holds a record of another type than the operation works on
 * (`type`); nothing was changed. `old` is always null (SET ... GET).
 */
export interface WrongTypeView {
  readonly status: 'wrongType';
  type: RecordType;
  readonly old: null;
}

export type WrongTypeResult = { status: 'wrongType'; type: RecordType; old: null };

// ---- upsert ----------------------------------------------------------------

/** Flags of `upsert` / options of `set`, as Redis SET has them. */
export const SetFlag = {
  /** Only if the key does not exist. */
  NX: 1,
  /** Only if the key exists. */
  XX: 2,
  /** Return the old value. */
  GET: 4,
  /** Keep the existing expiry. */
  KEEP_TTL: 8,
} as const;

export interface WrittenView {
  readonly status: 'ok';
  /** With SetFlag.GET: the previous value, or null if there was none. */
  old: ValueView | null;
}

export interface NotSetView {
  readonly status: 'notSet';
  old: ValueView | null;
}

/** `wrongType` only with SetFlag.GET, when the old value has another type than the new one. */
export type UpsertView = WrittenView | NotSetView | WrongTypeView | PendingView<SetResult>;

/** Set `cancelled` to keep a pending upsert from landing (SyncCore.upsert's `cancel`). */
export interface WriteCancel {
  readonly cancelled: boolean;
}

export type SetResult = { status: 'ok' | 'notSet'; old: Buffer | null } | WrongTypeResult;

export interface SetOptions {
  /** Time to live in ms (PX). */
  ttlMs?: number;
  /** Absolute expiry in ms since the epoch (PXAT). */
  expiresAt?: number;
  nx?: boolean;
  xx?: boolean;
  /** Return the old value (SET ... GET). */
  get?: boolean;
  keepTtl?: boolean;
  /** Type of the record written. Default RecordType.STRING. */
  type?: RecordType;
}

// ---- delete ----------------------------------------------------------------

/** `wrongType` only when the delete was told to keep a type (StoreCore.remove's `keep`). */
export type DeleteView =
  | { readonly status: 'deleted' }
  | NotFoundView
  | WrongTypeView
  | PendingView<DeleteResult>;
export type DeleteResult = { status: 'deleted' } | { status: 'notFound' } | WrongTypeResult;

// ---- read-modify-write -----------------------------------------------------

export interface UpdatedView extends ValueView {
  readonly status: 'ok';
  /** The key did not exist and was created. */
  created: boolean;
}

/** `wrongType`: the key holds a record of a type the functions do not take. */
export type RmwView = UpdatedView | NotFoundView | WrongTypeView | PendingView<RmwResult>;

export type RmwResult =
  | { status: 'ok'; created: boolean; value: Buffer }
  | { status: 'notFound' }
  | WrongTypeResult;

// ---- expiry ----------------------------------------------------------------

/** `notSet`: persist on a key without expiry. */
export type ExpiryView =
  | { readonly status: 'ok' }
  | { readonly status: 'notSet' }
  | NotFoundView
  | PendingView<ExpiryResult>;

export type ExpiryResult = { status: 'ok' } | { status: 'notSet' } | { status: 'notFound' };
