// Public API of this package. Filled in by its own issue; see README.md.
export {};
