// The change feed on the engine under test (db/change-feed.ts): what the caches hear of each committed
// write. On SQLite the statement observers tell as statements run; on PostgreSQL the generated
// statement triggers NOTIFY at commit and `catchUp` waits until every earlier commit was heard. A
// write on a connection of its own stands for another process (SQLite: `externalVersion` moves) or
// another node (PostgreSQL: heard like any write, with its ids).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import type { ListingChange } from '../../src/domain/library-listing/changes.ts';
import { dropTestDatabase, openTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';

const NOW = '2026-01-01T00:00:00.000Z';

/** Every change heard, as sorted id lists (or "all"), plus the people notices. */
interface Heard {
  movies: number[];
  files: number[];
  users: (number | undefined)[];
  all: boolean;
  people: number;
}

describe(`the change feed (${testEngine})`, () => {
  let opened: OpenedDatabase & { url: string };
  let listing: ListingChange[] = [];
  let people = 0;

  before(async () => {
    opened = await openTestDatabase();
    opened.changes.subscribe((change) => listing.push(change));
    opened.changes.subscribePeople(() => (people += 1));
    await opened.db
      .insertInto('library_roots')
      .values({ path: '/films', name: 'films', collection_id: null, created_at: NOW })
      .execute();
  });
  after(() => opened.close());
  beforeEach(async () => {
    await opened.changes.catchUp();
    listing = [];
    people = 0;
  });

  /** What the feed told of `write`, once every commit before the barrier was heard. */
  async function heardOf(write: () => Promise<unknown>): Promise<Heard> {
    await opened.changes.catchUp();
    listing = [];
    people = 0;
    await write();
    await opened.changes.catchUp();
    const movies = new Set<number>();
    const files = new Set<number>();
    for (const c of listing) {
      for (const m of c.movies ?? []) movies.add(m);
      for (const f of c.files ?? []) files.add(f);
    }
    return {
      movies: [...movies].sort((a, b) => a - b),
      files: [...files].sort((a, b) => a - b),
      users: listing.map((c) => c.user),
      all: listing.some((c) => c.all === true),
      people,
    };
  }

  async function newMovie(title: string): Promise<number> {
    const row = await opened.db
      .insertInto('movies')
      .values({ title, sort_title: title, normalized_title: title, created_at: NOW, updated_at: NOW })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function newFile(movieId: number, path: string): Promise<number> {
    const row = await opened.db
      .insertInto('media_files')
      .values({
        movie_id: movieId,
        library_root_id: 1,
        relative_path: path,
        size_bytes: 1,
        mtime_ms: 1,
        fingerprint: null,
        edition_label: null,
        created_at: NOW,
        updated_at: NOW,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  it('a new movie, a changed file and a deleted movie name their items', async () => {
    let movieId = 0;
    const created = await heardOf(async () => (movieId = await newMovie('Alpha')));
    assert.deepEqual(created.movies, [movieId]);
    assert.equal(created.all, false);

    const fileId = await newFile(movieId, 'alpha.mkv');
    const changed = await heardOf(() =>
      opened.db.updateTable('media_files').set({ status: 'missing' }).where('id', '=', fileId).execute(),
    );
    assert.deepEqual(changed.files, [fileId]);
    assert.ok(changed.movies.length === 0 || changed.movies.includes(movieId), 'at most its movie besides');

    const other = await newMovie('Beta');
    const deleted = await heardOf(() => opened.db.deleteFrom('movies').where('id', '=', other).execute());
    assert.deepEqual(deleted.movies, [other]);
  });

  it('a watch state is one person’s change; a renamed person changes the movies they are in', async () => {
    const movieId = await newMovie('Gamma');
    const fileId = await newFile(movieId, 'gamma.mkv');
    const watched = await heardOf(() =>
      opened.db
        .insertInto('watch_state')
        .values({
          user_id: 1,
          media_file_id: fileId,
          movie_id: movieId,
          position_seconds: 10,
          watched: 0,
          updated_at: NOW,
        })
        .execute(),
    );
    assert.deepEqual(watched.files, [fileId]);
    assert.deepEqual(watched.users, [1], "only user 1's view");

    const person = await opened.db
      .insertInto('persons')
      .values({ name: 'Ann Actor', tmdb_id: null, profile_path: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await opened.db
      .insertInto('person_movie')
      .values({
        person_id: person.id,
        movie_id: movieId,
        role: 'cast',
        character: null,
        job: null,
        department: null,
        sort_order: 0,
      })
      .execute();
    const renamed = await heardOf(() =>
      opened.db.updateTable('persons').set({ name: 'Ann Actress' }).where('id', '=', person.id).execute(),
    );
    assert.deepEqual(renamed.movies, [movieId]);
  });

  it("a loan is its copy's movie's change: lent, returned, moved, deleted, gone with its copy", async () => {
    const copyOf = async (movieId: number) =>
      (
        await opened.db
          .insertInto('physical_copies')
          .values({
            movie_id: movieId,
            edition_id: null,
            binder_id: null,
            slot: null,
            notes: null,
            created_at: NOW,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const first = await newMovie('Lent Film');
    const second = await newMovie('Other Film');
    const [copy, otherCopy] = [await copyOf(first), await copyOf(second)];
    const loan = {
      physical_copy_id: copy,
      borrower: 'Sam',
      lent_at: NOW,
      due: null,
      returned_at: null,
      created_at: NOW,
    };
    let loanId = 0;
    const cases: [string, () => Promise<unknown>, number[]][] = [
      [
        'lent',
        async () =>
          (loanId = (
            await opened.db.insertInto('loans').values(loan).returning('id').executeTakeFirstOrThrow()
          ).id),
        [first],
      ],
      [
        'returned',
        () =>
          opened.db
            .updateTable('loans')
            .set({ returned_at: NOW })
            .where('physical_copy_id', '=', copy)
            .execute(),
        [first],
      ],
      [
        'moved to another copy',
        () =>
          opened.db
            .updateTable('loans')
            .set({ physical_copy_id: otherCopy })
            .where('id', '=', loanId)
            .execute(),
        [first, second],
      ],
      ['deleted', () => opened.db.deleteFrom('loans').where('id', '=', loanId).execute(), [second]],
      [
        'lent again, in a transaction with a write elsewhere',
        () =>
          opened.db.transaction().execute(async (trx) => {
            await trx.insertInto('settings').values({ key: 'loan-test', value: '1' }).execute();
            await trx.insertInto('loans').values(loan).execute();
          }),
        [first],
      ],
      [
        'its copy deleted (the loan goes with it)',
        () => opened.db.deleteFrom('physical_copies').where('id', '=', copy).execute(),
        [first],
      ],
    ];
    for (const [name, write, movies] of cases) {
      const heard = await heardOf(write);
      assert.deepEqual(heard.movies, movies, name);
      assert.equal(heard.all, false, name);
    }
  });

  it('who a request is: a new person, a changed role, a revoked session; not a use of a session', async () => {
    const user = await opened.db
      .insertInto('users')
      .values({
        name: 'Lena',
        name_key: 'lena',
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
    assert.ok(
      (
        await heardOf(() =>
          opened.db
            .insertInto('users')
            .values({
              name: 'Kid',
              name_key: 'kid',
              password_hash: null,
              role: 'child',
              max_certification: 'G',
              allow_unrated: 0,
              pin_hash: null,
              pin_locked_until: null,
              created_at: NOW,
              updated_at: NOW,
            })
            .execute(),
        )
      ).people > 0,
      'a new person',
    );
    assert.ok(
      (
        await heardOf(() =>
          opened.db.updateTable('users').set({ role: 'admin' }).where('id', '=', user.id).execute(),
        )
      ).people > 0,
      'a changed role',
    );
    const session = await opened.db
      .insertInto('sessions')
      .values({
        user_id: user.id,
        secret_hash: 'h1',
        kind: 'browser',
        created_at: NOW,
        last_seen_at: NOW,
        expires_at: null,
        revoked_at: null,
        address: null,
        user_agent: null,
        app_name: null,
        device_name: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.equal(
      (
        await heardOf(() =>
          opened.db
            .updateTable('sessions')
            .set({ last_seen_at: '2026-01-02T00:00:00.000Z' })
            .where('id', '=', session.id)
            .execute(),
        )
      ).people,
      0,
      'a use only',
    );
    assert.ok(
      (
        await heardOf(() =>
          opened.db.updateTable('sessions').set({ revoked_at: NOW }).where('id', '=', session.id).execute(),
        )
      ).people > 0,
      'a revoked session',
    );
  });

  it('a write on a connection of its own (another process, another node) is not missed', async () => {
    // Two connections to one database kept on disk (SQLite's in-memory one is private to its handle).
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-change-feed-'));
    const url = testDatabaseUrl(dataDir);
    const here = await openDatabase(url);
    const elsewhere = await openDatabase(url);
    try {
      const heard: ListingChange[] = [];
      here.changes.subscribe((change) => heard.push(change));
      const { id } = await elsewhere.db
        .insertInto('movies')
        .values({
          title: 'Delta',
          sort_title: 'Delta',
          normalized_title: 'delta',
          created_at: NOW,
          updated_at: NOW,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await here.changes.catchUp();
      const version = here.changes.externalVersion();
      await elsewhere.db
        .updateTable('movies')
        .set({ overview: 'from elsewhere' })
        .where('id', '=', id)
        .execute();
      await here.changes.catchUp();
      if (testEngine === 'postgres') {
        // Every node hears every commit, with its ids.
        assert.deepEqual(
          heard.map((c) => [...(c.movies ?? [])]),
          [[id], [id]],
        );
      } else {
        // SQLite hears another connection's commit as "anything may have changed".
        assert.notEqual(here.changes.externalVersion(), version, 'PRAGMA data_version moved');
      }
    } finally {
      await elsewhere.close();
      await here.close();
      dropTestDatabase(url);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
