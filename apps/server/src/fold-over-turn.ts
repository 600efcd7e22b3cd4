// The checkpoint hook moved to @strata/hlog (the embedded store uses it too).
export { foldOverOnOwnTurn } from '@strata/hlog';
