import { resolve } from 'node:path';
import { PARAMETER_NAMES, type RespServerOptions } from '@strata/resp';
import type { LoadedConfig } from './load-config.js';

/**
 * Parameters whose CONFIG GET value strata-server gives RespServer itself:
 * its options (requirepass, maxclients, notify-keyspace-events,
 * protected-mode), what resp reads from the running server (port,
 * databases), the AOF's (aof-info.ts), the live ones its configuration
 * holds (appendfsync, loglevel, save, maxmemory: live-parameters.ts), and
 * the ones below.
 */
const OWN = new Set([
  'requirepass',
  'maxclients',
  'notify-keyspace-events',
  'protected-mode',
  'port',
  'databases',
  'appendonly',
  'appendfsync',
  'appendfilename',
  'appenddirname',
  'bind',
  'dir',
  'daemonize',
  'pidfile',
  'logfile',
  'loglevel',
  'save',
  'maxmemory',
]);

/** CONFIG SET refuses to change these (immutable, or protected): their values are read-only. */
function readOnly(name: string): boolean {
  const spec = PARAMETER_NAMES.get(name)?.spec;
  return spec !== undefined && (!spec.mutable || spec.protected === true);
}

/**
 * CONFIG GET's read-only values: what strata-server runs with (bind, dir,
 * daemonize, pidfile, logfile), and the file's values of the other
 * parameters CONFIG SET cannot change (the last one given wins).
 */
export function startupConfigValues(
  loaded: LoadedConfig,
): NonNullable<RespServerOptions['configValues']> {
  const { config } = loaded;
  const values: Record<string, () => string> = {};
  for (const { name, text } of loaded.parameters) {
    if (!OWN.has(name) && readOnly(name)) values[name] = () => text;
  }
  return {
    ...values,
    bind: () => config.bind.join(' '),
    // Redis chdirs there; strata's databases live in it.
    dir: () => resolve(config.dir),
    daemonize: () => (config.daemonize ? 'yes' : 'no'),
    pidfile: () => config.pidfile,
    logfile: () => config.logfile,
  };
}

/**
 * The CONFIG SET commands that give RespServer (and strata-server's live
 * parameters) the file's values of the parameters CONFIG SET may change,
 * in the order given (a repeated client-output-buffer-limit adds its
 * classes, as in Redis). Run before any client connects.
 */
export function startupConfigSets(loaded: LoadedConfig): string[][] {
  const sets: string[][] = [];
  for (const { name, text } of loaded.parameters) {
    if (!OWN.has(name) && !readOnly(name)) sets.push(['CONFIG', 'SET', name, text]);
  }
  return sets;
}

/** A start-up parameter's value: the last one given (file, then flags), else Redis's default. */
export function givenValue(loaded: LoadedConfig, name: string): string {
  const given = loaded.parameters.filter((p) => p.name === name).at(-1);
  return given?.text ?? PARAMETER_NAMES.get(name)?.spec.default ?? '';
}
