/** What a command answered: its value, or its error's code word (`-MISCONF`, `-NOTPERSISTED`...). */
export async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return await p;
  } catch (e) {
    return `-${(e as Error).message.split(' ')[0]}`;
  }
}

/** Waits until `f` holds (a retry runs in the background); fails after `ms`. */
export async function until(f: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((res) => setTimeout(res, 20));
  }
}
