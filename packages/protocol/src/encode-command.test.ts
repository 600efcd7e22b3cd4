import { describe, expect, it } from 'vitest';
import { encodeCommand } from './encode-command.js';

describe('encodeCommand', () => {
  it('writes a multibulk of bulk strings, binary safe', () => {
    expect(encodeCommand(['SET', 'k', Buffer.from([0, 13, 10])]).toString('latin1')).toBe(
      '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n\0\r\n\r\n',
    );
    expect(encodeCommand(['é']).toString('latin1')).toBe('*1\r\n$2\r\n\xc3\xa9\r\n');
    expect(encodeCommand([]).toString()).toBe('*0\r\n');
  });
});
