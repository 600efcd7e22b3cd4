import type { CommandFamily } from '../family.js';
import { clientCommand } from './client.js';
import { connectionCommands } from './connection.js';

/** The connection: PING, ECHO, AUTH, HELLO, SELECT, QUIT, RESET, CLIENT. */
export const connectionFamily: CommandFamily = {
  name: 'connection',
  commands: [...connectionCommands, clientCommand],
};
