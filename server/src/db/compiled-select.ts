import { type Compilable, type CompiledQuery, SelectQueryNode } from 'kysely';
import type { Db } from './database.ts';

/**
 * A SELECT built and compiled once per database, then run with new parameter values: Kysely builds
 * and compiles a query anew on every call, which on a hot path (every stream request asks for its
 * file) was ~0.25 ms of ~1.8 ms of CPU. Only a SELECT may be run this way: the listing's write
 * observer sees statements as Kysely compiles them, and a write run from a kept compilation would go
 * around it (listing-writes.test.ts holds every other module to that).
 *
 * @param build the query, with a placeholder value for each of its `parameters` parameters
 */
export function compiledSelect<R>(
  build: (db: Db) => Compilable<R>,
  parameters: number,
): (db: Db, values: readonly unknown[]) => Promise<R[]> {
  const kept = new WeakMap<Db, CompiledQuery<R>>();
  return async (db, values) => {
    let compiled = kept.get(db);
    if (compiled === undefined) {
      compiled = build(db).compile();
      if (!SelectQueryNode.is(compiled.query)) throw new Error('compiledSelect: not a SELECT');
      // Values take the placeholders' places in order: a count that differs would misplace them.
      if (compiled.parameters.length !== parameters) {
        throw new Error(`compiledSelect: ${compiled.parameters.length} parameters, expected ${parameters}`);
      }
      kept.set(db, compiled);
    }
    if (values.length !== parameters)
      throw new Error(`compiledSelect: ${values.length} values for ${parameters}`);
    return (await db.executeQuery<R>({ ...compiled, parameters: values })).rows;
  };
}
