/**
 * COMMAND's group of a kind of command and its ACL category, spread into
 * each of its definitions (`...hashGroup`).
 */

export const genericGroup = { acl: ['keyspace'], group: 'generic' } as const;
export const stringGroup = { acl: ['string'], group: 'string' } as const;
export const bitmapGroup = { acl: ['bitmap'], group: 'bitmap' } as const;
export const hashGroup = { acl: ['hash'], group: 'hash' } as const;
export const setGroup = { acl: ['set'], group: 'set' } as const;
export const sortedSetGroup = { acl: ['sortedset'], group: 'sorted_set' } as const;
export const listGroup = { acl: ['list'], group: 'list' } as const;
export const streamGroup = { acl: ['stream'], group: 'stream' } as const;
