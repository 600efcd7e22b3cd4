/** Stable codes for every error a Strata package throws. */
export type StrataErrorCode =
  | 'ERR_DEVICE_CLOSED'
  | 'ERR_OUT_OF_RANGE'
  | 'ERR_IO'
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_INJECTED_FAULT'
  | 'ERR_TORN_WRITE'
  | (string & {});

export interface StrataErrorDetails {
  /** Device address the failing operation targeted. */
  address?: number;
  /** Segment number the failing operation touched. */
  segment?: number;
  cause?: unknown;
}

/** Base class of every error thrown by Strata: match on `code`, never on message. */
export class StrataError extends Error {
  readonly code: StrataErrorCode;
  readonly address: number | undefined;
  readonly segment: number | undefined;

  constructor(code: StrataErrorCode, message: string, details: StrataErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.address = details.address;
    this.segment = details.segment;
  }
}

export class DeviceClosedError extends StrataError {
  constructor(device: string) {
    super('ERR_DEVICE_CLOSED', `device ${device} is closed`);
  }
}

export class OutOfRangeError extends StrataError {
  constructor(message: string, address: number) {
    super('ERR_OUT_OF_RANGE', message, { address });
  }
}

export class InvalidArgumentError extends StrataError {
  constructor(message: string) {
    super('ERR_INVALID_ARGUMENT', message);
  }
}

/** An operating-system IO failure, carrying the OS error (`cause`, `osCode`). */
export class IoError extends StrataError {
  readonly osCode: string | undefined;

  constructor(message: string, details: StrataErrorDetails & { osCode?: string }) {
    super('ERR_IO', message, details);
    this.osCode = details.osCode;
  }
}

/** An error produced on purpose by the fault-injecting device. */
export class InjectedFaultError extends StrataError {
  constructor(
    message: string,
    details: StrataErrorDetails = {},
    code: StrataErrorCode = 'ERR_INJECTED_FAULT',
  ) {
    super(code, message, details);
  }
}

export function isStrataError(e: unknown, code?: StrataErrorCode): e is StrataError {
  return e instanceof StrataError && (code === undefined || e.code === code);
}

/**
 * A write that persisted only a prefix and then failed (injected by the
 * fault device): bytes `[address, address + bytesPersisted)` hold the new
 * data, the rest of the range is unchanged.
 */
export class TornWriteError extends InjectedFaultError {
  readonly bytesPersisted: number;

  constructor(message: string, details: StrataErrorDetails, bytesPersisted: number) {
    super(message, details, 'ERR_TORN_WRITE');
    this.bytesPersisted = bytesPersisted;
  }
}
