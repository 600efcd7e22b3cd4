/**
 * The codes @strata/io throws, each with one meaning. Other packages add
 * their own closed unions (HlogErrorCode, AofErrorCode...) that may include
 * these for the io errors they pass on.
 */
export type StrataErrorCode =
  | 'ERR_DEVICE_CLOSED'
  /** A device address below `beginAddress`, negative, or reaching past 2^48. */
  | 'ERR_ADDRESS_OUT_OF_RANGE'
  | 'ERR_IO'
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_INJECTED_FAULT'
  | 'ERR_TORN_WRITE'
  /** The medium could not serve an operation (a bad sector); injected by FaultDevice to model one. */
  | 'ERR_MEDIA'
  /** A directory is held by another live process or open (DirLock). */
  | 'ERR_LOCKED';

export interface StrataErrorDetails {
  /** Device address the failing operation targeted. */
  address?: number;
  /** Segment number the failing operation touched. */
  segment?: number;
  cause?: unknown;
}

/**
 * Base class of every error thrown by Strata: match on `code`, never on
 * message. `C` is the closed union of the package that throws it (io's own
 * by default); a subclass fixes it, and `NoInfer` keeps a bare
 * `new StrataError(code)` from widening it to any string.
 */
export class StrataError<C extends string = StrataErrorCode> extends Error {
  readonly code: C;
  readonly address: number | undefined;
  readonly segment: number | undefined;

  constructor(code: NoInfer<C>, message: string, details: StrataErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.address = details.address;
    this.segment = details.segment;
  }
}

/** A StrataError of any package, when which one is not known (a device's failure, a caught error). */
export type AnyStrataError = StrataError<string>;

export class DeviceClosedError extends StrataError {
  constructor(device: string) {
    super('ERR_DEVICE_CLOSED', `device ${device} is closed`);
  }
}

export class OutOfRangeError extends StrataError {
  constructor(message: string, address: number) {
    super('ERR_ADDRESS_OUT_OF_RANGE', message, { address });
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

/**
 * Narrows an unknown error to a StrataError, of `code` when given. Without
 * a code its code is only known to be a string: compare it with the union of
 * the package that threw it.
 */
export function isStrataError(e: unknown): e is AnyStrataError;
export function isStrataError<C extends string>(e: unknown, code: C): e is StrataError<C>;
export function isStrataError(e: unknown, code?: string): boolean {
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
