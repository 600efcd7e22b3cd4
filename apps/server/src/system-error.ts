import { getSystemErrorMap } from 'node:util';

/** glibc's strerror text for the codes a start-up meets, where libuv words them otherwise. */
const MESSAGES: Readonly<Record<string, string>> = {
  EACCES: 'Permission denied',
  EADDRINUSE: 'Address already in use',
  EADDRNOTAVAIL: 'Cannot assign requested address',
  EAFNOSUPPORT: 'Address family not supported by protocol',
  EISDIR: 'Is a directory',
  ENOENT: 'No such file or directory',
  ENOSPC: 'No space left on device',
  ENOTDIR: 'Not a directory',
  EPERM: 'Operation not permitted',
  EROFS: 'Read-only file system',
  // getaddrinfo's (gai_strerror), for a bind address that is no host.
  ENOTFOUND: 'Name or service not known',
  EAI_AGAIN: 'Temporary failure in name resolution',
};

/** What C's strerror says for a Node system error (`Permission denied`), as Redis prints it. */
export function strerror(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const known = err.code === undefined ? undefined : MESSAGES[err.code];
  if (known !== undefined) return known;
  const uv = typeof err.errno === 'number' ? getSystemErrorMap().get(err.errno) : undefined;
  if (uv !== undefined) return uv[1].charAt(0).toUpperCase() + uv[1].slice(1);
  return err.message ?? String(e);
}
