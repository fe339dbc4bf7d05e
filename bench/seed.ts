import type { Db } from '../server/src/db/database.ts';
import { normalizeTitle, sortTitle } from '../server/src/domain/titles.ts';

const WORDS = [
  'Dark',
  'Star',
  'Night',
  'River',
  'Iron',
  'Silent',
  'Lost',
  'Golden',
  'Last',
  'Red',
  'Blue',
  'City',
];
const NOUNS = ['Empire', 'Voyage', 'Garden', 'Protocol', 'Harbor', 'Kingdom', 'Signal', 'Winter', 'Machine'];
const FORMATS = ['DVD', 'Blu-ray', '4K UHD'];

/** Seeds `count` movies, each with one disc edition and one physical copy in a binder slot. */
export async function seedMoviesWithCopies(db: Db, count: number): Promise<void> {
  const now = new Date('2026-01-01T00:00:00Z').toISOString();
  const binderCount = Math.ceil(count / 100);
  await db.transaction().execute(async (trx) => {
    for (let b = 0; b < binderCount; b++) {
      await trx
        .insertInto('binders')
        .values({ name: `Binder ${b + 1}`, capacity: 100, created_at: now })
        .execute();
    }
    const batch = 400;
    for (let start = 0; start < count; start += batch) {
      const movies = [];
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const title = `${WORDS[i % WORDS.length]} ${NOUNS[(i * 7) % NOUNS.length]} ${i + 1}`;
        movies.push({
          title,
          sort_title: sortTitle(title),
          normalized_title: normalizeTitle(title),
          original_title: null,
          year: 1950 + (i % 75),
          overview: `A seeded movie number ${i + 1}, long enough to look like a real overview of a film.`,
          runtime_minutes: 90 + (i % 60),
          tmdb_id: 100000 + i,
          imdb_id: `tt${String(1000000 + i)}`,
          has_digital_store_a: i % 3 === 0 ? 1 : 0,
          has_digital_store_b: i % 5 === 0 ? 1 : 0,
          watched: 0,
          created_at: now,
          updated_at: now,
        });
      }
      const ids = await trx.insertInto('movies').values(movies).returning('id').execute();
      const editions = await trx
        .insertInto('disc_editions')
        .values(
          ids.map((m, k) => ({
            movie_id: m.id,
            label: null,
            format: FORMATS[(start + k) % 3] ?? 'DVD',
            barcode: null,
            created_at: now,
          })),
        )
        .returning(['id', 'movie_id'])
        .execute();
      await trx
        .insertInto('physical_copies')
        .values(
          editions.map((e, k) => ({
            movie_id: e.movie_id,
            edition_id: e.id,
            binder_id: Math.floor((start + k) / 100) + 1,
            slot: String(((start + k) % 100) + 1),
            notes: null,
            created_at: now,
          })),
        )
        .execute();
    }
  });
}
