// Search through the index (migration 0005: FTS5 on SQLite, a tsvector on PostgreSQL): GET /api/movies?q= and the /library page's search.
// Credits arrive the ways they do in production: TMDb enrichment (a fake TMDb), a JSON import, and
// rows written straight into the tables (the triggers keep the index whoever writes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { ImportResult, MovieDetail, MovieList } from '@reelshelf/contract';
import { startFakeProviders, type FakeProviders } from '../fakes/index.ts';
import { openDatabase, sqliteHandleOf } from '../../src/db/database.ts';
import { searchTerms } from '../../src/domain/search-query.ts';
import { MovieRepository } from '../../src/repositories/movie.repository.ts';
import { testEngine } from '../helpers/test-database.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const HTML = { accept: 'text/html' };

describe('search over HTTP', () => {
  let fakes: FakeProviders;
  let t: TestServer;
  const ids: Record<string, number> = {};

  async function create(key: string, body: Record<string, unknown>): Promise<number> {
    const res = await t.api('/api/movies', jsonBody('POST', body));
    assert.equal(res.status, 201);
    const id = ((await res.json()) as MovieDetail).id;
    ids[key] = id;
    return id;
  }

  async function search(q: string, extra = ''): Promise<MovieList> {
    const res = await t.api(`/api/movies?q=${encodeURIComponent(q)}${extra}`);
    assert.equal(res.status, 200, `q=${q}: ${res.status}`);
    return (await res.json()) as MovieList;
  }

  async function titles(q: string): Promise<string[]> {
    return (await search(q)).items.map((m) => m.title);
  }

  async function addCast(movieId: number, name: string): Promise<number> {
    const db = t.server.database.db;
    const person = await db
      .insertInto('persons')
      .values({ tmdb_id: null, name, profile_path: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('person_movie')
      .values({ person_id: person.id, movie_id: movieId, role: 'cast', sort_order: 9 })
      .execute();
    return person.id;
  }

  async function page(path: string): Promise<string> {
    const res = await t.api(path, { headers: HTML });
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    return res.text();
  }

  function cards(body: string): string[] {
    return [...body.matchAll(/<h3 class="card-title" id="card-title-\d+">([^<]*)<\/h3>/g)].map(
      (m) => m[1] ?? '',
    );
  }

  before(async () => {
    fakes = await startFakeProviders();
    t = await startTestServer(fakes.env);
    await create('amelie', {
      title: 'Amélie',
      original_title: "Le Fabuleux Destin d'Amélie Poulain",
      year: 2001,
      physical_copies: [{ binder: 'A', slot: '1', format: 'DVD' }],
    });
    // Enrichment writes Inception's cast and crew from (fake) TMDb.
    const inception = await create('inception', { title: 'Inception', year: 2010, tmdb_id: 27205 });
    assert.equal(await t.server.services.enrichment.enrich(inception), 'enriched');
    // An import writes Léon's people.
    const doc = {
      format_version: 1,
      movies: [
        { title: 'Léon', year: 1994, directors: ['Luc Besson'], cast: ['Jean Reno', 'Natalie Portman'] },
      ],
    };
    const imported = await t.api('/api/import', jsonBody('POST', doc));
    assert.equal(imported.status, 200);
    assert.equal(((await imported.json()) as ImportResult).created.movies, 1);
    ids.leon = (await search('leon')).items.find((m) => m.title === 'Léon')?.id ?? 0;
    await create('hardy', {
      title: 'The Hardy Boys',
      year: 1977,
      physical_copies: [{ binder: 'B', slot: '1', format: 'Blu-ray' }],
    });
    await create('acdc', { title: 'AC/DC: Let There Be Rock', year: 1980 });
    // A title stored decomposed, as a macOS file name gives it.
    await create('pokemon', { title: 'Poke\u0301mon: The First Movie', year: 1998 });
    for (let i = 0; i < 65; i++) {
      await create(`star${i}`, { title: `Star Voyage ${String(i).padStart(2, '0')}`, year: 1950 + i });
    }
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  it('accents and case are folded both ways', async () => {
    assert.deepEqual(await titles('amelie'), ['Amélie']);
    assert.deepEqual(await titles('AMÉLIE'), ['Amélie']);
    assert.deepEqual(await titles('Ame\u0301lie'), ['Amélie'], 'decomposed input');
    assert.equal((await titles('léon'))[0], 'Léon');
    assert.equal((await titles('leon'))[0], 'Léon');
    assert.deepEqual(await titles('pokemon'), ['Poke\u0301mon: The First Movie'], 'decomposed title');
    assert.deepEqual(await titles('pokémon'), ['Poke\u0301mon: The First Movie']);
  });

  it('every word is a prefix; the original title is searched too', async () => {
    assert.deepEqual(await titles('inc'), ['Inception']);
    assert.deepEqual(await titles('amel*'), ['Amélie']);
    assert.deepEqual(await titles('fabul'), ['Amélie'], 'original title');
    assert.deepEqual(await titles('destin poulain'), ['Amélie']);
    assert.equal((await search('star voy')).total, 65);
    assert.equal((await search('star 07')).total, 1);
  });

  it('finds cast and directors, however they were written', async () => {
    assert.deepEqual(await titles('dicaprio'), ['Inception'], 'enrichment: cast');
    assert.deepEqual(await titles('leonardo dicaprio'), ['Inception']);
    assert.deepEqual(await titles('Gordon-Levitt'), ['Inception']);
    assert.deepEqual(await titles('nolan'), ['Inception'], 'enrichment: director');
    assert.deepEqual(await titles('zimmer'), [], 'other crew is not indexed');
    assert.deepEqual(await titles('besson'), ['Léon'], 'import: director');
    assert.deepEqual(await titles('portman'), ['Léon'], 'import: cast');
    assert.deepEqual(await titles('inception dicaprio'), ['Inception'], 'title and cast words together');
  });

  it('ranks a title match before a cast-only match', async () => {
    assert.deepEqual(await titles('leon'), ['Léon', 'Inception'], 'Léon (title) before Leonardo (cast)');
    assert.deepEqual(await titles('hardy'), ['The Hardy Boys', 'Inception'], 'title before Tom Hardy');
  });

  it('operators and punctuation a person types search as text and never error', async () => {
    assert.deepEqual(await titles('AC/DC'), ['AC/DC: Let There Be Rock']);
    assert.deepEqual(await titles('"AC/DC'), ['AC/DC: Let There Be Rock']);
    assert.deepEqual(await titles('ac dc rock'), ['AC/DC: Let There Be Rock']);
    assert.deepEqual(await titles('-dicaprio'), ['Inception'], 'a minus is not NOT');
    assert.deepEqual(await titles('NOT inception'), [], '"not" is a word to find');
    assert.deepEqual(await titles('inception OR amelie'), [], '"or" is a word to find');
    assert.deepEqual(await titles('title:amelie'), [], 'no column filter');
    const all = (await search('')).total;
    assert.equal(all, 71);
    for (const q of [
      '"',
      '-',
      '*',
      ':',
      '^',
      '()',
      '"*"',
      '- : * " ( ) ^ + /',
      'NEAR(',
      'a NEAR b',
      'x*y',
      "'; --",
    ]) {
      const res = await t.api(`/api/movies?q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200, q);
      const body = (await res.json()) as MovieList;
      if (!/[a-z]/i.test(q)) assert.equal(body.total, all, `${q}: only punctuation lists every movie`);
    }
  });

  it('pages search results; limit and offset are validated', async () => {
    const first = await search('star', '&limit=10');
    assert.equal(first.total, 65);
    assert.equal(first.items.length, 10);
    const rest = await search('star', '&limit=10&offset=60');
    assert.equal(rest.items.length, 5);
    const seen = new Set<number>();
    for (let offset = 0; offset < 65; offset += 20) {
      for (const m of (await search('star', `&limit=20&offset=${offset}`)).items) seen.add(m.id);
    }
    assert.equal(seen.size, 65, 'pages neither repeat nor skip');
    assert.equal((await search('star', '&offset=1000')).items.length, 0);
    for (const bad of ['limit=0', 'limit=501', 'offset=-1', 'limit=ten', `q=${'x'.repeat(201)}`]) {
      assert.equal((await t.api(`/api/movies?${bad}`)).status, 400, bad);
    }
  });

  it('follows edits: retitle, rename of a person, a credit removed, a delete', async () => {
    const id = await create('temp', { title: 'Zyzzyva Nights', year: 2020 });
    assert.deepEqual(await titles('zyzzyva'), ['Zyzzyva Nights']);
    assert.equal(
      (await t.api(`/api/movies/${id}`, jsonBody('PATCH', { title: 'Quokka Mornings' }))).status,
      200,
    );
    assert.deepEqual(await titles('zyzzyva'), []);
    assert.deepEqual(await titles('quokka'), ['Quokka Mornings']);
    assert.equal(
      (await t.api(`/api/movies/${id}`, jsonBody('PATCH', { original_title: 'Wombat' }))).status,
      200,
    );
    assert.deepEqual(await titles('wombat'), ['Quokka Mornings']);

    const person = await addCast(id, 'Xanthippe Quill');
    assert.deepEqual(await titles('xanthippe'), ['Quokka Mornings']);
    const db = t.server.database.db;
    await db.updateTable('persons').set({ name: 'Yolanda Quill' }).where('id', '=', person).execute();
    assert.deepEqual(await titles('xanthippe'), [], 'the old name is gone');
    assert.deepEqual(await titles('yolanda'), ['Quokka Mornings'], 'the new name is found');
    await db.deleteFrom('person_movie').where('person_id', '=', person).execute();
    assert.deepEqual(await titles('yolanda'), [], 'a removed credit');

    await addCast(id, 'Ursula Quill');
    assert.equal((await t.api(`/api/movies/${id}`, { method: 'DELETE' })).status, 204);
    assert.deepEqual(await titles('quokka'), []);
    assert.deepEqual(await titles('ursula'), []);
  });

  it(
    'follows writes from another process, and searches on when that one holds the write lock',
    { skip: testEngine !== 'sqlite' && 'SQLite only (PostgreSQL: the next case)' },
    async () => {
      const other = new BetterSqlite3(t.config.databaseUrl.replace(/^sqlite:/, ''));
      const server = sqliteHandleOf(t.server.database);
      const timeout = server.pragma('busy_timeout', { simple: true }) as number;
      try {
        other.pragma('busy_timeout = 5000');
        const insert = other.prepare(
          "INSERT INTO movies (title, sort_title, normalized_title, created_at, updated_at) VALUES (?, ?, ?, 'x', 'x')",
        );
        insert.run('Gnu Tidings', 'gnu tidings', 'gnu tidings');
        assert.deepEqual(await titles('gnu'), ['Gnu Tidings'], 'a write by another connection');
        insert.run('Gnu Returns', 'gnu returns', 'gnu returns');
        // The other process holds the write lock: the search goes on with the index as it was.
        server.pragma('busy_timeout = 50');
        other.exec('BEGIN IMMEDIATE');
        assert.deepEqual(await titles('gnu'), ['Gnu Tidings']);
        other.exec('COMMIT');
        server.pragma(`busy_timeout = ${timeout}`);
        assert.deepEqual(await titles('gnu'), ['Gnu Returns', 'Gnu Tidings']);
        other.prepare('DELETE FROM movies WHERE title LIKE ?').run('Gnu %');
        assert.deepEqual(await titles('gnu'), []);
        assert.equal(
          other.prepare('SELECT count(*) FROM movie_search_pending').pluck().get(),
          0,
          'every mark applied',
        );
      } finally {
        server.pragma(`busy_timeout = ${timeout}`);
        other.close();
      }
    },
  );

  it(
    'follows writes from another connection at once, also while another node applies them',
    { skip: testEngine !== 'postgres' && 'PostgreSQL only (SQLite: the case above)' },
    async () => {
      const other = new pg.Client({ connectionString: t.config.databaseUrl });
      await other.connect();
      // A second node on the same database: its own pool, its own searches.
      const node = await openDatabase(t.config.databaseUrl, { pool: 2 });
      const nodeMovies = new MovieRepository(node.db);
      const nodeTitles = async (q: string) => {
        await nodeMovies.syncSearchIndex();
        const { rows } = await nodeMovies.search(searchTerms(q), 50, 0, null);
        return rows.map((m) => m.title);
      };
      const insert = async (title: string): Promise<number> => {
        const { rows } = await other.query<{ id: number }>(
          "INSERT INTO movies (title, sort_title, normalized_title, created_at, updated_at) VALUES ($1, $2, $2, 'x', 'x') RETURNING id",
          [title, title.toLowerCase()],
        );
        return rows[0]?.id ?? 0;
      };
      try {
        const gnu = await insert('Gnu Tidings');
        assert.deepEqual(await titles('gnu'), ['Gnu Tidings'], 'a write by another connection');
        const { rows } = await other.query<{ id: number }>(
          "INSERT INTO persons (name) VALUES ('Wilma Wildebeest') RETURNING id",
        );
        await other.query(
          "INSERT INTO person_movie (person_id, movie_id, role, sort_order) VALUES ($1, $2, 'cast', 0)",
          [rows[0]?.id, gnu],
        );
        assert.deepEqual(await titles('wildebeest'), ['Gnu Tidings'], 'a credit');
        await other.query("UPDATE persons SET name = 'Wanda Wildcat' WHERE id = $1", [rows[0]?.id]);
        assert.deepEqual(await titles('wildebeest'), [], 'a rename: the old name');
        assert.deepEqual(await titles('wildcat'), ['Gnu Tidings'], 'a rename: the new name');

        // Uncommitted, it is not found; committed, at once.
        await other.query('BEGIN');
        await insert('Gnu Returns');
        assert.deepEqual(await titles('gnu'), ['Gnu Tidings']);
        await other.query('COMMIT');
        assert.deepEqual(await titles('gnu'), ['Gnu Returns', 'Gnu Tidings']);

        // Two nodes searching at once after each write both see it, whichever applies the marks.
        for (let i = 0; i < 10; i++) {
          await insert(`Gnu Sequel ${i}`);
          const [here, there] = await Promise.all([titles('gnu sequel'), nodeTitles('gnu sequel')]);
          assert.equal(here.length, i + 1, `this node, write ${i}`);
          assert.equal(there.length, i + 1, `the other node, write ${i}`);
        }

        await other.query("DELETE FROM movies WHERE title LIKE 'Gnu %'");
        assert.deepEqual(await titles('gnu'), []);
        assert.deepEqual(await nodeTitles('wildcat'), []);
        const pending = await other.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM movie_search_pending',
        );
        assert.equal(pending.rows[0]?.n, 0, 'every mark applied');
        const rowsLeft = await other.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM movie_search s WHERE NOT EXISTS (SELECT 1 FROM movies m WHERE m.id = s.movie_id)',
        );
        assert.equal(rowsLeft.rows[0]?.n, 0, 'the rows of deleted movies went');
      } finally {
        await other.end();
        await node.close();
      }
    },
  );

  it(
    'builds the index rows of a transaction when it commits, once, so no search has marks to apply',
    { skip: testEngine !== 'postgres' && 'PostgreSQL only (SQLite: the first search rebuilds)' },
    async () => {
      const other = new pg.Client({ connectionString: t.config.databaseUrl });
      await other.connect();
      const count = async (query: string, params: unknown[] = []) =>
        (await other.query<{ n: number }>(query, params)).rows[0]?.n;
      const pending = () => count('SELECT count(*)::int AS n FROM movie_search_pending');
      const found = (word: string) =>
        count(
          "SELECT count(*)::int AS n FROM movie_search WHERE document @@ to_tsquery('reelshelf_search', $1)",
          [`${word}:*`],
        );
      try {
        // A movie, two people and their credits in one transaction, in several statements.
        await other.query('BEGIN');
        const { rows } = await other.query<{ id: number }>(
          "INSERT INTO movies (title, sort_title, normalized_title, created_at, updated_at) VALUES ('Okapi Nights', 'okapi nights', 'okapi nights', 'x', 'x') RETURNING id",
        );
        const movie = rows[0]?.id;
        const people = await other.query<{ id: number }>(
          "INSERT INTO persons (name) VALUES ('Otto Okapi-Smith'), ('Olga Ocelot') RETURNING id",
        );
        const [cast, director] = people.rows.map((r) => r.id);
        await other.query(
          "INSERT INTO person_movie (person_id, movie_id, role, sort_order) VALUES ($1, $2, 'cast', 0)",
          [cast, movie],
        );
        await other.query(
          "INSERT INTO person_movie (person_id, movie_id, role, job, sort_order) VALUES ($1, $2, 'crew', 'Director', 0)",
          [director, movie],
        );
        await other.query("UPDATE movies SET original_title = 'Nuits d''okapi' WHERE id = $1", [movie]);
        assert.equal(await pending(), 1, 'marked once, inside the transaction');
        await other.query('COMMIT');
        assert.equal(await pending(), 0, 'no mark left once committed');
        for (const word of ['okapi', 'nuits', 'smith', 'ocelot']) assert.equal(await found(word), 1, word);
        const row = await other.query<{ same: boolean }>(
          `SELECT (s.token_count, s.lexemes, s.lexeme_freqs, strip(s.document))
             = (r.token_count, r.lexemes, r.lexeme_freqs, strip(r.document)) AS same
           FROM movie_search s, reelshelf_search_rows(ARRAY[$1::int]) r WHERE s.movie_id = $1`,
          [movie],
        );
        assert.equal(row.rows[0]?.same, true, 'the row a rebuild makes');
        // A rename, in its own statement: built at its commit too.
        await other.query("UPDATE persons SET name = 'Olga Oryx' WHERE id = $1", [director]);
        assert.equal(await pending(), 0);
        assert.equal(await found('ocelot'), 0);
        assert.equal(await found('oryx'), 1);
        assert.deepEqual(await titles('oryx'), ['Okapi Nights']);
        await other.query('DELETE FROM movies WHERE id = $1', [movie]);
        assert.equal(await found('okapi'), 0, 'a deleted movie’s row goes at its commit');
        assert.equal(await pending(), 0);
      } finally {
        await other.end();
      }
    },
  );

  it('re-enriching a movie replaces its people in the index', async () => {
    const inception = ids.inception ?? 0;
    await t.server.database.db
      .updateTable('persons')
      .set({ name: 'Someone Else' })
      .where('name', '=', 'Tom Hardy')
      .execute();
    assert.deepEqual(await titles('someone'), ['Inception']);
    // TMDb still says Tom Hardy: the upsert renames the person back.
    assert.equal(await t.server.services.enrichment.enrich(inception), 'enriched');
    assert.deepEqual(await titles('someone'), []);
    assert.deepEqual(await titles('hardy'), ['The Hardy Boys', 'Inception']);
  });

  it('the /library page searches through the index, one page at a time', async () => {
    const library = t.server.services.library;
    const getLibrary = library.getLibrary.bind(library);
    let builds = 0;
    library.getLibrary = async (viewer, device) => {
      builds++;
      return getLibrary(viewer, device);
    };
    try {
      const dicaprio = await page('/library?q=dicaprio');
      assert.deepEqual(cards(dicaprio), ['Inception']);
      assert.match(dicaprio, /Showing 1–1 of 1 movies \(\d+ in the library\)\./);
      assert.match(dicaprio, /<option value="" selected>Best match<\/option>/);

      assert.deepEqual(cards(await page('/library?q=leon')), ['Léon', 'Inception'], 'best match first');
      assert.deepEqual(cards(await page('/library?q=leon&sort=title')), ['Inception', 'Léon']);
      assert.deepEqual(cards(await page('/library?q=leon&sort=year')), ['Inception', 'Léon']);
      assert.deepEqual(cards(await page('/library?q=AC%2FDC')), ['AC/DC: Let There Be Rock']);
      assert.deepEqual(cards(await page('/library?q=a%20NOT%20%22')), [], 'operators are words');

      const first = await page('/library?q=star');
      assert.equal(cards(first).length, 60);
      assert.match(first, /Page 1 of 2/);
      assert.match(first, /href="\/library\?q=star&amp;page=2" rel="next"/);
      assert.deepEqual(cards(await page('/library?q=star&page=2')).length, 5);
      assert.deepEqual(cards(await page('/library?q=star&page=99')).length, 5, 'past the end: the last page');
      assert.deepEqual(cards(await page('/library?q=star%2003&sort=recent')), ['Star Voyage 03']);

      // Format and binder narrow in the same query; the facets still list the whole library.
      const hardy = await page('/library?q=hardy&format=Blu-ray');
      assert.deepEqual(cards(hardy), ['The Hardy Boys']);
      assert.match(hardy, /<option value="DVD"\s*>DVD<\/option>/);
      assert.deepEqual(cards(await page('/library?q=hardy&binder=A')), []);
      assert.deepEqual(cards(await page('/library?q=amelie&binder=A')), ['Amélie']);
      // A status depends on each match's playback: every match is presented, then narrowed.
      assert.deepEqual(cards(await page('/library?q=hardy&badge=on_disc')), ['The Hardy Boys']);
      assert.deepEqual(cards(await page('/library?q=leon&badge=missing')), ['Léon', 'Inception']);
      assert.deepEqual(cards(await page('/library?q=star&badge=missing&page=2')).length, 5);
      assert.equal(builds, 0, 'no full listing was built for a search');

      // Only punctuation: the plain listing.
      const plain = await page('/library?q=%22%2A');
      assert.match(plain, /Showing 1–60 of \d+ movies\./);
      assert.equal(builds, 1);
    } finally {
      library.getLibrary = getLibrary;
    }
  });

  it("the page's filters are read once per library generation and follow every write", async () => {
    const facets = MovieRepository.prototype.listingFacets;
    let reads = 0;
    MovieRepository.prototype.listingFacets = function (this: MovieRepository, visible) {
      reads++;
      return facets.call(this, visible);
    };
    const db = t.server.database.db;
    try {
      const inLibrary = (html: string) => Number(/\((\d+) in the library\)/.exec(html)?.[1]);
      const before = await page('/library?q=amelie');
      const movies = inLibrary(before);
      assert.doesNotMatch(before, /<option value="Zebra shelf"/);
      assert.doesNotMatch(before, /<option value="LaserDisc"/);
      const readsBefore = reads;
      await page('/library?q=hardy');
      await page('/library?q=leon&sort=title');
      assert.equal(reads, readsBefore, 'unchanged library: not read again');

      // A binder, an edition of a new format and a copy in it, written as any writer would.
      const movie = await db
        .selectFrom('movies')
        .select('id')
        .where('title', '=', 'Amélie')
        .executeTakeFirstOrThrow();
      const binder = await db
        .insertInto('binders')
        .values({ name: 'Zebra shelf', capacity: 10, created_at: 'x' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const edition = await db
        .insertInto('disc_editions')
        .values({ movie_id: movie.id, label: null, format: 'LaserDisc', barcode: null, created_at: 'x' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('physical_copies')
        .values({
          movie_id: movie.id,
          edition_id: edition.id,
          binder_id: binder.id,
          slot: '1',
          notes: null,
          created_at: 'x',
        })
        .execute();
      const after = await page('/library?q=amelie');
      assert.match(after, /<option value="Zebra shelf"\s*>/);
      assert.match(after, /<option value="LaserDisc"\s*>/);
      assert.equal(reads, readsBefore + 1);

      const created = await db
        .insertInto('movies')
        .values({
          title: 'Zebra Days',
          sort_title: 'zebra days',
          normalized_title: 'zebra days',
          created_at: 'x',
          updated_at: 'x',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.equal(inLibrary(await page('/library?q=amelie')), movies + 1, 'a new movie is counted');
      await db.deleteFrom('physical_copies').where('binder_id', '=', binder.id).execute();
      await db.deleteFrom('disc_editions').where('id', '=', edition.id).execute();
      await db.deleteFrom('binders').where('id', '=', binder.id).execute();
      await db.deleteFrom('movies').where('id', '=', created.id).execute();
      const restored = await page('/library?q=amelie');
      assert.doesNotMatch(restored, /<option value="Zebra shelf"/);
      assert.doesNotMatch(restored, /<option value="LaserDisc"/);
      assert.equal(inLibrary(restored), movies);
    } finally {
      MovieRepository.prototype.listingFacets = facets;
    }
  });
});
