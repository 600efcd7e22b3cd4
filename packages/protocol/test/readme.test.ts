import { testReadme } from '@strata/readme-examples';

// Every ```ts example of the README, run as it is written there (see
// tooling/readme-examples).
await testReadme(new URL('../README.md', import.meta.url), {
  // The socket example's server answers a request (each command: a map of
  // one pair, in RESP2 an array of two), then is closed.
  epilogues: {
    'close-server': `
      const { once: onceReadme } = await import('node:events');
      const { connect: connectReadme } = await import('node:net');
      await onceReadme(server, 'listening');
      const addr = server.address() as import('node:net').AddressInfo;
      const c = connectReadme(addr.port, '127.0.0.1');
      c.write('PING\\r\\n');
      const [answer] = await onceReadme(c, 'data');
      c.destroy();
      server.close();
      if (String(answer) !== '*2\\r\\n$5\\r\\nproto\\r\\n:2\\r\\n') throw new Error('replied ' + JSON.stringify(String(answer)));
    `,
  },
  minExamples: 2,
});
