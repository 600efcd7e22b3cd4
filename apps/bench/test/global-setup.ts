// The scenarios that drive strata-server as a process (resp-throughput,
// types, durability) run it built from the current sources, as the
// server's own process tests do: the same setup, provided as
// `strataServerCli` (see scenario-support's useStrataServerFromSources).
export { default } from '../../server/test/global-setup.js';
