import type { LocalClient } from '@strata/resp';

/**
 * Commands for one LocalClient, run one after another in the order they
 * were sent (as a connection's pipeline): a caller may send many without
 * waiting. A command the client answers at once costs no extra turn.
 */
export class CommandQueue {
  private tail: Promise<unknown> | null = null;
  private inFlight = 0;

  constructor(private readonly client: LocalClient) {}

  send(argv: Buffer[]): Promise<Buffer> {
    if (this.inFlight === 0) return this.track(this.client.send(argv));
    const run = (this.tail ?? Promise.resolve()).then(() => this.client.send(argv));
    return this.track(run);
  }

  private track(p: Promise<Buffer>): Promise<Buffer> {
    this.inFlight++;
    // The next command waits for this one whether it succeeded or not.
    this.tail = p.then(
      () => this.settled(),
      () => this.settled(),
    );
    return p;
  }

  private settled(): void {
    this.inFlight--;
  }

  close(): void {
    this.client.close();
  }
}
