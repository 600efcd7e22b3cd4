import { clientInfoLine } from '../connection/client.js';
import type { CommandFamily } from '../family.js';
import { aclCommand } from './acl-command.js';
import { loadConfiguredUsers, USERS_AND_ACLFILE } from './acl-config-users.js';
import { aclFileName, loadAclFile } from './acl-file.js';

/**
 * ACL as Redis 7.0 has it (acl.c): users with passwords, command, key
 * and channel rules and selectors (acl-user.ts, acl-selector.ts), the
 * checks the dispatcher, EXEC and scripts make (acl-check.ts), the ACL
 * log, the aclfile, and the ACL command. The users live on the server
 * state (`ServerState.users`): the default user's password is requirepass.
 */
export const aclFamily: CommandFamily = {
  name: 'acl',
  commands: [aclCommand],
  hooks: {
    async beforeListen(server) {
      // ACL LOG's client-info is CLIENT LIST's line, without its newline.
      server.users.clientInfo = (c) => clientInfoLine(c).slice(0, -1);
      // ACLLoadUsersAtStartup: users from both the config file and an aclfile,
      // or either that does not load, stop the start, as in Redis.
      const file = aclFileName(server);
      const configured = server.configuredUsers;
      if (file !== '' && configured.length > 0) throw new Error(USERS_AND_ACLFILE);
      if (file === '') {
        const failed = loadConfiguredUsers(server.users, configured, (l) =>
          server.log('notice', l),
        );
        if (failed !== null) {
          server.log('warning', failed);
          throw new Error('Critical error while loading ACLs. Exiting.');
        }
        return;
      }
      const errors = loadAclFile(server, file, null);
      if (errors !== null)
        throw new Error(`Aborting Redis startup because of ACL errors: ${errors}`);
    },
  },
};
