import { describe, expect, it } from 'vitest';
import { parseCommandRecord } from './command-record.js';
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
