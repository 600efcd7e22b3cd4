/**
 * A command family's state of one owner (a server, or one client): created
 * by the owner on first use and dropped with it, so no family keeps a
 * module-level map keyed by servers or clients (two servers in one process
 * never share one, and nothing outlives its owner).
 */
export class StateSlot<S, Owner> {
  constructor(
    /** For debugging: which family's state this is. */
    readonly name: string,
    readonly create: (owner: Owner) => S,
  ) {}
}

/** The states an owner holds, one per slot. */
export class SlotValues<Owner> {
  private readonly values = new Map<StateSlot<unknown, Owner>, unknown>();

  constructor(private readonly owner: Owner) {}

  /** The slot's state, created now if this owner has none yet. */
  get<S>(slot: StateSlot<S, Owner>): S {
    if (this.values.has(slot)) return this.values.get(slot) as S;
    const value = slot.create(this.owner);
    this.values.set(slot, value);
    return value;
  }

  /** The slot's state, or undefined when this owner never used it (nothing is created). */
  peek<S>(slot: StateSlot<S, Owner>): S | undefined {
    return this.values.get(slot) as S | undefined;
  }

  clear(): void {
    this.values.clear();
  }
}
