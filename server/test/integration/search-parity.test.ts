// Issue 26: search answers the same on SQLite (FTS5) and PostgreSQL (tsvector + unaccent). One table
// of queries runs against the same library on both engines in the same test: the same movies, in the
// same order (best match first, then sort title, then id), and each the movies the table names.
// SQLite is in memory; PostgreSQL is the run's cluster (REELSHELF_TEST_POSTGRES_URL) or, without
// one, a cluster this file starts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { systemClock } from '../../src/adapters/clock.ts';
import { type Db, openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import { MovieRepository } from '../../src/repositories/movie.repository.ts';
import { kyselyUnitOfWork } from '../../src/repositories/unit-of-work.ts';
import { MovieService, type SearchOrder } from '../../src/services/library/movie.service.ts';
import { searchTerms } from '../../src/domain/search-query.ts';
import { normalizeTitle, sortTitle } from '../../src/domain/titles.ts';
import { startTestPostgres, type TestPostgres } from '../../../scripts/test-postgres.mjs';

interface Film {
  title: string;
  original?: string;
  year?: number;
  cast?: string[];
  directors?: string[];
  /** Credits the index leaves out: crew other than directors. */
  crew?: string[];
}

const FILMS: Film[] = [
  {
    title: 'Amélie',
    original: "Le Fabuleux Destin d'Amélie Poulain",
    year: 2001,
    cast: ['Audrey Tautou', 'Mathieu Kassovitz'],
    directors: ['Jean-Pierre Jeunet'],
  },
  {
    title: 'Inception',
    year: 2010,
    cast: ['Leonardo DiCaprio', 'Joseph Gordon-Levitt', 'Tom Hardy', 'Elliot Page'],
    directors: ['Christopher Nolan'],
    crew: ['Hans Zimmer'],
  },
  {
    title: 'Léon',
    original: 'Léon: The Professional',
    year: 1994,
    cast: ['Jean Reno', 'Natalie Portman'],
    directors: ['Luc Besson'],
  },
  { title: 'The Hardy Boys', year: 1977 },
  { title: 'AC/DC: Let There Be Rock', year: 1980 },
  // Stored decomposed, as a macOS file name gives it.
  { title: 'Poke\u0301mon: The First Movie', year: 1998 },
  { title: 'Spirited Away', original: '千と千尋の神隠し', year: 2001, directors: ['宮崎駿'] },
  { title: 'Brother', original: 'Брат', year: 1997, directors: ['Алексей Балабанов'] },
  { title: 'Parasite', original: '기생충', year: 2019, directors: ['봉준호'] },
  { title: 'Wadjda', original: 'وجدة', year: 2012 },
  { title: "Rock 'n' Roll High School", year: 1979 },
  { title: "Don't Look Up", year: 2021, cast: ["Conan O'Brien"] },
  { title: 'Spider-Man: No Way Home', year: 2021, cast: ['Tom Holland'] },
  { title: 'Se7en', year: 1995, cast: ['Brad Pitt'] },
  { title: '2001: A Space Odyssey', year: 1968, directors: ['Stanley Kubrick'] },
  { title: 'Blade Runner 2049', year: 2017, cast: ['Harrison Ford'] },
  { title: 'WALL·E', year: 2008 },
  { title: 'Mission: Impossible', year: 1996, cast: ['Tom Cruise'] },
  { title: 'Dancer in the Dark', year: 2000, cast: ['Björk', 'Catherine Deneuve'] },
  { title: 'Volver', year: 2006, cast: ['Penélope Cruz'], directors: ['Pedro Almodóvar'] },
  { title: 'Être et avoir', year: 2002 },
  { title: 'Les Misérables', year: 2012 },
  { title: 'Star Voyage 02', year: 1952 },
  { title: 'Star Voyage 01', year: 1951 },
  { title: 'Star Voyage 03', year: 1953, cast: ['Joan Starling'] },
  { title: 'Joe', year: 2013, cast: ['Nicolas Cage'] },
  { title: 'Jojo Rabbit', year: 2019, cast: ['Roman Griffin Davis', 'Scarlett Johansson'] },
  {
    title: 'Heat',
    year: 1995,
    cast: ['Al Pacino', 'Robert De Niro', 'Jon Voight'],
    directors: ['Michael Mann'],
  },
];

/** A query and the titles it finds, best match first (null: no word in it, the plain listing). */
const QUERIES: [string, string[] | null][] = [
  // Accents both ways, and case.
  ['amelie', ['Amélie']],
  ['Amélie', ['Amélie']],
  ['AMÉLIE', ['Amélie']],
  ['Ame\u0301lie', ['Amélie']],
  ['pokemon', ['Poke\u0301mon: The First Movie']],
  ['POKÉMON', ['Poke\u0301mon: The First Movie']],
  ['miserables', ['Les Misérables']],
  ['etre', ['Être et avoir']],
  ['ÊTRE', ['Être et avoir']],
  ['bjork', ['Dancer in the Dark']],
  ['BJÖRK', ['Dancer in the Dark']],
  ['almodovar', ['Volver']],
  ['penélope cruz', ['Volver']],
  ['cruz penelope', ['Volver']],
  // Prefixes of one, two, three and more letters.
  // Title, then director, then cast; the shorter of two rows with the same hits first.
  ['j', ['Joe', 'Jojo Rabbit', 'Amélie', 'Star Voyage 03', 'Heat', 'Léon', 'Inception']],
  ['jo', ['Joe', 'Jojo Rabbit', 'Star Voyage 03', 'Heat', 'Inception']],
  ['joj', ['Jojo Rabbit']],
  ['inc', ['Inception']],
  ['star', ['Star Voyage 01', 'Star Voyage 02', 'Star Voyage 03']],
  ['star voy', ['Star Voyage 01', 'Star Voyage 02', 'Star Voyage 03']],
  ['star 03', ['Star Voyage 03']],
  ['starl', ['Star Voyage 03']],
  // Several words, cast and directors, original titles.
  ['destin poulain', ['Amélie']],
  ['fabuleux', ['Amélie']],
  ['professional', ['Léon']],
  ['leonardo dicaprio', ['Inception']],
  ['dicaprio', ['Inception']],
  ['nolan', ['Inception']],
  ['zimmer', []],
  ['besson', ['Léon']],
  ['inception dicaprio', ['Inception']],
  ['leon', ['Léon', 'Inception']],
  ['hardy', ['The Hardy Boys', 'Inception']],
  ['tom', ['Mission: Impossible', 'Spider-Man: No Way Home', 'Inception']],
  ['tom hardy', ['Inception']],
  // Punctuation, apostrophes, quotes.
  ['AC/DC', ['AC/DC: Let There Be Rock']],
  ['"AC/DC', ['AC/DC: Let There Be Rock']],
  ['ac dc rock', ['AC/DC: Let There Be Rock']],
  ['rock', ["Rock 'n' Roll High School", 'AC/DC: Let There Be Rock']],
  ["rock 'n' roll", ["Rock 'n' Roll High School"]],
  ["rock'n'roll", ["Rock 'n' Roll High School"]],
  ["don't", ["Don't Look Up"]],
  ['dont', []],
  ["o'brien", ["Don't Look Up"]],
  ['O’Brien', ["Don't Look Up"]],
  ["'", null],
  ["''", null],
  ['"heat"', ['Heat']],
  ['"heat', ['Heat']],
  ['\\heat\\', ['Heat']],
  ['gordon-levitt', ['Inception']],
  ['spider-man', ['Spider-Man: No Way Home']],
  ['wall·e', ['WALL·E']],
  ['wall e', ['WALL·E']],
  ['mission: impossible', ['Mission: Impossible']],
  // Operators of either engine are text.
  ['-dicaprio', ['Inception']],
  ['heat -pacino', ['Heat']],
  ['NOT inception', []],
  ['inception OR amelie', []],
  ['inception AND nolan', []],
  ['title:amelie', []],
  ['heat*', ['Heat']],
  ['he*t', []],
  ['*', null],
  ['heat:*', ['Heat']],
  ['heat:A', ['Heat']], // "a" is a word: Al Pacino
  ['heat & pacino', ['Heat']],
  ['heat | amelie', []],
  ['!heat', ['Heat']],
  ['heat <-> pacino', ['Heat']],
  ['(heat', ['Heat']],
  ['heat)', ['Heat']],
  ['NEAR(heat pacino)', []],
  ['^heat', ['Heat']],
  ['- : * " ( ) ^ + / \\ ; , & | ! < > @ # $ % ~ `', null],
  // Empty, whitespace only.
  ['', null],
  ['   ', null],
  ['\t\n', null],
  // Digits.
  ['se7en', ['Se7en']],
  ['se7', ['Se7en']],
  ['2049', ['Blade Runner 2049']],
  ['20', ['Blade Runner 2049', '2001: A Space Odyssey']],
  // Scripts other than Latin.
  ['千と千尋の神隠し', ['Spirited Away']],
  ['千と', ['Spirited Away']],
  ['宮崎駿', ['Spirited Away']],
  ['брат', ['Brother']],
  ['БРАТ', ['Brother']],
  ['балабанов', ['Brother']],
  ['기생', ['Parasite']],
  ['봉준호', ['Parasite']],
  ['وجدة', ['Wadjda']],
  ['😀', null],
  // Nothing typed is an error on either engine.
  ['x'.repeat(100), []],
  ["'; DROP TABLE movies; --", []],
  ['\u0000heat', ['Heat']],
  ["heat' & 'x", []],
  ['heat\\', ['Heat']],
  ['heat:', ['Heat']],
  ['heat:*:*', ['Heat']],
];

/**
 * Where the engines' folding differs (docs/database.md): PostgreSQL's unaccent also folds letters
 * that have no decomposition (ø, ß, æ, ł…), Greek and Cyrillic accents, ligatures and full-width
 * forms, where FTS5's remove_diacritics folds only decomposable Latin letters. A query typed with
 * the letter itself finds the film on both; the folded spelling only on PostgreSQL.
 */
const FOLDED_ONLY_ON_POSTGRES: [title: string, query: string][] = [
  ['Øster Vinter', 'oster'],
  ['Straße der Sehnsucht', 'strasse'],
  ['Ænima Nights', 'aenima'],
  ['Łódź Stories', 'lodz'],
  ['Ζορμπάς', 'ζορμπας'],
  ['Крёстный отец', 'крестный'],
];

async function addFilm(db: Db, film: Film): Promise<number> {
  const now = '2026-01-01T00:00:00.000Z';
  const { id } = await db
    .insertInto('movies')
    .values({
      title: film.title,
      sort_title: sortTitle(film.title),
      normalized_title: normalizeTitle(film.title),
      original_title: film.original ?? null,
      year: film.year ?? null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const credits = [
    ...(film.cast ?? []).map((name) => ({ name, role: 'cast', job: null })),
    ...(film.directors ?? []).map((name) => ({ name, role: 'crew', job: 'Director' })),
    ...(film.crew ?? []).map((name) => ({ name, role: 'crew', job: 'Original Music Composer' })),
  ];
  for (const [order, credit] of credits.entries()) {
    const person = await db
      .insertInto('persons')
      .values({ tmdb_id: null, name: credit.name, profile_path: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('person_movie')
      .values({ person_id: person.id, movie_id: id, role: credit.role, job: credit.job, sort_order: order })
      .execute();
  }
  return id;
}

interface Engine {
  name: 'sqlite' | 'postgres';
  database: OpenedDatabase;
  movies: MovieService;
  /** Title of each movie id. */
  titles: Map<number, string>;
}

function engineOn(name: Engine['name'], database: OpenedDatabase): Engine {
  const movies = new MovieService(
    new MovieRepository(database.db),
    kyselyUnitOfWork(database.db, (trx) => new MovieRepository(trx)),
    systemClock,
  );
  return { name, database, movies, titles: new Map() };
}

async function answer(engine: Engine, q: string): Promise<string[] | null> {
  const found = await engine.movies.list(q, 500, 0, null);
  assert.equal(found.total, found.items.length, `${engine.name} ${JSON.stringify(q)}: total`);
  if (searchTerms(q).length === 0) {
    // No word in it: the plain listing, every movie by sort title.
    assert.deepEqual(found, await engine.movies.list(undefined, 500, 0, null));
    return null;
  }
  return found.items.map((m) => engine.titles.get(m.id) ?? `#${m.id}`);
}

describe('search parity: SQLite FTS5 and PostgreSQL tsvector answer alike', () => {
  let cluster: TestPostgres | null = null;
  let admin: pg.Client;
  let databaseName: string;
  let sqlite: Engine;
  let postgres: Engine;

  before(async () => {
    let adminUrl = process.env.REELSHELF_TEST_POSTGRES_URL ?? '';
    if (adminUrl === '') {
      cluster = await startTestPostgres();
      adminUrl = cluster.url;
    }
    admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    databaseName = `search_parity_${randomBytes(8).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${databaseName}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${databaseName}`;
    sqlite = engineOn('sqlite', await openDatabase('sqlite::memory:'));
    postgres = engineOn('postgres', await openDatabase(url.href, { pool: 2 }));
    for (const engine of [sqlite, postgres]) {
      for (const film of FILMS) engine.titles.set(await addFilm(engine.database.db, film), film.title);
    }
  });

  after(async () => {
    await sqlite?.database.close();
    await postgres?.database.close();
    if (admin !== undefined) {
      await admin.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
      await admin.end();
    }
    await cluster?.stop();
  });

  it('one query table, the same movies in the same order on both engines', async () => {
    const differences: string[] = [];
    const wrong: string[] = [];
    for (const [q, expected] of QUERIES) {
      const onSqlite = await answer(sqlite, q);
      const onPostgres = await answer(postgres, q);
      if (JSON.stringify(onSqlite) !== JSON.stringify(onPostgres)) {
        differences.push(
          `${JSON.stringify(q)}: sqlite ${JSON.stringify(onSqlite)}, postgres ${JSON.stringify(onPostgres)}`,
        );
      }
      if (JSON.stringify(onSqlite) !== JSON.stringify(expected)) {
        wrong.push(`${JSON.stringify(q)}: ${JSON.stringify(onSqlite)}, not ${JSON.stringify(expected)}`);
      }
    }
    assert.deepEqual(differences, [], 'the engines differ');
    assert.deepEqual(wrong, [], 'not the movies the table names');
  });

  it('the same order on both for each order the /library page offers, and the same counts', async () => {
    for (const q of ['j', 'jo', 'tom', 'star', '20', 'rock', 'leon']) {
      for (const order of ['relevance', 'title', 'year', 'recent'] as SearchOrder[]) {
        const ids = await Promise.all(
          [sqlite, postgres].map(async (engine) =>
            ((await engine.movies.searchAll(q, { order })) ?? []).map((id) => engine.titles.get(id)),
          ),
        );
        assert.deepEqual(ids[1], ids[0], `${q} by ${order}`);
        const pages = await Promise.all(
          [sqlite, postgres].map(async (engine) => {
            const page = await engine.movies.searchPage(q, { order }, 2, 2);
            return { matched: page?.matched, ids: page?.ids.map((id) => engine.titles.get(id)) };
          }),
        );
        assert.deepEqual(pages[1], pages[0], `${q} by ${order}, page 2`);
      }
    }
  });

  it('the same order on both over a generated library (bm25 on both: rare words weigh more, shorter rows first)', async () => {
    // 300 films with titles and casts drawn from a few words and names, so that every query finds
    // many films with hits in different columns, different counts and different row lengths.
    const words = ['Dark', 'Star', 'Night', 'River', 'Johnny', 'Marie', 'Paul', 'Red', 'City', 'Lost'];
    const first = ['John', 'Mary', 'Léa', 'Zoë', 'Joan', 'Paul', 'Anna', 'Joseph', 'Marie', 'Agnès'];
    const last = ['Smith', 'Müller', 'Lefèvre', 'López', 'Dubois', 'Johnson', 'Moreau', 'Nakamura'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pick = (list: string[]) => list[Math.floor(next() * list.length)] ?? '';
    const films: Film[] = [];
    for (let i = 0; i < 300; i++) {
      const cast = Array.from({ length: Math.floor(next() * 8) }, () => `${pick(first)} ${pick(last)}`);
      films.push({
        title: `${Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(words)).join(' ')} ${i}`,
        ...(next() < 0.2 ? { original: `${pick(words)} ${pick(last)}` } : {}),
        cast,
        directors: [`${pick(first)} ${pick(last)}`],
      });
    }
    for (const engine of [sqlite, postgres]) {
      for (const film of films) engine.titles.set(await addFilm(engine.database.db, film), film.title);
    }
    for (const q of [
      'j',
      'jo',
      'john',
      'marie',
      'paul',
      'star',
      'smith',
      'mu',
      'dark star',
      'anna smith',
      'lopez',
      'red',
      'paul marie',
      'jo sm',
      'lea',
      'agnes',
      'nak',
    ]) {
      const onSqlite = await answer(sqlite, q);
      assert.ok((onSqlite?.length ?? 0) > 1, q);
      assert.deepEqual(await answer(postgres, q), onSqlite, q);
    }
  });

  it('the same pages on both, page by page, also where equal ranks straddle a page boundary', async () => {
    // Films whose rows rank alike for "twin" (the same words, lengths and columns), so that ties of
    // rank are decided by sort title and id on every page, whatever its size.
    for (const engine of [sqlite, postgres]) {
      for (const title of ['Twin B', 'Twin A', 'Twin C', 'Twin A', 'Twin D', 'Twin Twin', 'Twin E']) {
        engine.titles.set(await addFilm(engine.database.db, { title, cast: ['Tess Twin'] }), title);
      }
    }
    for (const q of ['twin', 'jo', 'star', 'mar']) {
      const whole = await answer(sqlite, q);
      assert.deepEqual(await answer(postgres, q), whole, q);
      for (const size of [1, 2, 3, 7]) {
        const pages: (string | undefined)[] = [];
        for (let offset = 0; offset < (whole?.length ?? 0) + size; offset += size) {
          const [onSqlite, onPostgres] = await Promise.all(
            [sqlite, postgres].map(async (engine) => {
              const found = await engine.movies.list(q, size, offset, null);
              return { total: found.total, titles: found.items.map((m) => engine.titles.get(m.id)) };
            }),
          );
          assert.deepEqual(onPostgres, onSqlite, `${q}: ${size} from ${offset}`);
          assert.equal(onSqlite?.total, whole?.length, `${q}: total`);
          pages.push(...(onSqlite?.titles ?? []));
          if (offset >= (whole?.length ?? 0)) continue; // past the end, the page is the last one
          const page = await postgres.movies.searchPage(q, {}, size, offset / size + 1);
          assert.deepEqual(
            page?.ids.map((id) => postgres.titles.get(id)),
            onPostgres?.titles,
            `${q}: the /library page's ${size} from ${offset}`,
          );
        }
        assert.deepEqual(pages, whole, `${q}: pages of ${size} make the whole`);
      }
    }
  });

  it('known difference: PostgreSQL also folds letters FTS5 keeps (ø, ß, æ, ł, Greek and Cyrillic accents)', async () => {
    for (const engine of [sqlite, postgres]) {
      for (const [title] of FOLDED_ONLY_ON_POSTGRES) {
        engine.titles.set(await addFilm(engine.database.db, { title }), title);
      }
    }
    for (const [title, folded] of FOLDED_ONLY_ON_POSTGRES) {
      const typed = title.split(' ')[0] ?? title;
      assert.deepEqual(await answer(sqlite, typed), [title], `sqlite ${typed}`);
      assert.deepEqual(await answer(postgres, typed), [title], `postgres ${typed}`);
      assert.deepEqual(await answer(sqlite, folded), [], `sqlite ${folded}`);
      assert.deepEqual(await answer(postgres, folded), [title], `postgres ${folded}`);
    }
  });
});
