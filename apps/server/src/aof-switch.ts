import type { AppendOnlyFile } from '@strata/aof';
import type { Keyspace } from '@strata/resp';
import type { AofRewrite } from './aof-rewrite.js';
import type { Logger } from './logger.js';

/** What turning the AOF on or off acts on: strata-server's parts. */
export interface AofSwitchParts {
  readonly logger: Logger;
  readonly rewrite: AofRewrite;
  keyspace(): Keyspace;
  /** The AOF open now, or null. */
  current(): AppendOnlyFile | null;
  /** A new AOF over whatever the AOF directory holds, ready to append (AppendOnlyFile.create). */
  create(): Promise<AppendOnlyFile>;
  /** Makes `aof` the one the databases and the command log use (null: none). */
  use(aof: AppendOnlyFile | null): void;
  /** No command goes to the AOF from now on (the databases still record their checkpoints in it). */
  stopLogging(): void;
  /** Runs `fn` with every client held (RespServer.exclusive). */
  exclusive(fn: () => Promise<void>): Promise<void>;
  /**
   * Stops the periodic checkpoints, commit points, compaction and the
   * automatic rewrite's timer, once what runs of the first three has ended;
   * the returned function starts them again.
   */
  pauseBackground(): Promise<() => void>;
}

/**
 * CONFIG SET appendonly, live. On: a new AOF (an earlier one's files are
 * replaced: the databases' state is in their checkpoints), and every open
 * database checkpointed and opened again with it, as a start with
 * appendonly yes opens a database the AOF has no entry for; this runs as
 * the AOF rewrite Redis starts then. Off: every database checkpointed (in
 * the AOF, so a start with appendonly yes still finds them), opened again
 * without it, and the AOF closed. Clients are held while the databases
 * are checkpointed and reopened (Redis forks instead); the reply to
 * CONFIG SET comes first, as Redis's does before its rewrite ends.
 */
export class AofSwitch {
  private wanted: boolean;
  private running: Promise<void> | null = null;

  constructor(
    private readonly parts: AofSwitchParts,
    on: boolean,
  ) {
    this.wanted = on;
  }

  /** CONFIG GET appendonly and INFO's aof_enabled: what was asked last (Redis sets it before its rewrite ends). */
  get on(): boolean {
    return this.wanted;
  }

  /**
   * CONFIG SET appendonly: the switch runs in the background; a second one
   * waits for the first. Off stops the logging at once, as Redis's does:
   * what is written from then on is kept by the checkpoints the switch
   * takes, under the policy the user just chose.
   */
  set(on: boolean): void {
    this.wanted = on;
    if (!on) this.parts.stopLogging();
    this.next();
  }

  /** Resolves once the AOF is as last asked, or a switch failed (shutdown waits for it). */
  async settled(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  private next(): void {
    if (this.running !== null || (this.parts.current() !== null) === this.wanted) return;
    const on = this.wanted;
    this.running = (on ? this.turnOn() : this.turnOff()).then(
      () => {
        this.running = null;
        this.next();
      },
      (e: unknown) => {
        this.running = null;
        // As Redis after a failed start: the setting shows what is.
        if (this.wanted === on) this.wanted = this.parts.current() !== null;
        this.parts.logger.warning(
          `${on ? 'Turning the AOF on' : 'Turning the AOF off'} failed: ${(e as Error).message}`,
        );
        this.next();
      },
    );
  }

  /** A rewrite from the call on (INFO's aof_rewrite_in_progress:1 at once, as Redis's fork). */
  private turnOn(): Promise<void> {
    const { parts } = this;
    return parts.rewrite.startAof(async () => {
      const resume = await parts.pauseBackground();
      try {
        await parts.exclusive(async () => {
          const started = performance.now();
          const keyspace = parts.keyspace();
          // What the databases hold now, in their checkpoints: the AOF starts from there.
          await keyspace.saveAll();
          const aof = await parts.create();
          parts.use(aof);
          try {
            // Reopened with the AOF, each records a checkpoint in it before any command.
            await keyspace.reload();
          } catch (e) {
            parts.use(null);
            await keyspace.reload().catch(() => undefined);
            await aof.close().catch(() => undefined);
            throw e;
          }
          parts.logger.notice(
            `AOF turned on: ${databases(openCount(keyspace))} checkpointed into it in ` +
              `${Math.round(performance.now() - started)} ms`,
          );
        });
      } finally {
        resume();
      }
    });
  }

  private async turnOff(): Promise<void> {
    const { parts } = this;
    const resume = await parts.pauseBackground();
    try {
      await parts.rewrite.idle();
      await parts.exclusive(async () => {
        const aof = parts.current();
        if (aof === null) return;
        const started = performance.now();
        const keyspace = parts.keyspace();
        // Every database with data, checkpointed under the AOF: none is left
        // whose state only a replay of the AOF would give.
        await keyspace.ensureStored();
        await keyspace.saveAll();
        parts.use(null);
        try {
          await keyspace.reload();
        } finally {
          await aof.close();
        }
        parts.logger.notice(
          `AOF turned off: ${databases(openCount(keyspace))} checkpointed in ` +
            `${Math.round(performance.now() - started)} ms`,
        );
      });
    } finally {
      resume();
    }
  }
}

const databases = (n: number) => `${n} database${n === 1 ? '' : 's'}`;

function openCount(keyspace: Keyspace): number {
  let n = 0;
  for (let i = 0; i < keyspace.count; i++) if (keyspace.get(i) !== undefined) n++;
  return n;
}
