/** What Redis's proc-title-template variables stand for in this process. */
export interface ProcTitleVariables {
  /** `{title}`: the program as it was run (Redis's argv[0]). */
  readonly title: string;
  /** The first bind address (`*` with none) and the TCP port. */
  readonly bind: string;
  readonly port: number;
  /** '' without one. */
  readonly unixsocket: string;
  /** The config file, resolved, or null. */
  readonly configFile: string | null;
}

/**
 * Redis's expandProcTitleTemplate: each `{name}` replaced (resp's
 * config-validate has refused unknown names and unclosed braces already),
 * spaces trimmed at both ends. `{server-mode}` is empty (no cluster, no
 * sentinel) and `{tls-port}` 0 (no TLS).
 */
export function expandProcTitle(template: string, v: ProcTitleVariables): string {
  const value = (name: string): string => {
    switch (name) {
      case 'title':
        return v.title;
      case 'listen-addr':
        return v.port !== 0 ? `${v.bind}:${v.port}` : `unixsocket:${v.unixsocket}`;
      case 'port':
        return String(v.port);
      case 'tls-port':
        return '0';
      case 'unixsocket':
        return v.unixsocket;
      case 'config-file':
        return v.configFile ?? '-';
      default:
        return '';
    }
  };
  return template
    .replace(/\{([^}]*)\}/g, (_m, name: string) => value(name))
    .replace(/^ +| +$/g, '');
}

/**
 * The process title as Redis keeps it: set once the server listens when
 * `set-proc-title` is yes, and again whenever CONFIG SET changes
 * `proc-title-template` (Redis sets it then whatever set-proc-title says).
 */
export class ProcTitle {
  template = '{title} {listen-addr} {server-mode}';
  private variables: ProcTitleVariables | null = null;

  /** The server listens: from now on the title follows the template. */
  start(variables: ProcTitleVariables, enabled: boolean): void {
    this.variables = variables;
    if (enabled) this.apply();
  }

  /** Sets the title from the template (before start: nothing to say yet). */
  apply(): void {
    if (this.variables !== null) process.title = expandProcTitle(this.template, this.variables);
  }
}
