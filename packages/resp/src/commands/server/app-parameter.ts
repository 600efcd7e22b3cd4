/**
 * A parameter an app acts on itself (strata-server's `appendfsync`,
 * `save`, `maxmemory`...), given to RespServer by Redis's name
 * (RespServerOptions.appParameters). CONFIG GET prints `get()`. CONFIG
 * SET checks the value as Redis does (config-validate.ts), then calls
 * `set` with it as CONFIG GET would print it; the app owns the value,
 * resp keeps no copy.
 */
export interface AppParameter {
  get(): string;
  /**
   * Applies `text`. When the app cannot, it changes nothing and returns
   * why, in Redis's words for its own failure (the text after `CONFIG SET
   * failed (possibly related to argument '<name>') - `): CONFIG SET then
   * puts back the parameters it already changed, as Redis's rollback.
   */
  set(text: string): string | undefined;
}
