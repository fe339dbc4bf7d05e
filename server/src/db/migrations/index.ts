import type { Kysely, Migration } from 'kysely';
import * as m0001 from './0001-initial.ts';
import * as m0002 from './0002-artifacts.ts';
import * as m0003 from './0003-keyframe-indexes.ts';
import * as m0004 from './0004-subtitle-sidecars.ts';
import * as m0005 from './0005-movie-search.ts';
import * as m0006 from './0006-households.ts';
import * as m0007 from './0007-favourites.ts';
import * as m0008 from './0008-trickplay.ts';
import * as m0009 from './0009-cluster-jobs.ts';
import * as m0010 from './0010-shared-secrets.ts';
import * as m0011 from './0011-hls-runs.ts';
import * as m0013 from './0013-search-rank-stats.ts';
import * as m0014 from './0014-jobs-notify-rows.ts';
import * as m0015 from './0015-search-rows-at-commit.ts';
import * as m0016 from './0016-node-state.ts';
import * as m0017 from './0017-binder-pages.ts';
import * as m0018 from './0018-search-rows-after-import.ts';
import * as m0019 from './0019-loans.ts';
import * as m0020 from './0020-wishes.ts';
import type { Dialect } from './helpers.ts';

interface MigrationModule {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** Numbered migrations, applied in order at start; never edit one that has shipped, add the next. */
const MIGRATIONS: Record<string, MigrationModule> = {
  '0001-initial': m0001,
  '0002-artifacts': m0002,
  '0003-keyframe-indexes': m0003,
  '0004-subtitle-sidecars': m0004,
  '0005-movie-search': m0005,
  '0006-households': m0006,
  '0007-favourites': m0007,
  '0008-trickplay': m0008,
  '0009-cluster-jobs': m0009,
  '0010-shared-secrets': m0010,
  '0011-hls-runs': m0011,
  '0013-search-rank-stats': m0013,
  '0014-jobs-notify-rows': m0014,
  '0015-search-rows-at-commit': m0015,
  // Named after every migration databases may have applied already: Kysely's Migrator refuses a
  // name below the last one a database ran (0012 was never shipped).
  '0016-node-state': m0016,
  '0017-binder-pages': m0017,
  '0018-search-rows-after-import': m0018,
  '0019-loans': m0019,
  '0020-wishes': m0020,
};

/** The migrations bound to a dialect, in the shape Kysely's Migrator wants. */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  const out: Record<string, Migration> = {};
  for (const [name, mod] of Object.entries(MIGRATIONS)) {
    out[name] = { up: (db) => mod.up(db, dialect) };
  }
  return out;
}
