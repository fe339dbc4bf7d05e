// Migrates the template database the PostgreSQL test run copies every test database from
// (scripts/test-postgres.mjs): the migrations run once per run, not once per test server.
import { openDatabase } from '../server/src/db/database.ts';

const url = process.argv[2];
if (url === undefined) throw new Error('usage: migrate-test-template.ts <postgres url>');
const opened = await openDatabase(url, { pool: 1 });
await opened.close();
