/** A unique constraint refused the write (SQLite's SQLITE_CONSTRAINT_UNIQUE, PostgreSQL's 23505). */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || !('code' in err)) return false;
  const code = (err as { code: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}
