import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { OWNED, OWNED_VIA, PER_USER, SHOWN_COLUMNS, SHOWN_THROUGH } from './listing-writes.ts';
import { PEOPLE_TABLES, USE_COLUMNS } from './people-writes.ts';

/** NOTIFY channel of listing changes: `{"m":[movie ids],"f":[file ids],"u":user|null}` or `{"a":true}`. */
export const LISTING_CHANNEL = 'reelshelf_listing';
/** NOTIFY channel of writes that may change who a request is (payload: the table). */
export const PEOPLE_CHANNEL = 'reelshelf_people';
/** NOTIFY channel of job enqueues, cancels and ends (the trigger of migration 0009; no payload). */
export const JOBS_CHANNEL = 'reelshelf_jobs';
/** NOTIFY channel of HLS announcements, seeks, claims (the triggers of migration 0011; payload: the presentation key). */
export { HLS_CHANNEL } from './migrations/0011-hls-runs.ts';

/** NOTIFY channel of the node state of migration 0016: `<topic> <json of the row>` (StateMessage). */
export const STATE_CHANNEL = 'reelshelf_state';

/** Below PostgreSQL's 8000-byte payload limit; a longer change is announced as "everything". */
const MAX_PAYLOAD = 7900;

/** Any constant shared by every node: taken while the triggers are replaced (nodes start at once). */
const INSTALL_LOCK = 7_301_931_554_190_337;

function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return `"${name}"`;
}

const NOTIFY_LISTING = `
CREATE OR REPLACE FUNCTION reelshelf_notify_listing(movies bigint[], files bigint[], users bigint[])
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE payload text;
BEGIN
  IF movies IS NULL AND files IS NULL THEN RETURN; END IF;
  payload := json_build_object(
    'm', coalesce(movies, '{}'::bigint[]),
    'f', coalesce(files, '{}'::bigint[]),
    'u', CASE WHEN cardinality(users) = 1 THEN users[1] END)::text;
  IF octet_length(payload) > ${MAX_PAYLOAD} THEN payload := '{"a":true}'; END IF;
  PERFORM pg_notify('${LISTING_CHANNEL}', payload);
END $fn$`;

/** `array_agg(DISTINCT r.col)` without nulls, or a null array. */
function agg(column: string): string {
  return `array_agg(DISTINCT r.${ident(column)}) FILTER (WHERE r.${ident(column)} IS NOT NULL)`;
}

/** The trigger function of a table whose rows belong to a movie or a file (listing-writes OWNED). */
function ownedFunction(table: string, owned: { kind: 'movie' | 'file'; column: string }): string {
  const userColumn = PER_USER[table];
  const columns = [
    owned.column,
    ...(table === 'media_files' ? ['movie_id'] : []),
    ...(userColumn ? [userColumn] : []),
  ];
  const targets = [
    'owners',
    ...(table === 'media_files' ? ['movies'] : []),
    ...(userColumn ? ['users'] : []),
  ];
  const select = (from: string) =>
    `SELECT ${columns.map((c) => agg(c)).join(', ')} INTO ${targets.join(', ')} FROM ${from} r;`;
  const list = columns.map(ident).join(', ');
  const moviesArg = owned.kind === 'movie' ? 'owners' : table === 'media_files' ? 'movies' : 'NULL';
  const filesArg = owned.kind === 'file' ? 'owners' : 'NULL';
  return `
CREATE OR REPLACE FUNCTION ${ident(`reelshelf_listing_${table}`)}() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE owners bigint[]; movies bigint[]; users bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN ${select('new_rows')}
  ELSIF TG_OP = 'DELETE' THEN ${select('old_rows')}
  ELSE ${select(`(SELECT ${list} FROM old_rows UNION ALL SELECT ${list} FROM new_rows)`)}
  END IF;
  PERFORM reelshelf_notify_listing(${moviesArg}, ${filesArg}, users);
  RETURN NULL;
END $fn$`;
}

/**
 * The trigger function of a table whose rows belong to a movie through another table's row (a loan,
 * through its copy: listing-writes OWNED_VIA). A row whose parent went in the same statement (a
 * copy's deletion cascading to its loans) finds none: the parent's own trigger announces its movie.
 */
function viaFunction(table: string, via: (typeof OWNED_VIA)[string]): string {
  const column = ident(via.column);
  const owner = `t.${ident(via.owner)}`;
  const select = (from: string) =>
    `SELECT array_agg(DISTINCT ${owner}) FILTER (WHERE ${owner} IS NOT NULL) INTO owners
      FROM ${from} r JOIN ${ident(via.table)} t ON t.id = r.${column};`;
  return `
CREATE OR REPLACE FUNCTION ${ident(`reelshelf_listing_${table}`)}() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE owners bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN ${select('new_rows')}
  ELSIF TG_OP = 'DELETE' THEN ${select('old_rows')}
  ELSE ${select(`(SELECT ${column} FROM old_rows UNION ALL SELECT ${column} FROM new_rows)`)}
  END IF;
  PERFORM reelshelf_notify_listing(owners, NULL, NULL);
  RETURN NULL;
END $fn$`;
}

/** The trigger function of a table the listing shows through other rows (a person's name…). */
function shownFunction(table: string, columns: ReadonlySet<string>): string {
  const through = SHOWN_THROUGH[table];
  if (through === undefined) throw new Error(`no SHOWN_THROUGH entry for ${table}`);
  const changed = [...columns].map((c) => `o.${ident(c)} IS DISTINCT FROM n.${ident(c)}`).join(' OR ');
  const args = through.kind === 'movie' ? 'owners, NULL, NULL' : 'NULL, owners, NULL';
  return `
CREATE OR REPLACE FUNCTION ${ident(`reelshelf_listing_${table}`)}() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE owners bigint[];
BEGIN
  SELECT array_agg(DISTINCT t.${ident(through.owner)}) INTO owners
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    JOIN ${ident(through.table)} t ON t.${ident(through.key)} = n.id
    WHERE ${changed};
  PERFORM reelshelf_notify_listing(${args});
  RETURN NULL;
END $fn$`;
}

const PEOPLE_FUNCTION = `
CREATE OR REPLACE FUNCTION reelshelf_people_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- Two IFs, not one AND: PL/pgSQL plans the whole condition, and an INSERT or DELETE trigger has only
  -- one of the two transition tables ("relation new_rows does not exist").
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (
      SELECT 1 FROM old_rows o LEFT JOIN new_rows n ON n.id = o.id
      WHERE n.id IS NULL
         OR (to_jsonb(o) - '{${[...USE_COLUMNS].join(',')}}'::text[])
            IS DISTINCT FROM (to_jsonb(n) - '{${[...USE_COLUMNS].join(',')}}'::text[])
    ) THEN
      RETURN NULL;
    END IF;
  END IF;
  PERFORM pg_notify('${PEOPLE_CHANNEL}', TG_TABLE_NAME);
  RETURN NULL;
END $fn$`;

type Event = 'INSERT' | 'UPDATE' | 'DELETE';

/** What is generated: the statements, and the triggers they leave (`table.trigger`). */
interface CapturePlan {
  statements: string[];
  triggers: string[];
}

function trigger(plan: CapturePlan, table: string, name: string, event: Event, fn: string): void {
  const referencing =
    event === 'INSERT'
      ? 'NEW TABLE AS new_rows'
      : event === 'DELETE'
        ? 'OLD TABLE AS old_rows'
        : 'OLD TABLE AS old_rows NEW TABLE AS new_rows';
  const triggerName = `${name}_${event.toLowerCase()}`;
  plan.triggers.push(`${table}.${triggerName}`);
  plan.statements.push(
    `DROP TRIGGER IF EXISTS ${ident(triggerName)} ON ${ident(table)}`,
    `CREATE TRIGGER ${ident(triggerName)} AFTER ${event} ON ${ident(table)} REFERENCING ${referencing}
      FOR EACH STATEMENT EXECUTE FUNCTION ${ident(fn)}()`,
  );
}

function capturePlan(): CapturePlan {
  const plan: CapturePlan = { statements: [NOTIFY_LISTING], triggers: [] };
  for (const [table, owned] of Object.entries(OWNED)) {
    plan.statements.push(ownedFunction(table, owned));
    for (const event of ['INSERT', 'UPDATE', 'DELETE'] as const)
      trigger(plan, table, 'reelshelf_listing', event, `reelshelf_listing_${table}`);
  }
  for (const [table, via] of Object.entries(OWNED_VIA)) {
    plan.statements.push(viaFunction(table, via));
    for (const event of ['INSERT', 'UPDATE', 'DELETE'] as const)
      trigger(plan, table, 'reelshelf_listing', event, `reelshelf_listing_${table}`);
  }
  for (const [table, columns] of Object.entries(SHOWN_COLUMNS)) {
    plan.statements.push(shownFunction(table, columns));
    trigger(plan, table, 'reelshelf_listing', 'UPDATE', `reelshelf_listing_${table}`);
  }
  plan.statements.push(PEOPLE_FUNCTION);
  for (const table of PEOPLE_TABLES) {
    const events: Event[] = table === 'users' ? ['INSERT', 'UPDATE', 'DELETE'] : ['UPDATE', 'DELETE'];
    for (const event of events) trigger(plan, table, 'reelshelf_people', event, 'reelshelf_people_changed');
  }
  return plan;
}

/**
 * The statements that make every committed write announce itself: statement-level triggers with
 * transition tables, generated from the same tables the SQLite statement observers classify by
 * (listing-writes.ts OWNED, OWNED_VIA, SHOWN_COLUMNS, SHOWN_THROUGH, PER_USER; people-writes.ts), so the rule
 * of what a write changes lives in one place.
 */
export function changeCaptureStatements(): string[] {
  return capturePlan().statements;
}

/** The function whose comment names the installed version (it exists whenever the triggers do). */
const VERSION_HOLDER = 'reelshelf_notify_listing(bigint[],bigint[],bigint[])';

/** The version of the generated SQL: a new release whose triggers differ installs them again. */
function versionOf(plan: CapturePlan): string {
  const hash = createHash('sha256').update(plan.statements.join(';\n')).digest('hex').slice(0, 16);
  return `reelshelf change capture ${hash}`;
}

/** Whether this version's functions and every one of its triggers are in place. */
async function installed(db: Kysely<unknown>, plan: CapturePlan): Promise<boolean> {
  const version = await sql<{ comment: string | null }>`
    select obj_description(to_regprocedure(${VERSION_HOLDER}), 'pg_proc') as comment`.execute(db);
  if (version.rows[0]?.comment !== versionOf(plan)) return false;
  // A migration that rebuilds a table drops its triggers with it; the functions stay.
  const triggers = await sql<{ name: string }>`
    select c.relname || '.' || t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where not t.tgisinternal and pg_table_is_visible(c.oid)
      and t.tgname ~ '^reelshelf_(listing|people)_'`.execute(db);
  const present = new Set(triggers.rows.map((r) => r.name));
  return present.size === plan.triggers.length && plan.triggers.every((t) => present.has(t));
}

/**
 * Installs the change triggers unless this version of them is already in place (every node, every
 * test database copied from a migrated template, opens the same database again and again): in one
 * transaction, one node at a time. Returns what it did.
 */
export async function installChangeCapture(db: Kysely<unknown>): Promise<'installed' | 'current'> {
  const plan = capturePlan();
  if (await installed(db, plan)) return 'current';
  await db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${INSTALL_LOCK})`.execute(tx);
    for (const statement of plan.statements) await sql.raw(statement).execute(tx);
    await sql.raw(`COMMENT ON FUNCTION ${VERSION_HOLDER} IS '${versionOf(plan)}'`).execute(tx);
  });
  return 'installed';
}
