import type { CommandDefinition } from '../../server/command-table.js';
import { hashGroup } from '../shared/command-groups.js';
import { KEY1 } from '../shared/key-positions.js';
import { fieldExpiryHandlers as x } from './field-expiry.js';
import { fieldGetSetHandlers as g } from './field-get-set.js';

/**
 * The hash field-expiry commands' table entries: arity, flags, key specs,
 * ACL categories and docs as Redis 8.0's (src/commands/*.json). Their
 * command-log forms are set by the handlers (`client.propagate`), in
 * absolute time as Redis propagates them.
 */

const setExpiry = (
  name: string,
  handler: CommandDefinition['handler'],
  summary: string,
): CommandDefinition => ({
  name,
  arity: -6,
  flags: ['write', 'denyoom', 'fast'],
  ...KEY1,
  ...hashGroup,
  keyFlags: ['RW', 'update'],
  since: '7.4.0',
  complexity: 'O(N) where N is the number of specified fields',
  summary,
  handler,
});

const readExpiry = (
  name: string,
  handler: CommandDefinition['handler'],
  summary: string,
): CommandDefinition => ({
  name,
  arity: -5,
  flags: ['readonly', 'fast'],
  ...KEY1,
  ...hashGroup,
  keyFlags: ['RO', 'access'],
  since: '7.4.0',
  complexity: 'O(N) where N is the number of specified fields',
  summary,
  handler,
});

export const fieldExpiryCommands: CommandDefinition[] = [
  setExpiry(
    'hexpire',
    x.hexpire,
    'Set expiry for hash field using relative time to expire (seconds)',
  ),
  setExpiry(
    'hpexpire',
    x.hpexpire,
    'Set expiry for hash field using relative time to expire (milliseconds)',
  ),
  setExpiry(
    'hexpireat',
    x.hexpireat,
    'Set expiry for hash field using an absolute Unix timestamp (seconds)',
  ),
  setExpiry(
    'hpexpireat',
    x.hpexpireat,
    'Set expiry for hash field using an absolute Unix timestamp (milliseconds)',
  ),
  readExpiry('httl', x.httl, 'Returns the TTL in seconds of a hash field.'),
  readExpiry('hpttl', x.hpttl, 'Returns the TTL in milliseconds of a hash field.'),
  readExpiry(
    'hexpiretime',
    x.hexpiretime,
    'Returns the expiration time of a hash field as a Unix timestamp, in seconds.',
  ),
  readExpiry(
    'hpexpiretime',
    x.hpexpiretime,
    'Returns the expiration time of a hash field as a Unix timestamp, in msec.',
  ),
  {
    name: 'hpersist',
    arity: -5,
    flags: ['write', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'update'],
    since: '7.4.0',
    complexity: 'O(N) where N is the number of specified fields',
    summary: 'Removes the expiration time for each specified field',
    handler: x.hpersist,
  },
  {
    name: 'hgetex',
    arity: -5,
    flags: ['write', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'access', 'update'],
    since: '8.0.0',
    complexity: 'O(N) where N is the number of specified fields',
    summary:
      'Get the value of one or more fields of a given hash key, and optionally set their expiration.',
    handler: g.hgetex,
  },
  {
    name: 'hsetex',
    arity: -6,
    flags: ['write', 'denyoom', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'update'],
    since: '8.0.0',
    complexity: 'O(N) where N is the number of fields being set.',
    summary:
      'Set the value of one or more fields of a given hash key, and optionally set their expiration.',
    handler: g.hsetex,
  },
  {
    name: 'hgetdel',
    arity: -5,
    flags: ['write', 'fast'],
    ...KEY1,
    ...hashGroup,
    keyFlags: ['RW', 'access', 'delete'],
    since: '8.0.0',
    complexity: 'O(N) where N is the number of specified fields',
    summary: 'Returns the value of a field and deletes it from the hash.',
    handler: g.hgetdel,
  },
];
