import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import { isLoopback } from '../../server/loopback.js';
import { readConfig } from '../server/config.js';

/** Redis 7.0's refusal of a protected command (rejectCommand's text for DEBUG). */
export const debugNotAllowed = (): CommandError =>
  new CommandError(
    'ERR_UNSUPPORTED',
    'ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.',
  );

/**
 * enable-debug-command, immutable as in Redis: `no` (the default) refuses
 * DEBUG, `local` allows it from a loopback connection, `yes` from any. A
 * server starts with it set through RespServerOptions.configValues.
 */
export function checkDebugAllowed(c: Client): void {
  const setting = readConfig(c.server, 'enable-debug-command');
  if (setting === 'yes') return;
  if (setting === 'local' && isLoopback(c.socket.remoteAddress)) return;
  throw debugNotAllowed();
}
