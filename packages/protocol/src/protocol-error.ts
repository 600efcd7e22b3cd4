/**
 * Protocol errors: plain result values carrying Redis's exact wording
 * (src/networking.c, processInlineBuffer and processMultibulkBuffer). Every
 * one of them makes Redis reply and then close the connection
 * (setProtocolError sets CLIENT_CLOSE_AFTER_REPLY), and so must the server.
 */

/** Stable codes, one per condition Redis reports (its CLIENT_READ_* errors). */
export type ProtocolErrorCode =
  | 'ERR_PROTO_TOO_BIG_INLINE_REQUEST'
  | 'ERR_PROTO_UNBALANCED_QUOTES'
  | 'ERR_PROTO_TOO_BIG_MBULK_COUNT_STRING'
  | 'ERR_PROTO_INVALID_MULTIBULK_LENGTH'
  | 'ERR_PROTO_UNAUTHENTICATED_MULTIBULK_LENGTH'
  | 'ERR_PROTO_TOO_BIG_BULK_COUNT_STRING'
  | 'ERR_PROTO_EXPECTED_DOLLAR'
  | 'ERR_PROTO_INVALID_BULK_LENGTH'
  | 'ERR_PROTO_UNAUTHENTICATED_BULK_LENGTH';

export interface ProtocolError {
  readonly kind: 'error';
  readonly code: ProtocolErrorCode;
  /** The error as clients see it, e.g. `ERR Protocol error: invalid bulk length`. */
  readonly message: string;
  /**
   * The whole reply line, byte for byte what Redis writes before it closes
   * the connection: `-<message>\r\n`.
   */
  readonly reply: Buffer;
}

const MESSAGES: Record<Exclude<ProtocolErrorCode, 'ERR_PROTO_EXPECTED_DOLLAR'>, string> = {
  ERR_PROTO_TOO_BIG_INLINE_REQUEST: 'too big inline request',
  ERR_PROTO_UNBALANCED_QUOTES: 'unbalanced quotes in request',
  ERR_PROTO_TOO_BIG_MBULK_COUNT_STRING: 'too big mbulk count string',
  ERR_PROTO_INVALID_MULTIBULK_LENGTH: 'invalid multibulk length',
  ERR_PROTO_UNAUTHENTICATED_MULTIBULK_LENGTH: 'unauthenticated multibulk length',
  ERR_PROTO_TOO_BIG_BULK_COUNT_STRING: 'too big bulk count string',
  ERR_PROTO_INVALID_BULK_LENGTH: 'invalid bulk length',
  ERR_PROTO_UNAUTHENTICATED_BULK_LENGTH: 'unauthenticated bulk length',
};

function make(code: ProtocolErrorCode, detail: string): ProtocolError {
  const message = `ERR Protocol error: ${detail}`;
  // latin1 keeps the one byte `expected '$', got '<byte>'` quotes exactly as
  // received; every other message is ASCII.
  return { kind: 'error', code, message, reply: Buffer.from(`-${message}\r\n`, 'latin1') };
}

export function protocolError(
  code: Exclude<ProtocolErrorCode, 'ERR_PROTO_EXPECTED_DOLLAR'>,
): ProtocolError {
  return make(code, MESSAGES[code]);
}

/**
 * `expected '$', got '<byte>'`: Redis formats the byte with %c, then
 * addReplyErrorFormat turns \r and \n into spaces so the reply stays one line.
 */
export function expectedDollarError(got: number): ProtocolError {
  const shown = got === 0x0d || got === 0x0a ? ' ' : String.fromCharCode(got);
  return make('ERR_PROTO_EXPECTED_DOLLAR', `expected '$', got '${shown}'`);
}
