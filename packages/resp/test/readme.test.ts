import { testReadme } from '@strata/readme-examples';

// Every ```ts example of the README, run as it is written there (see
// tooling/readme-examples).
await testReadme(new URL('../README.md', import.meta.url), {
  preludes: {
    // "Starting a server" listens on PORT, else 6379: here a free port.
    'free-port': "process.env.PORT = '0';",
  },
  epilogues: {
    // Stops it as its SIGINT handler would, without the exit.
    stop: "process.off('SIGINT', stop); delete process.env.PORT; await server.close();",
  },
  minExamples: 2,
});
