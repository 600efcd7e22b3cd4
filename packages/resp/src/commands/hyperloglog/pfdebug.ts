import { eqi } from '../../args.js';
import { CommandError, cString } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import {
  decodeSparse,
  denseGet,
  HLL_DENSE,
  HLL_HDR_SIZE,
  HLL_REGISTERS,
  HLL_SPARSE,
  HllValue,
} from './hll-encoding.js';
import { corruptHllError } from './hll-errors.js';
import { after, editHll, type HllEdit } from './hll-rmw.js';
import { hyperloglogGroup } from './hll-settings.js';

const noSuchKeyError = () =>
  new CommandError('ERR_NO_SUCH_KEY', 'ERR The specified key does not exist');
const notSparseError = () => new CommandError('ERR_UNSUPPORTED', 'ERR HLL encoding is not sparse');

/**
 * PFDEBUG <subcommand> <key>, in Redis 7.0's order: the key must exist, be
 * an HLL, then the subcommand is looked at. GETREG and TODENSE turn a sparse
 * value dense (a write Redis propagates, without a keyspace event).
 */
class DebugEdit implements HllEdit {
  registers: Int32Array | null = null;
  decoded = '';
  encoding = HLL_SPARSE;
  converted = false;

  constructor(private readonly sub: Buffer) {}

  create(): never {
    throw noSuchKeyError();
  }

  update(b: Uint8Array, off: number, len: number): HllValue | null {
    this.converted = false;
    this.encoding = b[off + 4]!;
    const sub = this.sub;
    if (eqi(sub, 'getreg')) {
      const dense = this.toDense(b, off, len);
      // The registers of the value made dense, else of the stored one.
      const bytes = dense === null ? b : dense.bytes;
      const start = dense === null ? off : 0;
      const end = dense === null ? off + len : dense.length;
      const regs = new Int32Array(HLL_REGISTERS);
      for (let j = 0; j < HLL_REGISTERS; j++)
        regs[j] = denseGet(bytes, start + HLL_HDR_SIZE, end, j);
      this.registers = regs;
      return dense;
    }
    if (eqi(sub, 'decode')) {
      if (this.encoding !== HLL_SPARSE) throw notSparseError();
      this.decoded = decodeSparse(b, off, len);
      return null;
    }
    if (eqi(sub, 'encoding')) return null;
    if (eqi(sub, 'todense')) return this.toDense(b, off, len);
    throw new CommandError(
      'ERR_UNKNOWN_SUBCOMMAND',
      `ERR Unknown PFDEBUG subcommand '${cString(sub, sub.length)}'`,
      true,
    );
  }

  /** The value made dense, or null when it is dense already. */
  private toDense(b: Uint8Array, off: number, len: number): HllValue | null {
    if (this.encoding === HLL_DENSE) return null;
    const v = HllValue.copyOf(b, off, len);
    if (!v.toDense()) throw corruptHllError();
    this.converted = true;
    return v;
  }
}

function pfdebug(c: Client, argv: Buffer[]): CommandResult {
  const sub = argv[1]!;
  const edit = new DebugEdit(sub);
  return after(editHll(c, argv[2]!, edit), () => {
    // Redis propagates only an encoding change (server.dirty).
    if (!edit.converted) c.propagate();
    if (eqi(sub, 'getreg')) {
      const regs = edit.registers!;
      c.reply.array(regs.length);
      for (let j = 0; j < regs.length; j++) c.reply.integer(regs[j]!);
    } else if (eqi(sub, 'decode')) c.reply.bulk(edit.decoded);
    else if (eqi(sub, 'encoding')) c.reply.simple(edit.encoding === HLL_DENSE ? 'dense' : 'sparse');
    else c.reply.integer(edit.converted ? 1 : 0);
  });
}

export const pfdebugCommand: CommandDefinition = {
  name: 'pfdebug',
  arity: 3,
  flags: ['write', 'denyoom', 'admin'],
  firstKey: 2,
  lastKey: 2,
  step: 1,
  ...hyperloglogGroup,
  keyFlags: ['RW', 'access'],
  since: '2.8.9',
  complexity: 'N/A',
  summary: 'Internal commands for debugging HyperLogLog values',
  handler: pfdebug,
};
