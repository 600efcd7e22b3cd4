import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandSpec, CommandTable } from '../../server/command-table.js';
import { checkCommand, type Denied } from './acl-check.js';
import { AclLog, type LogContext } from './acl-log.js';
import { type SelectorDefaults, User } from './acl-user.js';

/**
 * The ACL users of a server (Redis's Users rax and DefaultUser), its ACL
 * log, and the checks the dispatcher, EXEC and scripts call for a user
 * that is not allowed everything. `requirepass` is the default user's
 * password, as in Redis (ACLUpdateDefaultUserPassword).
 */
export class AclUsers {
  readonly users = new Map<string, User>();
  readonly defaultUser: User;
  /** What a client with no user runs as (an AOF replay: Redis's user NULL), allowed everything. */
  readonly superuser: User;
  readonly log = new AclLog();
  /** acl-pubsub-default: whether new users and selectors start with allchannels. */
  readonly selectorDefaults: SelectorDefaults = { allChannels: false };
  /** Writes client info for the log (the connection family's CLIENT LIST line). */
  clientInfo: (c: Client) => string = () => '';

  constructor(readonly table: CommandTable) {
    this.defaultUser = createDefaultUser(table, this.selectorDefaults);
    this.users.set('default', this.defaultUser);
    this.superuser = createDefaultUser(table, this.selectorDefaults, '');
  }

  /** A new user (Redis's ACLCreateUser): off, no password, no commands or keys; channels as acl-pubsub-default says. */
  create(name: string): User {
    return new User(name, this.table, this.selectorDefaults);
  }

  get(name: Buffer | string): User | undefined {
    return this.users.get(typeof name === 'string' ? name : name.toString('latin1'));
  }

  /** The users by name, in Redis's (byte) order. */
  sorted(): User[] {
    return [...this.users.values()].sort((a, b) =>
      Buffer.compare(Buffer.from(a.name, 'latin1'), Buffer.from(b.name, 'latin1')),
    );
  }

  /** ACL LOAD of a file with no default user: it is created anew (nopass, all allowed). */
  resetDefault(): void {
    this.defaultUser.copyFrom(createDefaultUser(this.table, this.selectorDefaults));
  }

  /** requirepass changed (null: none): the default user's passwords become it, or nopass. */
  setRequirepass(password: string | null): void {
    const u = this.defaultUser;
    u.apply('resetpass');
    if (password === null) u.apply('nopass');
    else u.apply(`>${Buffer.from(password).toString('latin1')}`);
  }

  /**
   * AUTH and HELLO AUTH: the client becomes `name`'s when the password
   * matches (a nopass user takes any); else false, logged as Redis does.
   */
  authenticate(c: Client, name: Buffer, password: Buffer, command: Buffer): boolean {
    const u = this.get(name);
    if (u?.checkPassword(password) === true) {
      c.user = u;
      c.setAuthenticated(true);
      return true;
    }
    this.log.add({
      reason: 'auth',
      context: c.multi !== null ? 'multi' : 'toplevel',
      object: Buffer.from(command),
      username: Buffer.from(name),
      time: Date.now(),
      clientInfo: this.clientInfo(c),
    });
    return false;
  }

  /** The client's user may not run this call: logged, and why (null: allowed). */
  check(c: Client, spec: CommandSpec, argv: readonly Buffer[], context: LogContext): Denied | null {
    const denied = checkCommand(c.user, spec, argv);
    if (denied === null) return null;
    this.log.add({
      reason: denied.reason,
      context,
      object:
        denied.reason === 'command' ? Buffer.from(spec.fullName) : Buffer.from(argv[denied.index]!),
      username: Buffer.from(c.user.name, 'latin1'),
      time: Date.now(),
      clientInfo: this.clientInfo(c),
    });
    return denied;
  }

  /** processCommand's refusal: NOPERM in Redis 7.0's words. */
  deny(
    c: Client,
    spec: CommandSpec,
    argv: readonly Buffer[],
    context: LogContext,
  ): CommandError | null {
    const d = this.check(c, spec, argv, context);
    if (d === null) return null;
    return new CommandError('ERR_NOPERM', nopermMessage(d, spec));
  }
}

function createDefaultUser(
  table: CommandTable,
  defaults: SelectorDefaults,
  name = 'default',
): User {
  const u = new User(name, table, defaults);
  for (const op of ['+@all', '~*', '&*', 'on', 'nopass']) u.apply(op);
  return u;
}

export function nopermMessage(d: Denied, spec: CommandSpec): string {
  switch (d.reason) {
    case 'command':
      return `NOPERM this user has no permissions to run the '${spec.fullName}' command`;
    case 'key':
      return 'NOPERM this user has no permissions to access one of the keys used as arguments';
    case 'channel':
      return 'NOPERM this user has no permissions to access one of the channels used as arguments';
  }
}

/** EXEC's check of each queued command, as Redis 7.0 words it when the rules changed since. */
export function execDeniedMessage(d: Denied): string {
  const reason =
    d.reason === 'command'
      ? 'no permission to execute the command or subcommand'
      : d.reason === 'key'
        ? 'no permission to touch the specified keys'
        : 'no permission to access one of the channels used as arguments';
  return `NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: ${reason}`;
}

/** scriptVerifyACL's words for a redis.call the user may not make. */
export function scriptDeniedMessage(d: Denied): string {
  switch (d.reason) {
    case 'command':
      return "The user executing the script can't run this command or subcommand";
    case 'key':
      return "The user executing the script can't access at least one of the keys mentioned in the command arguments";
    case 'channel':
      return "The user executing the script can't publish to the channel mentioned in the command";
  }
}
