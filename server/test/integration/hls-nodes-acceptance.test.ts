// Issue 26: a conversion played through two API nodes while the worker making it is killed
// (helpers/hls-nodes-scenario.ts). A short film here; `npm run bench nodes` plays a 10-minute one.
import { describe, it } from 'node:test';
import { playThroughApiNodes } from '../helpers/hls-nodes-scenario.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';

const POSTGRES_ONLY = testEngine === 'postgres' ? false : 'API nodes and workers need PostgreSQL';

describe('a conversion played through two API nodes while a worker dies', { skip: POSTGRES_ONLY }, () => {
  it('decodes the film end to end; the surviving worker goes on from the first missing segment', async (t) => {
    const databaseUrl = testDatabaseUrl(`hls-nodes-${process.pid}`);
    try {
      const figures = await playThroughApiNodes({ filmSeconds: 90, databaseUrl });
      t.diagnostic(JSON.stringify(figures));
    } finally {
      dropTestDatabase(databaseUrl);
    }
  });
});
