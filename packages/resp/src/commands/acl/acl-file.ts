import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Client } from '../../server/client.js';
import type { ServerState } from '../../server/server-state.js';
import { mergeSelectorArgs, ruleErrorText, type User } from './acl-user.js';
import type { AclUsers } from './acl-users.js';

/** The aclfile parameter (redis.conf, immutable), or '' when none is set. */
export function aclFileName(server: ServerState): string {
  return server.configValues.aclfile?.() ?? '';
}

/** Reasons strerror gives for the file errors Node names by code. */
const STRERROR: Readonly<Record<string, string>> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
};

/** `user` lines of an ACL file as Redis writes them (ACL LIST's lines), one per user. */
export function aclFileText(users: AclUsers): string {
  let text = '';
  for (const u of users.sorted()) text += `user ${u.name} ${u.describe()}\n`;
  return text;
}

/**
 * ACLLoadFromFile: every line is checked on a fresh set of users; with any
 * error nothing changes and the errors are returned in one line, Redis's
 * words. Else the users are replaced (the default user keeps its object,
 * its rules copied, as Redis does), and clients of the old users other
 * than the default one are disconnected. `current`: the client running
 * ACL LOAD (closed after its reply, if its user goes).
 */
export function loadAclFile(
  server: ServerState,
  filename: string,
  current: Client | null,
): string | null {
  let content: string;
  try {
    content = readFileSync(filename).toString('latin1');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    return `Error loading ACLs, opening file '${filename}': ${STRERROR[code] ?? code}`;
  }
  const users = server.users;
  const loaded = new Map<string, User>();
  let errors = '';
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
    const linenum = i + 1;
    if (line === '') continue;
    const argv = line.split(' ');
    if (argv[0] !== 'user' || argv.length < 2) {
      errors += `${filename}:${linenum} should start with user keyword followed by the username. `;
      continue;
    }
    const name = argv[1]!;
    if (loaded.has(name)) {
      errors += `WARNING: Duplicate user '${name}' found on line ${linenum}. `;
      continue;
    }
    const u = users.create(name);
    loaded.set(name, u);
    const merged = mergeSelectorArgs(argv.slice(2));
    if (!Array.isArray(merged)) {
      errors += `${filename}:${linenum}: Unmatched parenthesis in selector definition.`;
      continue;
    }
    let syntaxError = false;
    for (const arg of merged) {
      const op = arg.replace(/^[\t\r\n]+|[\t\r\n]+$/g, '');
      const e = u.apply(op);
      if (e === null) continue;
      if (e === 'ENOENT') {
        errors += `${filename}:${linenum}: Error in applying operation '${op}': ${ruleErrorText(e)}. `;
      } else if (!syntaxError) {
        errors += `${filename}:${linenum}: ${ruleErrorText(e)}. `;
        syntaxError = true;
      }
    }
  }
  if (errors !== '') {
    return `${errors}WARNING: ACL errors detected, no change to the previously active ACL rules was performed`;
  }
  const old = [...users.users.values()];
  const loadedDefault = loaded.get('default');
  users.users.clear();
  for (const [name, u] of loaded) if (name !== 'default') users.users.set(name, u);
  if (loadedDefault !== undefined) users.defaultUser.copyFrom(loadedDefault);
  else users.resetDefault();
  users.users.set('default', users.defaultUser);
  for (const u of old) if (u !== users.defaultUser) disconnectUser(server, u, current);
  return null;
}

/** ACLSaveToFile: written to a temporary file, then renamed over it; false when that failed. */
export function saveAclFile(server: ServerState, filename: string): boolean {
  const tmp = `${filename}.tmp-${process.pid}-${Date.now()}`;
  try {
    writeFileSync(tmp, aclFileText(server.users), { mode: 0o644 });
    renameSync(tmp, filename);
    return true;
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // Nothing was written.
    }
    return false;
  }
}

/**
 * ACLFreeUserAndKillClients: the user's clients go back to the default
 * user, unauthenticated, and are closed (the current one after its reply).
 */
export function disconnectUser(server: ServerState, u: User, current: Client | null): void {
  for (const c of server.clients.values()) {
    if (c.user !== u) continue;
    c.user = server.users.defaultUser;
    c.setAuthenticated(false);
    if (c === current) c.closeAfterReply = true;
    else c.kill();
  }
}
