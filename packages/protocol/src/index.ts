// Public API of @strata/protocol: the one RESP2/RESP3 codec every Strata
// package uses (the server, the AOF, the bench and the tests).
export {
  type CommandSpan,
  commandRecordEnd,
  type ParsedCommandRecord,
  parseCommandRecord,
  RECORD_INCOMPLETE,
  RECORD_OTHER,
} from './command-record.js';
export { CommandEncoder, encodeCommand } from './encode-command.js';
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
export {
  isNullReply,
  isSimpleReply,
  replyBulk,
  replyBulks,
  replyInteger,
} from './reply-fields.js';
export { MalformedReplyError, ReplyReader, replyEnd } from './reply-reader.js';
export { type ReplyVisitor, visitReply } from './reply-visit.js';
export { ReplyEncodingError, ReplyWriter, type ReplyWriterOptions } from './reply-writer.js';
export {
  type NeedMore,
  type ParsedCommand,
  type ParseResult,
  RequestParser,
  type RequestParserOptions,
} from './request-parser.js';
