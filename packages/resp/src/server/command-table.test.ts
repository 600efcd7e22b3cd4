import { describe, expect, test } from 'vitest';
import { commandDefinitions, createCommandTable } from '../commands/index.js';
import { CommandSpec, CommandTable } from './command-table.js';

describe('CommandTable', () => {
  const table = createCommandTable();

  test('looks names up from bytes, in any case', () => {
    expect(table.lookup(Buffer.from('GET'))?.name).toBe('get');
    expect(table.lookup(Buffer.from('gEt'))?.name).toBe('get');
    expect(table.lookup(Buffer.from('getx'))).toBeUndefined();
    expect(table.lookup(Buffer.from(''))).toBeUndefined();
    expect(
      table.lookup(Buffer.from('client'))?.subcommands?.lookup(Buffer.from('SETNAME'))?.fullName,
    ).toBe('client|setname');
  });

  test('arity follows Redis (negative = at least)', () => {
    const get = table.get('get')!;
    expect(get.arityOk(2)).toBe(true);
    expect(get.arityOk(3)).toBe(false);
    const set = table.get('set')!;
    expect(set.arityOk(2)).toBe(false);
    expect(set.arityOk(3)).toBe(true);
    expect(set.arityOk(9)).toBe(true);
  });

  test('key positions from first, last and step', () => {
    const argv = (...a: string[]) => a.map((x) => Buffer.from(x));
    expect(table.get('mset')!.keyIndexes(argv('mset', 'a', '1', 'b', '2'))).toEqual([1, 3]);
    expect(table.get('del')!.keyIndexes(argv('del', 'a', 'b', 'c'))).toEqual([1, 2, 3]);
    expect(table.get('get')!.keyIndexes(argv('get', 'a'))).toEqual([1]);
    expect(table.get('ping')!.keyIndexes(argv('ping', 'x'))).toEqual([]);
  });

  test('ACL categories are implied by flags, in Redis order', () => {
    expect(table.get('get')!.acl).toEqual(['read', 'string', 'fast']);
    expect(table.get('set')!.acl).toEqual(['write', 'string', 'slow']);
    expect(table.get('flushall')!.acl).toEqual(['keyspace', 'write', 'slow', 'dangerous']);
  });

  test('every definition is well formed', () => {
    for (const def of commandDefinitions()) {
      const spec = new CommandSpec(def);
      expect(spec.arity).not.toBe(0);
      if (spec.firstKey > 0) expect(spec.step).toBeGreaterThan(0);
      expect(spec.handler !== null || spec.subcommands !== null).toBe(true);
    }
  });

  test('rejects duplicates and upper-case names', () => {
    const def = commandDefinitions()[0]!;
    expect(() => new CommandTable([new CommandSpec(def), new CommandSpec(def)])).toThrow();
    expect(() => new CommandSpec({ ...def, name: 'PING' })).toThrow();
  });

  test('FLUSHDB / FLUSHALL only when the databases can be flushed', () => {
    expect(createCommandTable({ flush: false }).get('flushdb')).toBeUndefined();
    expect(table.get('flushdb')).toBeDefined();
  });
});
