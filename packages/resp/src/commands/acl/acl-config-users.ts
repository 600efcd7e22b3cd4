import type { CommandTable } from '../../server/command-table.js';
import { mergeSelectorArgs, ruleErrorText, User } from './acl-user.js';
import type { AclUsers } from './acl-users.js';

/** A `user` line of a config file: the words after `user`, the name first, its rules merged. */
export type ConfiguredUser = readonly string[];

/** ACLLoadUsersAtStartup's refusal of both (Redis logs it and exits). */
export const USERS_AND_ACLFILE =
  'Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.';

/** What checkUserDirective gives: the user to load, or Redis's config file error. */
export type UserDirectiveCheck =
  | { readonly ok: true; readonly user: ConfiguredUser }
  | { readonly ok: false; readonly error: string };

/**
 * ACLAppendUserForLoading, for `user <name> <rules...>` in a config file
 * (`words` after `user`; `seen` the names of the lines before): the rules
 * are tried on a user nobody sees; a rule naming an unknown command or
 * category passes here and fails when the users load. The error is
 * config.c's `Error in user declaration '<word>': <reason>`, where Redis
 * names the line's word at the failing rule's index among the merged rules
 * (argv[0] being `user`), as it does.
 */
export function checkUserDirective(
  table: CommandTable,
  words: readonly string[],
  seen: ReadonlySet<string>,
): UserDirectiveCheck {
  const argv = ['user', ...words];
  const fail = (index: number, reason: string): UserDirectiveCheck => ({
    ok: false,
    error: `Error in user declaration '${argv[index]}': ${reason}`,
  });
  const name = words[0]!;
  if (seen.has(name)) return fail(1, ruleErrorText('EALREADY'));
  const merged = mergeSelectorArgs(words.slice(1));
  // Redis sets no errno of its own here: the reason printed is ENOENT's, left from before.
  if (!Array.isArray(merged)) return fail(merged.unmatched, ruleErrorText('ENOENT'));
  const probe = new User(name, table);
  for (let j = 0; j < merged.length; j++) {
    const e = probe.apply(merged[j]!);
    if (e !== null && e !== 'ENOENT') return fail(j, ruleErrorText(e));
  }
  return { ok: true, user: [name, ...merged] };
}

/**
 * ACLLoadConfiguredUsers: each configured user created (`default` reset
 * first) and its rules applied, in the file's order. Returns the lines
 * Redis logs when a rule fails (null: all loaded), and notices of users
 * left disabled through `notice`.
 */
export function loadConfiguredUsers(
  users: AclUsers,
  configured: readonly ConfiguredUser[],
  notice: (line: string) => void,
): string | null {
  for (const [name, ...rules] of configured as readonly [string, ...string[]][]) {
    let u: User;
    if (name === 'default') {
      u = users.defaultUser;
      u.apply('reset');
    } else {
      u = users.create(name);
      users.users.set(name, u);
    }
    for (const rule of rules) {
      const e = u.apply(rule);
      if (e !== null) {
        return `Error loading ACL rule '${rule}' for the user named '${name}': ${ruleErrorText(e)}`;
      }
    }
    if (!u.enabled) {
      notice(
        `The user '${name}' is disabled (there is no 'on' modifier in the user description). Make sure this is not a configuration error.`,
      );
    }
  }
  return null;
}
