import { describe, expect, it } from 'vitest';
import {
  type CommandSpan,
  commandRecordEnd,
  parseCommandRecord,
  RECORD_INCOMPLETE,
  RECORD_OTHER,
} from './command-record.js';
import { CommandEncoder, encodeCommand } from './encode-command.js';

describe('CommandEncoder / parseCommandRecord', () => {
  it('writes what Redis writes to its AOF', () => {
    expect(encodeCommand(['SET', 'k', 'hello']).toString()).toBe(
      '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n',
    );
  });

  it('round-trips binary arguments, empty ones and long ones, across buffer growth', () => {
    const e = new CommandEncoder(16);
    const cmds: Buffer[][] = [];
    for (let i = 0; i < 60; i++) {
      const bin = Buffer.alloc(i * 37);
      for (let j = 0; j < bin.length; j++) bin[j] = (i * 31 + j) & 0xff;
      const cmd = [Buffer.from('APPEND'), Buffer.from(`key:${i}`), bin, Buffer.alloc(0)];
      cmds.push(cmd);
      e.encode(cmd);
    }
    const all = e.take();
    let pos = 0;
    for (const cmd of cmds) {
      const r = parseCommandRecord(all, pos);
      expect(r.kind).toBe('command');
      if (r.kind !== 'command') return;
      expect(r.argv).toEqual(cmd);
      pos = r.end;
    }
    expect(pos).toBe(all.length);
    expect(e.length).toBe(0);
  });

  it('reports every strict prefix of a record as incomplete, and junk as invalid', () => {
    const rec = encodeCommand(['SET', 'key', 'value\r\nwith crlf']);
    for (let n = 0; n < rec.length; n++) {
      expect(parseCommandRecord(rec.subarray(0, n), 0).kind).toBe('incomplete');
    }
    expect(parseCommandRecord(Buffer.from('+OK\r\n'), 0).kind).toBe('invalid');
    expect(parseCommandRecord(Buffer.from('*1\r\n$3\r\nabcX\r\n'), 0).kind).toBe('invalid');
    expect(parseCommandRecord(Buffer.from('*1\r\n$-1\r\n'), 0).kind).toBe('invalid');
    expect(parseCommandRecord(Buffer.from('*0\r\n'), 0).kind).toBe('invalid');
  });

  it('unshift puts bytes back in front of what was encoded since', () => {
    const e = new CommandEncoder(8);
    e.encode([Buffer.from('A')]);
    const first = e.take();
    e.encode([Buffer.from('B')]);
    e.unshift(first);
    expect(e.take().toString()).toBe('*1\r\n$1\r\nA\r\n*1\r\n$1\r\nB\r\n');
  });

  it('tail views the last bytes encoded and not yet taken (behind bytes put back by unshift)', () => {
    const e = new CommandEncoder(8);
    e.encode([Buffer.from('A')]);
    const first = e.take();
    const n = e.encode([Buffer.from('BB')]);
    e.unshift(first);
    expect(e.tail(n).toString()).toBe('*1\r\n$2\r\nBB\r\n');
    expect(e.tail(0).length).toBe(0);
    expect(e.take().toString()).toBe('*1\r\n$1\r\nA\r\n*1\r\n$2\r\nBB\r\n');
  });
});

describe('commandRecordEnd', () => {
  /** What parseCommandRecord says, in commandRecordEnd's terms. */
  function expected(buf: Buffer, pos: number): { end: number; name?: string; argc?: number } {
    // An annotation, whole or not, is for parseCommandRecord to read.
    if (buf[pos] === 35 /* # */) return { end: RECORD_OTHER };
    const r = parseCommandRecord(buf, pos);
    if (r.kind === 'incomplete') return { end: RECORD_INCOMPLETE };
    if (r.kind !== 'command') return { end: RECORD_OTHER };
    return { end: r.end, name: r.argv[0]!.toString('latin1'), argc: r.argv.length };
  }
  function actual(buf: Buffer, pos: number): { end: number; name?: string; argc?: number } {
    const span: CommandSpan = { argc: 0, nameStart: 0, nameEnd: 0 };
    const end = commandRecordEnd(buf, pos, span);
    if (end < 0) return { end };
    return { end, name: buf.toString('latin1', span.nameStart, span.nameEnd), argc: span.argc };
  }

  it('agrees with parseCommandRecord on every prefix of records and annotations', () => {
    const all = Buffer.concat([
      encodeCommand(['SET', 'k', 'hello']),
      Buffer.from('#MS:1700000000000\r\n'),
      encodeCommand(['SELECT', '3']),
      encodeCommand(['RPUSH', 'list', ...Array.from({ length: 12 }, (_, i) => `v${i}`)]),
      encodeCommand(['DEL', '']),
    ]);
    for (let cut = 0; cut <= all.length; cut++) {
      const buf = all.subarray(0, cut);
      for (let pos = 0; pos <= cut; pos++)
        expect(actual(buf, pos), `${cut}/${pos}`).toEqual(expected(buf, pos));
    }
  });

  it('agrees with parseCommandRecord on damaged bytes (any byte of a record changed)', () => {
    const record = encodeCommand(['HSET', 'hash', 'field', 'a value of some length']);
    for (let at = 0; at < record.length; at++) {
      for (const b of [0, 10, 13, 36, 42, 48, 57, 0x7f, 0xff]) {
        const buf = Buffer.from(record);
        buf[at] = b;
        expect(actual(buf, 0), `byte ${at} = ${b}`).toEqual(expected(buf, 0));
      }
    }
    // Lengths past the limits, and an empty command.
    for (const text of ['*0\r\n', '*-1\r\n', '*9999999999999\r\n', '*1\r\n$999999999999\r\n']) {
      const buf = Buffer.from(text);
      expect(actual(buf, 0), text).toEqual(expected(buf, 0));
    }
  });
});
