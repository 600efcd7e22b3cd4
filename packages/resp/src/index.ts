// Public API of this package. The protocol codec comes first; the command
// table and the server class follow (see README.md).
export * from './protocol/index.js';
