export { encodeCommand } from './encode-command.js';
export { formatDouble } from './format-double.js';
export { splitInlineArgs } from './inline-args.js';
export {
  DEFAULT_CLIENT_QUERY_BUFFER_LIMIT,
  DEFAULT_PROTO_MAX_BULK_LEN,
  MAX_MULTIBULK_LENGTH,
  PROTO_INLINE_MAX_SIZE,
  type RespVersion,
  UNAUTHENTICATED_MAX_BULK_LENGTH,
  UNAUTHENTICATED_MAX_MULTIBULK_LENGTH,
} from './limits.js';
export { parseLongLong } from './parse-long-long.js';
export type { ProtocolError, ProtocolErrorCode } from './protocol-error.js';
export { ReplyEncodingError, ReplyWriter, type ReplyWriterOptions } from './reply-writer.js';
export {
  type NeedMore,
  type ParsedCommand,
  type ParseResult,
  RequestParser,
  type RequestParserOptions,
} from './request-parser.js';
