import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type OpenedDatabase, openDatabase } from '../../src/db/database.ts';
import { ListingWriteObserver } from '../../src/db/listing-writes.ts';
import type { ListingChange } from '../../src/domain/library-listing/changes.ts';

const NOW = '2026-01-01T00:00:00.000Z';

/** One change as sorted id lists (or "all"), for comparing. */
function flat(changes: ListingChange[]): { movies: number[]; files: number[] } | 'all' {
  if (changes.some((c) => c.all === true)) return 'all';
  const movies = new Set<number>();
  const files = new Set<number>();
  for (const c of changes) {
    for (const m of c.movies ?? []) movies.add(m);
    for (const f of c.files ?? []) files.add(f);
  }
  return { movies: [...movies].sort((a, b) => a - b), files: [...files].sort((a, b) => a - b) };
}

describe('the listing write observer (every Kysely write, classified)', () => {
  let opened: OpenedDatabase;
  let seen: ListingChange[] = [];
  const movie = (title: string) => ({
    title,
    sort_title: title.toLowerCase(),
    normalized_title: title.toLowerCase(),
    original_title: null,
    year: null,
    overview: null,
    runtime_minutes: null,
    tmdb_id: null,
    imdb_id: null,
    created_at: NOW,
    updated_at: NOW,
  });

  before(async () => {
    opened = await openDatabase('sqlite::memory:');
    const observer = ListingWriteObserver.of(opened.db);
    assert.ok(observer, 'openDatabase installs the observer');
    observer.subscribe((c) => seen.push(c));
  });
  after(async () => {
    await opened.close();
  });
  beforeEach(() => {
    seen = [];
  });

  async function changeOf(write: () => Promise<unknown>) {
    seen = [];
    await write();
    return flat(seen);
  }

  it('reads the ids of new movies and files from RETURNING or the last rowid', async () => {
    const db = opened.db;
    const one = await changeOf(() => db.insertInto('movies').values(movie('One')).returning('id').execute());
    assert.deepEqual(one, { movies: [1], files: [] });
    const two = await changeOf(() =>
      db
        .insertInto('movies')
        .values([movie('Two'), movie('Three')])
        .execute(),
    );
    assert.deepEqual(two, { movies: [2, 3], files: [] });
    assert.deepEqual(
      await changeOf(() =>
        db
          .insertInto('library_roots')
          .values({ path: '/r', name: 'r', collection_id: null, created_at: NOW })
          .execute(),
      ),
      { movies: [], files: [] },
      'a new root lists nothing',
    );
    const file = await changeOf(() =>
      db
        .insertInto('media_files')
        .values({
          movie_id: 2,
          library_root_id: 1,
          relative_path: 'a.mkv',
          size_bytes: 1,
          mtime_ms: 1,
          fingerprint: null,
          edition_label: null,
          created_at: NOW,
          updated_at: NOW,
        })
        .execute(),
    );
    assert.deepEqual(file, { movies: [2], files: [1] });
  });

  it('finds the rows an UPDATE or DELETE touches from its WHERE, looking owners up', async () => {
    const db = opened.db;
    assert.deepEqual(
      await changeOf(() => db.updateTable('movies').set({ overview: 'x' }).where('id', '=', 3).execute()),
      { movies: [3], files: [] },
    );
    assert.deepEqual(
      await changeOf(() =>
        db
          .updateTable('media_files')
          .set({ status: 'missing' })
          .where('id', '=', 1)
          .where('status', '!=', 'missing')
          .execute(),
      ),
      { movies: [], files: [1] },
    );
    assert.deepEqual(
      await changeOf(() =>
        db.updateTable('media_files').set({ movie_id: 3 }).where('id', 'in', [1]).execute(),
      ),
      { movies: [3], files: [1] },
      'a file moved to another movie names both the file and its new movie',
    );
    const binder = await db
      .insertInto('binders')
      .values({ name: 'A', capacity: 10, created_at: NOW })
      .returning('id')
      .executeTakeFirstOrThrow();
    const copy = await db
      .insertInto('physical_copies')
      .values({
        movie_id: 2,
        edition_id: null,
        binder_id: binder.id,
        slot: '1',
        notes: null,
        created_at: NOW,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      await changeOf(() =>
        db.updateTable('physical_copies').set({ slot: '2' }).where('id', '=', copy.id).execute(),
      ),
      { movies: [2], files: [] },
      'a copy names its movie through movie_id',
    );
    assert.deepEqual(
      await changeOf(() =>
        db.updateTable('binders').set({ capacity: 50 }).where('id', '=', binder.id).execute(),
      ),
      { movies: [], files: [] },
      'a binder capacity is not listed',
    );
    assert.deepEqual(
      await changeOf(() =>
        db.updateTable('binders').set({ name: 'B' }).where('id', '=', binder.id).execute(),
      ),
      { movies: [2], files: [] },
      'a binder name is, on every copy in it',
    );
    assert.deepEqual(
      await changeOf(() => db.deleteFrom('physical_copies').where('id', '=', copy.id).execute()),
      { movies: [2], files: [] },
      'looked up before the row goes',
    );
    assert.deepEqual(
      await changeOf(() =>
        db.updateTable('library_roots').set({ last_scan_at: NOW }).where('id', '=', 1).execute(),
      ),
      { movies: [], files: [] },
    );
    assert.deepEqual(
      await changeOf(() => db.deleteFrom('library_roots').where('id', '=', 1).execute()),
      { movies: [], files: [1] },
      'a root going takes its files',
    );
  });

  it('sees upserts, person renames, transactions, raw SQL and what it cannot narrow', async () => {
    const db = opened.db;
    const person = await db
      .insertInto('persons')
      .values({ tmdb_id: 77, name: 'Ann', profile_path: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('person_movie')
      .values({
        person_id: person.id,
        movie_id: 3,
        role: 'cast',
        character: null,
        job: null,
        department: null,
        sort_order: 0,
      })
      .execute();
    const upsert = (name: string) =>
      db
        .insertInto('persons')
        .values({ tmdb_id: 77, name, profile_path: null })
        .onConflict((oc) => oc.column('tmdb_id').doUpdateSet({ name }))
        .returning('id')
        .execute();
    assert.deepEqual(await changeOf(() => upsert('Ann')), { movies: [], files: [] }, 'same name: nothing');
    assert.deepEqual(await changeOf(() => upsert('Anne')), { movies: [3], files: [] }, 'renamed: her movies');
    assert.deepEqual(
      await changeOf(() =>
        db
          .insertInto('movie_artwork_state')
          .values({
            movie_id: 2,
            poster_state: 'none',
            backdrop_state: 'none',
            fetched_at: null,
            error: null,
          })
          .onConflict((oc) => oc.column('movie_id').doUpdateSet({ poster_state: 'ready' }))
          .execute(),
      ),
      { movies: [2], files: [] },
    );
    assert.deepEqual(
      await changeOf(() =>
        db.transaction().execute(async (trx) => {
          await trx.updateTable('movies').set({ year: 1999 }).where('id', '=', 1).execute();
          await trx.deleteFrom('person_movie').where('movie_id', '=', 3).execute();
        }),
      ),
      { movies: [1, 3], files: [] },
    );
    assert.equal(
      await changeOf(() => db.updateTable('movies').set({ watched: 0 }).execute()),
      'all',
      'no WHERE: every row',
    );
    assert.equal(
      await changeOf(() =>
        db.updateTable('movies').set({ watched: 0 }).where('title', 'like', 'T%').execute(),
      ),
      'all',
      'a WHERE on no key: everything',
    );
    assert.equal(await changeOf(() => sql`update movies set year = 2000`.execute(db)), 'all');
    assert.deepEqual(await changeOf(() => db.selectFrom('movies').selectAll().execute()), {
      movies: [],
      files: [],
    });
    assert.deepEqual(
      await changeOf(() => db.insertInto('settings').values({ key: 'k', value: 'v' }).execute()),
      { movies: [], files: [] },
    );
    assert.equal(seen.length, 0, 'unlisted tables are not reported');
  });

  it("names the person of a watch_state write (only their listings change); else it is everyone's", async () => {
    const db = opened.db;
    const root = await db
      .insertInto('library_roots')
      .values({ path: '/people', name: 'people', collection_id: null, created_at: NOW })
      .returning('id')
      .executeTakeFirstOrThrow();
    const file = await db
      .insertInto('media_files')
      .values({
        movie_id: null,
        library_root_id: root.id,
        relative_path: 'shared.mkv',
        size_bytes: 1,
        mtime_ms: 1,
        fingerprint: null,
        edition_label: null,
        created_at: NOW,
        updated_at: NOW,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const second = await db
      .insertInto('users')
      .values({
        name: 'Ben',
        name_key: 'ben',
        password_hash: null,
        role: 'member',
        max_certification: null,
        allow_unrated: 1,
        pin_hash: null,
        pin_locked_until: null,
        created_at: NOW,
        updated_at: NOW,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const state = (user: number, position: number) => ({
      user_id: user,
      media_file_id: file.id,
      movie_id: null,
      position_seconds: position,
      watched: 0,
      updated_at: NOW,
    });
    const write = async (run: () => Promise<unknown>) => {
      seen = [];
      await run();
      assert.equal(seen.length, 1);
      const [change] = seen;
      return { files: [...(change?.files ?? [])], user: change?.user, all: change?.all === true };
    };
    const cases: [
      string,
      () => Promise<unknown>,
      { files: number[]; user: number | undefined; all: boolean },
    ][] = [
      [
        'an insert of the admin',
        () => db.insertInto('watch_state').values(state(1, 5)).execute(),
        { files: [file.id], user: 1, all: false },
      ],
      [
        "an upsert of another person's",
        () =>
          db
            .insertInto('watch_state')
            .values(state(second.id, 9))
            .onConflict((oc) => oc.columns(['user_id', 'media_file_id']).doUpdateSet({ position_seconds: 9 }))
            .execute(),
        { files: [file.id], user: second.id, all: false },
      ],
      [
        'an update by person and file',
        () =>
          db
            .updateTable('watch_state')
            .set({ position_seconds: 10 })
            .where('user_id', '=', second.id)
            .where('media_file_id', '=', file.id)
            .execute(),
        { files: [file.id], user: second.id, all: false },
      ],
      [
        'an update of the file for everyone',
        () =>
          db.updateTable('watch_state').set({ watched: 1 }).where('media_file_id', '=', file.id).execute(),
        { files: [file.id], user: undefined, all: false },
      ],
      [
        "a delete of one person's",
        () =>
          db
            .deleteFrom('watch_state')
            .where('user_id', '=', 1)
            .where('media_file_id', '=', file.id)
            .execute(),
        { files: [file.id], user: 1, all: false },
      ],
      [
        "moving a row to another person (both people's)",
        () =>
          db
            .updateTable('watch_state')
            .set({ user_id: 1 })
            .where('user_id', '=', second.id)
            .where('media_file_id', '=', file.id)
            .execute(),
        { files: [file.id], user: undefined, all: false },
      ],
    ];
    for (const [name, run, expected] of cases) assert.deepEqual(await write(run), expected, name);
  });

  it("names a loan's movie through its copy (the listing shows a copy's open loan)", async () => {
    const db = opened.db;
    const film = async (title: string) => {
      const { id } = await db
        .insertInto('movies')
        .values(movie(title))
        .returning('id')
        .executeTakeFirstOrThrow();
      const copy = await db
        .insertInto('physical_copies')
        .values({ movie_id: id, edition_id: null, binder_id: null, slot: null, notes: null, created_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { movie: id, copy: copy.id };
    };
    const lent = await film('Lent');
    const other = await film('Other');
    const loan = (copy: number, to: string, returned: string | null) => ({
      physical_copy_id: copy,
      borrower: to,
      lent_at: NOW,
      due: null,
      returned_at: returned,
      created_at: NOW,
    });
    const only = (...movies: number[]) => ({ movies: movies.sort((a, b) => a - b), files: [] });
    assert.deepEqual(
      await changeOf(() =>
        db
          .insertInto('loans')
          .values(loan(lent.copy, 'Sam', null))
          .execute(),
      ),
      only(lent.movie),
      'a lend',
    );
    assert.deepEqual(
      await changeOf(() =>
        db
          .insertInto('loans')
          .values([loan(lent.copy, 'Ann', NOW), loan(other.copy, 'Bo', NOW)])
          .execute(),
      ),
      only(lent.movie, other.movie),
      'an import of loans of two copies',
    );
    assert.deepEqual(
      await changeOf(() =>
        db
          .updateTable('loans')
          .set({ returned_at: NOW })
          .where('physical_copy_id', '=', lent.copy)
          .where(sql<boolean>`returned_at is null`)
          .execute(),
      ),
      only(lent.movie),
      'a return (by copy, as LoanRepository.giveBack)',
    );
    const { id } = await db
      .insertInto('loans')
      .values(loan(lent.copy, 'Cy', null))
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      await changeOf(() => db.updateTable('loans').set({ due: '2026-02-01' }).where('id', '=', id).execute()),
      only(lent.movie),
      'by the loan id: its copy looked up',
    );
    assert.deepEqual(
      await changeOf(() =>
        db.updateTable('loans').set({ physical_copy_id: other.copy }).where('id', '=', id).execute(),
      ),
      only(lent.movie, other.movie),
      'moved to another copy: both movies',
    );
    assert.deepEqual(
      await changeOf(() => db.deleteFrom('loans').where('id', '=', id).execute()),
      only(other.movie),
      'looked up before the row goes',
    );
    assert.equal(
      await changeOf(() =>
        db.updateTable('loans').set({ due: null }).where('borrower', '=', 'Ann').execute(),
      ),
      'all',
      'no key in the WHERE: everything',
    );
    assert.deepEqual(
      await changeOf(() => db.deleteFrom('physical_copies').where('id', '=', lent.copy).execute()),
      only(lent.movie),
      'a copy deleted with its loans (the cascade) is its movie',
    );
    assert.equal(
      await changeOf(() => sql`update loans set due = null`.execute(db)),
      'all',
      'raw SQL on loans',
    );
  });

  it('keeps its external version for its own commits (another connection: library-cache.test.ts)', async () => {
    const observer = ListingWriteObserver.of(opened.db);
    assert.ok(observer);
    const before = observer.externalVersion();
    await opened.db.updateTable('movies').set({ year: 2001 }).where('id', '=', 1).execute();
    assert.equal(observer.externalVersion(), before, 'our own commits do not move it');
  });
});

describe('no write goes around the observer', () => {
  it('leaves the raw SQLite handle and precompiled queries to db/sqlite-database.ts', () => {
    const src = new URL('../../src/', import.meta.url).pathname;
    const files = (readdirSync(src, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(src, f));
    const offenders: string[] = [];
    for (const file of files) {
      const name = relative(src, file);
      // sqlite-database.ts wires the observer; statement-cache.ts is the handle Kysely's driver prepares its
      // queries on, after the plugin has seen them; compiled-select.ts keeps compilations of SELECTs
      // only (and refuses anything else: compiled-select.test.ts).
      if (
        name === join('db', 'sqlite-database.ts') ||
        name === join('db', 'statement-cache.ts') ||
        name === join('db', 'compiled-select.ts')
      ) {
        continue;
      }
      const text = readFileSync(file, 'utf8');
      // A statement on the better-sqlite3 handle, or a CompiledQuery run as is, is not seen by the
      // plugin: the listing would not know what it changed.
      if (/\bsqlite\.(prepare|exec|transaction)\(|CompiledQuery|\.executeQuery\(/.test(text))
        offenders.push(name);
    }
    assert.deepEqual(offenders, []);
  });
});
