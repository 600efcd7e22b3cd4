// Public API of this package; see README.md.
export {
  compileGlob,
  GLOB_MAX_STAR_NESTING,
  type GlobMatcher,
  type GlobOptions,
} from './glob-matcher.js';
