import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { type OpenedDatabase, openDatabase, sqliteHandleOf } from '../server/src/db/database.ts';
import { normalizeTitle, sortTitle } from '../server/src/domain/titles.ts';
import {
  type BenchEngine,
  type BenchTarget,
  benchEngines,
  recordFigure,
  seededBenchServer,
} from './engines.ts';
import { seedMoviesWithCopies } from './seed.ts';
import { ms, summarize } from './stats.ts';

const MOVIES = 10_000;
const CAST_PER_MOVIE = 10;
const PEOPLE = 20_000;
const quick = process.argv.includes('--quick');
const RUNS = quick ? 50 : 200;
const PAGE_RUNS = quick ? 10 : 40;

/** What people type: a rare cast name, a title, accents, a common title word, prefixes, two names, punctuation. */
const API_QUERIES = ['dicaprio', 'amelie', 'inc', 'star', 'tom hanks', 'jo', 'AC/DC'];
const PAGE_QUERIES = ['dicaprio', 'star', 'jo'];

const FIRST = [
  'John',
  'Mary',
  'Joseph',
  'Anna',
  'James',
  'Emma',
  'Robert',
  'Olivia',
  'Michael',
  'Sophie',
  'William',
  'Julia',
  'David',
  'Laura',
  'Richard',
  'Claire',
  'Thomas',
  'Nina',
  'Charles',
  'Marie',
  'Daniel',
  'Léa',
  'Matthew',
  'Zoë',
  'Anthony',
  'Chloé',
  'Mark',
  'Inès',
  'Paul',
  'Hélène',
  'Steven',
  'Agnès',
  'Andrew',
  'Joan',
  'Kenneth',
  'Irène',
  'Kevin',
  'Björk',
  'Brian',
  'Renée',
  'George',
  'Joanna',
  'Edward',
  'Noémie',
];
const LAST = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodríguez',
  'Martínez',
  'Hernández',
  'López',
  'González',
  'Wilson',
  'Anderson',
  'Moreau',
  'Lefèvre',
  'Müller',
  'Schröder',
  'Nakamura',
  'Kowalski',
  'Novák',
  'Jóhannsson',
  'Øster',
  'Dubois',
  'Durand',
  'Lambert',
  'Bonnet',
  'François',
  'Mercier',
  'Dupont',
  'Fontaine',
  'Rousseau',
  'Vincent',
  'Muller',
  'Lefebvre',
  'Faure',
  'André',
  'Gauthier',
  'Perrin',
  'Morin',
  'Clément',
  'Roussel',
  'Henry',
  'Gautier',
  'Masson',
  'Marchand',
];

/** A deterministic pseudo-random generator (mulberry32), so every run seeds the same library. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface CreditRow {
  person: number;
  movie: number;
  role: 'cast' | 'crew';
  order: number;
}

/** The people and credits of the seed, the same on every engine and run. */
function seedData(): { names: string[]; credits: CreditRow[] } {
  const next = random(15);
  // Every first × last name, then the same with a middle name: distinct names, many sharing words.
  const names = ['Leonardo DiCaprio', 'Tom Hanks'];
  for (let i = 0; names.length < PEOPLE; i++) {
    const first = FIRST[i % FIRST.length] ?? 'John';
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length] ?? 'Smith';
    const round = Math.floor(i / (FIRST.length * LAST.length));
    names.push(
      round === 0 ? `${first} ${last}` : `${first} ${FIRST[(i + round) % FIRST.length] ?? ''} ${last}`,
    );
  }
  const credits: CreditRow[] = [];
  for (let movie = 1; movie <= MOVIES; movie++) {
    const cast = new Set<number>();
    // Two famous names in a few dozen films each; everyone else skewed towards the first ids.
    if (movie % 300 === 2) cast.add(1);
    if (movie % 250 === 5) cast.add(2);
    while (cast.size < CAST_PER_MOVIE) cast.add(3 + Math.floor((PEOPLE - 2) * next() ** 2));
    let order = 0;
    for (const person of cast) credits.push({ person, movie, role: 'cast', order: order++ });
    const director = 3 + Math.floor((PEOPLE - 2) * next());
    credits.push({ person: director, movie, role: 'crew', order: 0 });
  }
  return { names, credits };
}

const RETITLES: [string, string | null][] = [
  ['Amélie', "Le Fabuleux Destin d'Amélie Poulain"],
  ['Inception', null],
  ['AC/DC: Let There Be Rock', null],
  ['The Incredibles', null],
  ['Catch Me If You Can', null],
];

/**
 * 10,000 movies with copies (the library bench's seed), a few real titles among them, and 100,000
 * cast credits (plus one director per movie) over 20,000 people, a few of them in many films.
 * The credits go in through the same triggers every write goes through (SQLite: prepared
 * statements in one transaction; PostgreSQL: multi-row inserts in one transaction); the time it
 * takes is returned.
 */
export async function seedCredits(database: OpenedDatabase): Promise<number> {
  const { names, credits } = seedData();
  if (database.engine === 'postgres') {
    const t0 = performance.now();
    await database.db.transaction().execute(async (trx) => {
      for (const [i, [title, original]] of RETITLES.entries()) {
        await trx
          .updateTable('movies')
          .set({
            title,
            sort_title: sortTitle(title),
            normalized_title: normalizeTitle(title),
            original_title: original,
          })
          .where('id', '=', i + 1)
          .execute();
      }
      for (let start = 0; start < names.length; start += 2_000) {
        await trx
          .insertInto('persons')
          .values(names.slice(start, start + 2_000).map((name, k) => ({ tmdb_id: start + k + 1, name })))
          .execute();
      }
      for (let start = 0; start < credits.length; start += 2_000) {
        await trx
          .insertInto('person_movie')
          .values(
            credits.slice(start, start + 2_000).map((c) => ({
              person_id: c.person,
              movie_id: c.movie,
              role: c.role,
              character: c.role === 'cast' ? 'Someone' : null,
              job: c.role === 'cast' ? null : 'Director',
              department: c.role === 'cast' ? null : 'Directing',
              sort_order: c.order,
            })),
          )
          .execute();
      }
    });
    return performance.now() - t0;
  }
  const sqlite = sqliteHandleOf(database);
  const rename = sqlite.prepare(
    'UPDATE movies SET title = ?, sort_title = ?, normalized_title = ?, original_title = ? WHERE id = ?',
  );
  const insertPerson = sqlite.prepare('INSERT INTO persons (tmdb_id, name) VALUES (?, ?)');
  const insertCredit = sqlite.prepare(
    'INSERT INTO person_movie (person_id, movie_id, role, character, job, department, sort_order) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const t0 = performance.now();
  sqlite.transaction(() => {
    RETITLES.forEach(([title, original], i) => {
      rename.run(title, sortTitle(title), normalizeTitle(title), original, i + 1);
    });
    let id = 0;
    for (const name of names) insertPerson.run(++id, name);
    for (const c of credits) {
      if (c.role === 'cast') insertCredit.run(c.person, c.movie, 'cast', 'Someone', null, null, c.order);
      else insertCredit.run(c.person, c.movie, 'crew', null, 'Director', 'Directing', 0);
    }
  })();
  return performance.now() - t0;
}

/** The same credit writes into a database without the search index's triggers: the cost of the index. */
async function creditWritesWithoutIndex(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-'));
  const database = await openDatabase(`sqlite:${join(dir, 'plain.sqlite')}`);
  try {
    await seedMoviesWithCopies(database.db, MOVIES);
    const triggers = sqliteHandleOf(database)
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'movie_search_%'")
      .pluck()
      .all() as string[];
    for (const name of triggers) sqliteHandleOf(database).exec(`DROP TRIGGER ${name}`);
    return await seedCredits(database);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * GET /api/movies?q= and the /library page with a search term at 10,000 movies with 100,000 cast
 * credits, over real HTTP. Targets (issue 15): API p50 < 10 ms; the page's first byte < 100 ms.
 * With both engines, both servers are seeded first and their requests then alternate (one to each,
 * the first of the pair taking turns), so a load that comes and goes on the machine weighs on both
 * alike: the ratio is what issue 26 asks about.
 */
export async function benchSearch(): Promise<void> {
  const targets: SearchTarget[] = [];
  try {
    for (const engine of benchEngines()) {
      console.log(`\n### ${engine}`);
      targets.push(await seededTarget(engine));
    }
    console.log(`\n### ${targets.map((t) => t.engine).join(' and ')}, requests alternating`);
    await measureSearches(targets);
  } finally {
    for (const target of targets) await target.close();
  }
}

type SearchTarget = BenchTarget;

/** A server on a new database of `engine`, seeded (and ANALYZEd on PostgreSQL), after its first search (timed). */
async function seededTarget(engine: BenchEngine): Promise<SearchTarget> {
  const target = await seededBenchServer(engine, async (server) => {
    const seedStart = performance.now();
    await seedMoviesWithCopies(server.database.db, MOVIES);
    console.log(`seeded ${MOVIES} movies with copies in ${ms(performance.now() - seedStart)}`);
    const withIndex = await seedCredits(server.database);
    const credits = MOVIES * (CAST_PER_MOVIE + 1);
    const each = (total: number) => `${((total * 1000) / credits).toFixed(0)} µs a credit`;
    // The cost of the index's triggers is measured on SQLite (FTS5 triggers dropped on a copy).
    const without = engine === 'sqlite' ? await creditWritesWithoutIndex() : null;
    console.log(
      `seeded ${PEOPLE} people and ${credits} credits (${MOVIES * CAST_PER_MOVIE} cast, one transaction): ${ms(withIndex)} with the search index's triggers ${engine === 'sqlite' ? 'marking the movies' : 'marking the movies and building their rows at commit'} (${each(withIndex)})${without === null ? '' : `, ${ms(without)} without them (${each(without)})`}`,
    );
  });
  try {
    // SQLite: the first search rebuilds the rows of every movie the seed marked (all 10,000).
    // PostgreSQL: the seed's transactions built them as they committed (migration 0015; in the seed
    // times above), so the first search has nothing to apply.
    const cold = performance.now();
    await (await request(`${target.url}/api/movies?q=dicaprio`, { headers: target.auth })).body.arrayBuffer();
    const coldMs = performance.now() - cold;
    recordFigure('search', 'first search after the seed', engine, coldMs);
    console.log(
      `first search after the seed (${engine === 'sqlite' ? `rebuilds the index rows of ${MOVIES} marked movies` : `their rows were built as the seed committed`}): ${ms(coldMs)}`,
    );
    return target;
  } catch (error) {
    await target.close();
    throw error;
  }
}

/** Runs `sample` `runs` times on each target, alternating (the first of each pair taking turns). */
async function alternating(
  targets: SearchTarget[],
  runs: number,
  sample: (target: SearchTarget, run: number) => Promise<number>,
): Promise<Map<SearchTarget, number[]>> {
  const samples = new Map(targets.map((t) => [t, [] as number[]]));
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) samples.get(target)?.push(await sample(target, run));
  }
  return samples;
}

async function measureSearches(targets: SearchTarget[]): Promise<void> {
  const api = async (target: SearchTarget, path: string, init: { method?: 'PATCH'; body?: string } = {}) => {
    const res = await request(`${target.url}${path}`, {
      ...init,
      headers: {
        ...target.auth,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });
    return (await res.body.json()) as { total?: number };
  };
  const report = (
    samples: Map<SearchTarget, number[]>,
    figure: string,
    line: (t: SearchTarget, s: ReturnType<typeof summarize>) => string,
  ) => {
    for (const [target, list] of samples) {
      const s = summarize(list);
      recordFigure('search', figure, target.engine, s.median);
      console.log(`  ${target.engine}: ${line(target, s)}`);
    }
  };

  // A search right after one write sees that write (SQLite: applies its mark first).
  const afterWrite = await alternating(targets, quick ? 10 : 40, async (target, i) => {
    await api(target, `/api/movies/${100 + i}`, {
      method: 'PATCH',
      body: JSON.stringify({ title: `Retitled Heron ${i}` }),
    });
    const t0 = performance.now();
    await api(target, '/api/movies?q=heron&limit=50');
    return performance.now() - t0;
  });
  console.log('GET /api/movies?q=heron right after a PATCH of a title:');
  report(afterWrite, '?q=heron right after a PATCH (p50)', (_, s) => `p50 ${ms(s.median)}, p95 ${ms(s.p95)}`);

  for (const q of API_QUERIES) {
    const path = `/api/movies?q=${encodeURIComponent(q)}&limit=50`;
    const totals = new Map<SearchTarget, number>();
    for (const target of targets) {
      for (let i = 0; i < 10; i++) totals.set(target, (await api(target, path)).total ?? 0);
    }
    const samples = await alternating(targets, RUNS, async (target) => {
      const t0 = performance.now();
      const res = await request(`${target.url}${path}`, { headers: target.auth });
      await res.body.arrayBuffer();
      return performance.now() - t0;
    });
    console.log(`GET /api/movies?q=${q} (50 a page), ${RUNS} requests each:`);
    report(
      samples,
      `?q=${q} (p50)`,
      (t, s) => `${totals.get(t)} matches, p50 ${ms(s.median)}, p95 ${ms(s.p95)}`,
    );
  }

  for (const q of PAGE_QUERIES) {
    const path = `/library?q=${encodeURIComponent(q)}`;
    const cards = new Map<SearchTarget, number>();
    const firstByte = new Map<SearchTarget, number[]>(targets.map((t) => [t, []]));
    for (const target of targets) {
      const html = { ...target.auth, accept: 'text/html' };
      for (let i = 0; i < 3; i++)
        await (await request(`${target.url}${path}`, { headers: html })).body.arrayBuffer();
    }
    const whole = await alternating(targets, PAGE_RUNS, async (target) => {
      const t0 = performance.now();
      const res = await request(`${target.url}${path}`, { headers: { ...target.auth, accept: 'text/html' } });
      // undici resolves at the response head, and the page's head and body leave in one write.
      firstByte.get(target)?.push(performance.now() - t0);
      const body = await res.body.text();
      cards.set(target, body.split('<li class="card">').length - 1);
      return performance.now() - t0;
    });
    console.log(`/library page ?q=${q}, ${PAGE_RUNS} requests each:`);
    report(whole, `/library page ?q=${q}: whole page (p50)`, (t, s) => {
      const f = summarize(firstByte.get(t) ?? []);
      return `${cards.get(t)} cards, first byte p50 ${ms(f.median)}, p95 ${ms(f.p95)}; whole page p50 ${ms(s.median)}`;
    });
  }
}
