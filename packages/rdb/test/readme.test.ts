import { testReadme } from '@strata/readme-examples';

// Every ```ts example of the README, run as it is written there (see
// tooling/readme-examples).
await testReadme(new URL('../README.md', import.meta.url), {
  preludes: {
    // The file example's dump.rdb (what redis-server writes): one string in db 0.
    'dump-rdb': `
      import { writeFileSync as preludeWrite } from 'node:fs';
      import { ByteWriter as PreludeWriter, Crc64 as PreludeCrc, RDB_OPCODE as PRELUDE_OP, RDB_TYPE as PRELUDE_TYPE } from '@strata/rdb';
      const preludeRdb = new PreludeWriter(false);
      preludeRdb.raw(Buffer.from('REDIS0009'));
      preludeRdb.u8(PRELUDE_OP.SELECTDB).len(0);
      preludeRdb.u8(PRELUDE_TYPE.STRING).string(Buffer.from('greeting')).string(Buffer.from('hello'));
      preludeRdb.u8(PRELUDE_OP.EOF);
      const preludeBody = preludeRdb.toBuffer();
      preludeWrite('dump.rdb', Buffer.concat([preludeBody, new PreludeCrc().update(preludeBody).digestBytes()]));
    `,
  },
  minExamples: 2,
});
