import {
  type CommandTable,
  type ConfiguredUser,
  checkUserDirective,
  checkValue,
  commandDefinitions,
  createCommandTable,
  PARAMETER_NAMES,
  type ParameterSpec,
} from '@strata/resp';
import { ConfigError, findSetting, type ServerConfig } from './config.js';

/**
 * What the config file and the command line built up, directive after
 * directive (one state for both: Redis reads the command line as lines
 * after the file's).
 */
export interface DirectiveState {
  readonly config: ServerConfig;
  /** Each Redis parameter given, in order, by its own name, as CONFIG GET prints it. */
  readonly parameters: { readonly name: string; readonly text: string }[];
  /** Names given that strata-server does not act on, in the order first seen. */
  readonly unused: Set<string>;
  /** The save rules read so far: Redis's save lines add up. null: none yet (the default stands). */
  save: string | null;
  /** The `user` lines, checked, in order (Redis's UsersToLoad). */
  readonly users: ConfiguredUser[];
}

export function directiveState(config: ServerConfig): DirectiveState {
  return { config, parameters: [], unused: new Set(), save: null, users: [] };
}

/** Reads `include`'s file (or files) into the same state. */
export type Include = (path: string) => Promise<void>;

/** Accepted by Redis 7.0 and ignored (config.c's deprecated_configs), with one argument. */
const DEPRECATED = new Set([
  'list-max-ziplist-entries',
  'list-max-ziplist-value',
  'lua-replicate-commands',
]);

/** Directives that are no parameter, each taking its arguments its own way. */
const OTHERS = new Set(['include', 'rename-command', 'user', 'loadmodule', 'sentinel']);

/**
 * Whether `name` is a directive at all (a flag name worth reading the
 * values of): a setting, a Redis parameter, or one of Redis's others.
 */
export function isDirectiveName(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    findSetting(lower) !== undefined ||
    PARAMETER_NAMES.has(lower) ||
    DEPRECATED.has(lower) ||
    OTHERS.has(lower) ||
    lower.includes('.')
  );
}

/**
 * Redis's parameters whose arguments are several words (MULTI_ARG_CONFIG
 * in config.c): every special syntax but `dir` and the event letters, and
 * the sets of flags.
 */
function isMultiArg(spec: ParameterSpec): boolean {
  const t = spec.type;
  if (t.kind === 'special') return t.syntax !== 'dir' && t.syntax !== 'notify-keyspace-events';
  return t.kind === 'enum' && t.flags !== undefined;
}

const TLS = 'strata-server has no TLS: tls-port, tls-replication and tls-cluster must stay off';

/**
 * Values Redis takes that strata-server refuses, because ignoring them
 * would quietly do something else than asked (a replica that does not
 * replicate, an ACL file nobody enforces). null: fine.
 */
function refusal(spec: ParameterSpec, text: string): string | null {
  switch (spec.name) {
    case 'replicaof':
      return text.toLowerCase() === 'no one'
        ? null
        : 'strata-server does not replicate: replicaof must be "no one"';
    case 'cluster-enabled':
      return text === 'yes' ? 'strata-server has no cluster mode' : null;
    case 'tls-port':
      return text === '0' ? null : TLS;
    case 'tls-replication':
    case 'tls-cluster':
      return text === 'yes' ? TLS : null;
    default:
      return null;
  }
}

/** Redis's checks of replicaof's two arguments (config.c's setConfigReplicaOfOption). */
function checkReplicaOf(values: readonly string[]): void {
  if (values.length !== 2) throw new ConfigError('wrong number of arguments');
  if (values[0]!.toLowerCase() === 'no' && values[1]!.toLowerCase() === 'one') return;
  // strtol with the whole argument read.
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)$/.exec(values[1]!);
  const port = m === null ? Number.NaN : Number(m[1]);
  if (!(port >= 0 && port <= 65535)) throw new ConfigError('Invalid master port');
}

let commandNames: Set<string> | null = null;
/** The command table user rules are checked against (built once, on the first `user` line). */
let aclTable: CommandTable | null = null;

function isCommand(name: string): boolean {
  commandNames ??= new Set(commandDefinitions().map((d) => d.name.toLowerCase()));
  return commandNames.has(name.toLowerCase());
}

/**
 * One directive, `name values...`, as Redis 7.0's loadServerConfigFromString
 * reads it, in its order: a parameter (checked with resp's table and
 * CONFIG SET's checks, then applied when strata-server acts on it, kept for
 * CONFIG GET either way), a deprecated one, then include, rename-command,
 * user (its rules checked as ACLAppendUserForLoading checks them, loaded
 * at start by resp's ACL family), loadmodule, module configs and sentinel. Throws ConfigError with
 * Redis's reason.
 */
export async function applyDirective(
  state: DirectiveState,
  name: string,
  values: readonly string[],
  include: Include,
): Promise<void> {
  const lower = name.toLowerCase();
  const parameter = PARAMETER_NAMES.get(lower);
  if (parameter !== undefined) {
    applyParameter(state, parameter.spec, values);
    return;
  }
  const setting = findSetting(lower);
  if (setting !== undefined) {
    if (values.length !== 1) throw new ConfigError('wrong number of arguments');
    setting.apply(state.config, values[0]!);
    return;
  }
  if (DEPRECATED.has(lower) && values.length === 1) {
    state.unused.add(lower);
    return;
  }
  if (lower === 'include' && values.length === 1) {
    await include(values[0]!);
    return;
  }
  if (lower === 'rename-command' && values.length === 2) {
    if (!isCommand(values[0]!)) throw new ConfigError('No such command in rename-command');
    // Clients, scripts and the AOF name commands by their own names here.
    throw new ConfigError(
      'rename-command is not supported: strata-server keeps every command name',
    );
  }
  if (lower === 'user' && values.length >= 1) {
    aclTable ??= createCommandTable();
    const seen = new Set(state.users.map((u) => u[0]!));
    const checked = checkUserDirective(aclTable, values, seen);
    if (!checked.ok) throw new ConfigError(checked.error);
    state.users.push(checked.user);
    return;
  }
  if (lower === 'loadmodule' && values.length >= 1) {
    throw new ConfigError('strata-server cannot load Redis modules');
  }
  if (lower.includes('.')) {
    if (values.length !== 1) throw new ConfigError('Module config specified without value');
    throw new ConfigError(
      'Module Configuration detected without loadmodule directive or no ApplyConfig call: aborting',
    );
  }
  if (lower === 'sentinel') {
    throw new ConfigError(
      values.length === 0
        ? 'strata-server has no sentinel mode'
        : 'sentinel directive while not in sentinel mode',
    );
  }
  throw new ConfigError('Bad directive or wrong number of arguments');
}

function applyParameter(
  state: DirectiveState,
  spec: ParameterSpec,
  values: readonly string[],
): void {
  if (!isMultiArg(spec) && values.length !== 1) throw new ConfigError('wrong number of arguments');
  if (spec.name === 'replicaof') checkReplicaOf(values);
  // CONFIG SET's form of several arguments: one space apart.
  const checked = checkValue(spec, values.join(' '));
  if (!checked.ok) throw new ConfigError(checked.reason);
  let text = checked.text;
  const refused = refusal(spec, text);
  if (refused !== null) throw new ConfigError(refused);
  if (spec.name === 'save') {
    // The first save line replaces the default, the next ones add rules;
    // `save ""` empties them (config.c's setConfigSaveOption while loading).
    if (values.length === 0 && state.save !== null) text = state.save;
    else if (text !== '' && values[0] !== '' && state.save !== null && state.save !== '') {
      text = `${state.save} ${text}`;
    }
    state.save = text;
  }
  const setting = findSetting(spec.name);
  if (setting?.redis === true) setting.apply(state.config, text);
  else if (spec.effect === 'none') state.unused.add(spec.name);
  state.parameters.push({ name: spec.name, text });
}
