import pg from 'pg';

/**
 * Whether the PostgreSQL database at `url` has no table yet in its schema: a database made for the
 * move, before anything (our migrations included) wrote to it. Throws when it cannot be reached.
 */
export async function hasNoTables(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection the server ends while idle must not crash the process.
  client.on('error', () => {});
  await client.connect();
  try {
    const res = await client.query<{ n: string }>(
      `select count(*) as n from information_schema.tables
       where table_schema = current_schema() and table_type = 'BASE TABLE'`,
    );
    return Number(res.rows[0]?.n ?? 0) === 0;
  } finally {
    await client.end();
  }
}
