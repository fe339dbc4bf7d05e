import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenedDatabase } from '../../../src/db/database.ts';
import { openTestDatabase } from '../../helpers/test-database.ts';
import { LibraryRepository } from '../../../src/repositories/library.repository.ts';
import { compareSqliteText } from '../../../src/domain/library-listing/sqlite-order.ts';

const NOW = '2026-01-01T00:00:00.000Z';

describe('LibraryRepository.file', () => {
  let opened: OpenedDatabase;
  before(async () => {
    opened = await openTestDatabase();
    const db = opened.db;
    await db
      .insertInto('library_roots')
      .values({ path: '/films', name: 'films', collection_id: null, created_at: NOW })
      .execute();
    for (const [name, status] of [
      ['a.mkv', 'present'],
      ['b.mkv', 'missing'],
      ['c.mkv', 'present'],
    ] as const) {
      await db
        .insertInto('media_files')
        .values({
          movie_id: null,
          library_root_id: 1,
          relative_path: name,
          size_bytes: name.length,
          mtime_ms: 1,
          fingerprint: `fp-${name}`,
          edition_label: null,
          status,
          created_at: NOW,
          updated_at: NOW,
        })
        .execute();
    }
    await db
      .insertInto('subtitle_sidecars')
      .values({
        media_file_id: 3,
        relative_path: 'c.en.srt',
        size_bytes: 10,
        mtime_ms: 2,
        format: 'srt',
        kind: 'text',
        language: 'eng',
        title: null,
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    // Inserted after c.en.srt, listed before it: the array is in relative_path order.
    await db
      .insertInto('subtitle_sidecars')
      .values({
        media_file_id: 3,
        relative_path: 'c.de.forced.ass',
        size_bytes: 2_500_000_000,
        mtime_ms: 1_767_225_600_123,
        format: 'ass',
        kind: 'text',
        language: 'ger',
        title: 'Forced',
        forced: 1,
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    await db
      .insertInto('watch_state')
      .values({
        user_id: 1,
        media_file_id: 2,
        movie_id: null,
        position_seconds: 42,
        watched: 0,
        updated_at: NOW,
      })
      .execute();
  });
  after(() => opened.close());

  it('answers each id with the same row as the built query, however often it is asked (compiled once)', async () => {
    const repo = new LibraryRepository(opened.db);
    const built = await repo.filesById([1, 2, 3], 1);
    assert.equal(built.length, 3);
    for (const round of [1, 2]) {
      for (const id of [3, 1, 2]) {
        assert.deepEqual(await repo.file(id, 1), built[id - 1], `file ${id}, round ${round}`);
      }
    }
    assert.equal((await repo.file(2, 1))?.position_seconds, 42, 'its watch state (user 1)');
    assert.equal((await repo.file(2, 2))?.position_seconds, null, "another person's: none");
    assert.equal((await repo.file(2))?.position_seconds, null, 'no person: no state');
    assert.match((await repo.file(3))?.sidecars_json ?? '', /c\.en\.srt/, 'its sidecars');
    assert.equal(await repo.file(99), undefined, 'an unknown id: none');
    assert.equal((await repo.file(1))?.sidecars_json, '[]', 'no sidecar: an empty array');
    assert.equal(typeof (await repo.file(3))?.sidecars_json, 'string', 'JSON text on both engines');
    assert.deepEqual(
      JSON.parse((await repo.file(3))?.sidecars_json ?? ''),
      [
        {
          relative_path: 'c.de.forced.ass',
          size_bytes: 2_500_000_000,
          mtime_ms: 1_767_225_600_123,
          format: 'ass',
          kind: 'text',
          language: 'ger',
          title: 'Forced',
          forced: 1,
          default: 0,
          sdh: 0,
        },
        {
          relative_path: 'c.en.srt',
          size_bytes: 10,
          mtime_ms: 2,
          format: 'srt',
          kind: 'text',
          language: 'eng',
          title: null,
          forced: 0,
          default: 0,
          sdh: 0,
        },
      ],
      'every field, numbers as numbers, in relative_path order',
    );
    assert.deepEqual(
      await new LibraryRepository(opened.db).file(1, 1),
      built[0],
      'another repository, same database',
    );
  });
});

describe('LibraryRepository.movieOrder', () => {
  it("is the order the listing's JS mirror places changed movies in (sort_title as UTF-8 bytes, then id), on either engine", async () => {
    const opened = await openTestDatabase();
    try {
      // Case, accents, the BMP's end, astral characters, a private-use character, spaces, empties,
      // and a duplicate (ties by id): where a locale's collation and byte order part.
      const titles = [
        'b',
        'a',
        'B',
        'é',
        'e',
        'z',
        '\uffff',
        '😀',
        '\ue000x',
        'ab',
        'a b',
        '',
        'Ä',
        '𝒜',
        'a',
      ];
      for (const title of titles) {
        await opened.db
          .insertInto('movies')
          .values({
            title: `t${title}`,
            sort_title: title,
            normalized_title: title,
            created_at: NOW,
            updated_at: NOW,
          })
          .execute();
      }
      const expected = titles
        .map((title, i) => ({ title, id: i + 1 }))
        .sort((x, y) => compareSqliteText(x.title, y.title) || x.id - y.id)
        .map((m) => m.id);
      assert.deepEqual(await new LibraryRepository(opened.db).movieOrder(), expected);
    } finally {
      await opened.close();
    }
  });
});

describe('LibraryRepository.presentationRows', () => {
  it('answers what the five reads answer, in their orders, for every scope (PostgreSQL: in one statement)', async () => {
    const opened = await openTestDatabase();
    const db = opened.db;
    try {
      const movie = async (title: string, sortTitle: string) =>
        (
          await db
            .insertInto('movies')
            .values({
              title,
              sort_title: sortTitle,
              normalized_title: sortTitle,
              year: title.length,
              overview: `About “${title}”\n\t"quoted"`,
              created_at: NOW,
              updated_at: NOW,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      // Ids in another order than the sort titles (astral and accented among them).
      const ids = [
        await movie('Zebra', 'zebra'),
        await movie('𝒜lpha', '𝒜lpha'),
        await movie('Émile', 'émile'),
      ];
      const [zebra = 0, alpha = 0, emile = 0] = ids;
      const binder = await db
        .insertInto('binders')
        .values({ name: 'Shelf "A"', capacity: 10, created_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const [movieId, format, slot] of [
        [zebra, 'DVD', '2'],
        [zebra, 'Blu-ray', null],
        [alpha, null, '1'],
      ] as const) {
        const edition = await db
          .insertInto('disc_editions')
          .values({ movie_id: movieId, label: null, format, barcode: null, created_at: NOW })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('physical_copies')
          .values({
            movie_id: movieId,
            edition_id: edition.id,
            binder_id: slot === null ? null : binder.id,
            slot,
            notes: null,
            created_at: NOW,
          })
          .execute();
      }
      for (const [name, movieId, role, job, order] of [
        ['Second Billed', zebra, 'cast', null, 1],
        ['First Billed', zebra, 'cast', null, 0],
        ['The Director', zebra, 'crew', 'Director', 0],
        ['A Writer', zebra, 'crew', 'Writer', 0],
        ['Léa Ünïcode', emile, 'cast', null, 0],
      ] as const) {
        const person = await db
          .insertInto('persons')
          .values({ name })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('person_movie')
          .values({ person_id: person.id, movie_id: movieId, role, job, sort_order: order })
          .execute();
      }
      await db
        .insertInto('movie_artwork_state')
        .values({
          movie_id: alpha,
          poster_state: 'ready',
          poster_source: 'tmdb',
          poster_path: 'p.jpg',
          backdrop_state: 'none',
          backdrop_source: null,
          backdrop_path: null,
          fetched_at: NOW,
          error: null,
        })
        .execute();
      await db
        .insertInto('library_roots')
        .values({ path: '/films', name: 'films', collection_id: null, created_at: NOW })
        .execute();
      for (const [name, movieId] of [
        ['z2.mkv', zebra],
        ['z1.mkv', zebra],
        ['loose.mkv', null],
        ['e.mkv', emile],
      ] as const) {
        const file = await db
          .insertInto('media_files')
          .values({
            movie_id: movieId,
            library_root_id: 1,
            relative_path: name,
            size_bytes: 5_000_000_000 + name.length,
            mtime_ms: 1,
            fingerprint: `fp-${name}`,
            edition_label: null,
            status: 'present',
            capabilities_json: name === 'e.mkv' ? '{"video":{"codec":"h264"}}' : null,
            created_at: NOW,
            updated_at: NOW,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        if (name === 'z1.mkv') {
          await db
            .insertInto('subtitle_sidecars')
            .values({
              media_file_id: file.id,
              relative_path: 'z1.en.srt',
              size_bytes: 10,
              mtime_ms: 2,
              format: 'srt',
              kind: 'text',
              language: 'eng',
              title: null,
              created_at: NOW,
              updated_at: NOW,
            })
            .execute();
          await db
            .insertInto('watch_state')
            .values({
              user_id: 1,
              media_file_id: file.id,
              movie_id: zebra,
              position_seconds: 42,
              watched: 1,
              updated_at: NOW,
            })
            .execute();
        }
      }
      const repo = new LibraryRepository(db);
      // More than PREPARED_SCOPE ids (PostgreSQL: not the prepared statement), most of them absent.
      const many = [...ids, ...Array.from({ length: 120 }, (_, i) => 1_000_000 + i)];
      // Each scope eight times: a prepared statement (PostgreSQL, a few ids) runs its first five with
      // custom plans and may use its generic plan after: both must answer the same.
      const scopes = [undefined, zebra, [emile, zebra, alpha], [alpha], [], many];
      for (const scope of Array.from({ length: 8 }, () => scopes).flat()) {
        for (const user of [1, 2]) {
          const apart = {
            movies: await repo.movies(scope),
            copies: await repo.copies(scope),
            files: await repo.files(scope, user),
            credits: await repo.creditNames(scope),
            artwork: await repo.artwork(scope),
          };
          const together = await repo.presentationRows(scope, user);
          // The same rows; artwork and credits of equal keys in any order (neither query orders them fully).
          const byJson = <T>(rows: T[]) => rows.map((r) => JSON.stringify(r)).sort();
          assert.deepEqual(
            { ...together, artwork: byJson(together.artwork) },
            { ...apart, artwork: byJson(apart.artwork) },
            `scope ${JSON.stringify(scope)}, user ${user}`,
          );
        }
      }
      const all = await repo.presentationRows(undefined, 1);
      assert.equal(all.movies.length, 3);
      assert.equal(all.files.length, 4, 'the unmatched file too');
      assert.equal(all.credits.length, 4, 'cast and directors only');
    } finally {
      await opened.close();
    }
  });
});
