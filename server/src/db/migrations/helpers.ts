import type { CreateTableBuilder } from 'kysely';

/** SQL dialects the migrations are written for; only sqlite is wired up today. */
export type Dialect = 'sqlite' | 'postgres';

/** ISO-8601 UTC text: sorts correctly and reads the same in every dialect. */
export const timestamp = 'text';

/** Adds an integer identity primary key named `id`, spelled the way the dialect wants it. */
export function idColumn<T extends string>(table: CreateTableBuilder<T, never>, dialect: Dialect) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
