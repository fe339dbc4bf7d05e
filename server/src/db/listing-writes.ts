import {
  AliasNode,
  AndNode,
  BinaryOperationNode,
  ColumnNode,
  type InsertQueryNode,
  type KyselyPlugin,
  type OperationNode,
  OperatorNode,
  ParensNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PrimitiveValueListNode,
  type QueryResult,
  ReferenceNode,
  type RootOperationNode,
  TableNode,
  type UnknownRow,
  ValueListNode,
  ValueNode,
  ValuesNode,
} from 'kysely';
import type { ListingChange } from '../domain/library-listing/changes.ts';

/** A synchronous read on the same SQLite connection (owner look-ups before an UPDATE or DELETE runs). */
export type SyncQuery = (sql: string, params: readonly unknown[]) => Record<string, unknown>[];

type Listener = (change: ListingChange) => void;

/** Tables whose rows belong to one listing item: a movie, or a media file (which the listing places). */
export const OWNED: Record<string, { kind: 'movie' | 'file'; column: string }> = {
  movies: { kind: 'movie', column: 'id' },
  physical_copies: { kind: 'movie', column: 'movie_id' },
  disc_editions: { kind: 'movie', column: 'movie_id' },
  movie_artwork_state: { kind: 'movie', column: 'movie_id' },
  person_movie: { kind: 'movie', column: 'movie_id' },
  media_files: { kind: 'file', column: 'id' },
  watch_state: { kind: 'file', column: 'media_file_id' },
  subtitle_sidecars: { kind: 'file', column: 'media_file_id' },
  // Not in /library's JSON, but in the Jellyfin facade's items, kept by the same generation.
  movie_ratings: { kind: 'movie', column: 'movie_id' },
  movie_studio: { kind: 'movie', column: 'movie_id' },
  favourites: { kind: 'movie', column: 'movie_id' },
};

/**
 * Tables the listing shows through other rows: a person's name (cast and directors), a binder's name
 * (physical copies), a root's path (media files). Their other columns are not listed.
 */
export const SHOWN_COLUMNS: Record<string, ReadonlySet<string>> = {
  persons: new Set(['name']),
  binders: new Set(['name']),
  library_roots: new Set(['path']),
};

/** Where the items a shown row appears on are found: `select owner from table where key in (ids)`. */
export const SHOWN_THROUGH: Record<
  string,
  { table: string; key: string; owner: string; kind: 'movie' | 'file' }
> = {
  persons: { table: 'person_movie', key: 'person_id', owner: 'movie_id', kind: 'movie' },
  binders: { table: 'physical_copies', key: 'binder_id', owner: 'movie_id', kind: 'movie' },
  library_roots: { table: 'media_files', key: 'library_root_id', owner: 'id', kind: 'file' },
};

/**
 * Tables whose rows belong to a movie through a row of another table: `select owner from table where
 * id = row.column`. A loan is listed on its copy (`physical_copies[].loan` in /library, the binder
 * slot, the Jellyfin placeholder's overview), so it belongs to the copy's movie.
 */
export const OWNED_VIA: Record<string, { column: string; table: string; owner: string; kind: 'movie' }> = {
  loans: { column: 'physical_copy_id', table: 'physical_copies', owner: 'movie_id', kind: 'movie' },
};

const LISTED_TABLES = new Set([
  ...Object.keys(OWNED),
  ...Object.keys(OWNED_VIA),
  ...Object.keys(SHOWN_COLUMNS),
]);

/**
 * Tables whose rows are one person's view of an item (their watch state): a write changes only that
 * person's listings, when the statement names the person (else everyone's, which is never stale).
 */
export const PER_USER: Record<string, string> = { watch_state: 'user_id', favourites: 'user_id' };

const ALL: ListingChange = { all: true };

/** What one statement will change, and whether the new rows' ids must be read from its result. */
interface Pending {
  change: ListingChange;
  /** An INSERT into movies or media_files: the ids it creates are in its result. */
  newIds?: 'movie' | 'file';
}

/**
 * Observes every statement run through Kysely and reports, for those that write what GET /library
 * shows, which movies and media files they touch. Installed on the one Kysely instance
 * (db/database.ts), so no writer can forget to tell the listing: services, scans, imports, the CLI
 * and tests that write rows directly are all seen. Rows are found from the statement itself (the
 * inserted values, `WHERE id = …`/`IN (…)` and the like), by a synchronous look-up on the same
 * connection where a row names its movie only through another column, and otherwise the change is
 * "everything" (a full rebuild: never a stale listing). A change is reported once its statement has
 * run; a rolled-back transaction leaves a superset, which costs a re-presentation only.
 */
export class ListingWriteObserver implements KyselyPlugin {
  private static readonly installed = new WeakMap<object, ListingWriteObserver>();
  private readonly listeners: Listener[] = [];
  private readonly pending = new WeakMap<object, Pending>();

  /**
   * @param query synchronous reads on the same connection
   * @param dataVersion SQLite's `PRAGMA data_version`: moves when another connection commits
   */
  constructor(
    private readonly query: SyncQuery,
    private readonly dataVersion: () => number = () => 0,
  ) {}

  /** Records the observer installed on a Kysely instance (db/database.ts does, when it opens one). */
  static register(db: object, observer: ListingWriteObserver): void {
    ListingWriteObserver.installed.set(db, observer);
  }

  /** The observer installed on this database, if it was opened by openDatabase. */
  static of(db: object): ListingWriteObserver | undefined {
    return ListingWriteObserver.installed.get(db);
  }

  /**
   * A number that moves when another process commits to the database: those writes are not seen
   * statement by statement, so a move means "everything may have changed".
   */
  externalVersion(): number {
    return this.dataVersion();
  }

  /** Calls `listener` with the change of every write statement that ran; returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const { node } = args;
    if (node.kind === 'SelectQueryNode' || this.listeners.length === 0) return node;
    let pending: Pending | null;
    try {
      pending = this.classify(node);
    } catch {
      pending = { change: ALL };
    }
    if (pending !== null) this.pending.set(args.queryId, pending);
    return node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    // (Kept, not deleted: a compiled query run again reports again.)
    const pending = this.pending.get(args.queryId);
    if (pending === undefined) return args.result;
    let change = pending.change;
    if (pending.newIds !== undefined) {
      const ids = insertedIds(args.result);
      const kind = pending.newIds === 'movie' ? 'movies' : 'files';
      change = ids === null ? ALL : merge(change, { [kind]: ids });
    }
    for (const listener of this.listeners) listener(change);
    return args.result;
  }

  private classify(node: RootOperationNode): Pending | null {
    switch (node.kind) {
      case 'InsertQueryNode':
        return this.classifyInsert(node);
      case 'UpdateQueryNode': {
        const table = tableName(node.table);
        if (table === null) return node.table === undefined ? null : { change: ALL };
        const set = new Map<string, OperationNode>();
        for (const u of node.updates ?? []) {
          const column = columnName(u.column);
          if (column !== null) set.set(column, u.value);
        }
        return this.classifyRows(table, node.where?.where, set);
      }
      case 'DeleteQueryNode': {
        const froms = node.from.froms;
        const table = froms.length === 1 ? tableName(froms[0]) : null;
        if (table === null) return froms.some((f) => touchesListed(f)) ? { change: ALL } : null;
        return this.classifyRows(table, node.where?.where, null);
      }
      case 'RawNode': {
        const text = node.sqlFragments.join('?').toLowerCase();
        if (!/^\s*(with\b[\s\S]*)?(insert|update|delete|replace)\b/.test(text)) return null;
        return [...LISTED_TABLES].some((t) => new RegExp(`\\b${t}\\b`).test(text)) ? { change: ALL } : null;
      }
      default:
        return null;
    }
  }

  private classifyInsert(node: InsertQueryNode): Pending | null {
    const table = node.into === undefined ? null : tableName(node.into);
    if (table === null || !LISTED_TABLES.has(table)) return null;
    const rows = insertedRows(node);
    if (table === 'persons') {
      // A new person is on no movie yet; an upsert that renames one changes the movies they are on.
      const updates = node.onConflict?.updates ?? [];
      const renames = updates.find((u) => columnName(u.column) === 'name');
      if (renames === undefined) return null;
      const conflict = (node.onConflict?.columns ?? []).map((c) => c.column.name);
      if (rows === null || conflict.length !== 1 || conflict[0] === undefined) return { change: ALL };
      const movies: number[] = [];
      for (const row of rows) {
        const key = row.get(conflict[0]);
        const name = literal(renames.value) ?? row.get('name');
        if (key === undefined || key === null || typeof name !== 'string') return { change: ALL };
        movies.push(
          ...this.ids(
            `select distinct pm.movie_id as id from persons p join person_movie pm on pm.person_id = p.id
             where p.${conflict[0]} = ? and p.name is not ?`,
            [key, name],
          ),
        );
      }
      return { change: { movies } };
    }
    if (table === 'binders' || table === 'library_roots') return null; // nothing lists them yet
    const via = OWNED_VIA[table];
    if (via !== undefined) {
      if (rows === null) return { change: ALL };
      // An upsert updates the row it conflicts with: the same parent only when the parent is the key.
      const conflict = (node.onConflict?.columns ?? []).map((c) => c.column.name);
      if ((node.onConflict?.updates?.length ?? 0) > 0 && !conflict.includes(via.column))
        return { change: ALL };
      const parents: number[] = [];
      for (const row of rows) {
        const parent = row.get(via.column);
        if (typeof parent === 'number') parents.push(parent);
        else if (parent !== null) return { change: ALL };
      }
      return { change: { movies: this.owners(via, parents) } };
    }
    const owned = OWNED[table];
    if (owned === undefined || rows === null) return { change: ALL };
    if (node.onConflict?.updates !== undefined && node.onConflict.updates.length > 0) {
      // An upsert updates the row it conflicts with: the same item only when the owner is the key.
      const conflict = (node.onConflict.columns ?? []).map((c) => c.column.name);
      if (!conflict.includes(owned.column)) return { change: ALL };
    }
    const owners: number[] = [];
    const extraMovies: number[] = [];
    let ownersKnown = true;
    for (const row of rows) {
      const owner = row.get(owned.column);
      if (typeof owner === 'number') owners.push(owner);
      else if (owner === null && owned.column !== 'id') continue;
      else ownersKnown = false;
      const movie = table === 'media_files' ? row.get('movie_id') : undefined;
      if (typeof movie === 'number') extraMovies.push(movie);
    }
    const change: ListingChange =
      owned.kind === 'movie'
        ? { movies: [...owners, ...extraMovies] }
        : { files: owners, movies: extraMovies };
    const userColumn = PER_USER[table];
    if (userColumn !== undefined) {
      const users = new Set(rows.map((row) => row.get(userColumn)));
      const [user] = users;
      if (users.size === 1 && typeof user === 'number') change.user = user;
    }
    if (ownersKnown) return { change };
    // New movies and files get their ids from the database: read them from the result.
    if (owned.column === 'id') return { change, newIds: owned.kind };
    return { change: ALL };
  }

  /** An UPDATE (`set` = its assignments) or DELETE of `table` restricted by `where`. */
  private classifyRows(
    table: string,
    where: OperationNode | undefined,
    set: Map<string, OperationNode> | null,
  ): Pending | null {
    if (!LISTED_TABLES.has(table)) return null;
    const keys = where === undefined ? new Map<string, unknown[]>() : constraints(where);
    const shown = SHOWN_COLUMNS[table];
    if (shown !== undefined) {
      // An UPDATE of columns nothing lists (a binder's capacity, a root's last scan) changes nothing.
      if (set !== null && ![...set.keys()].some((c) => shown.has(c))) return null;
      const ids = keys.get('id');
      if (ids === undefined) return { change: ALL };
      const through = SHOWN_THROUGH[table];
      if (through === undefined) return { change: ALL };
      const owners = this.ids(
        `select ${through.owner} as id from ${through.table} where ${through.key} in (${placeholders(ids)})`,
        ids,
      );
      return { change: through.kind === 'movie' ? { movies: owners } : { files: owners } };
    }
    const via = OWNED_VIA[table];
    if (via !== undefined) return { change: this.classifyVia(table, via, keys, set) };
    const owned = OWNED[table];
    if (owned === undefined) return null;
    const kind = owned.kind === 'movie' ? 'movies' : 'files';
    let owners: number[] | null = null;
    const direct = keys.get(owned.column);
    if (direct !== undefined) owners = direct.filter((v): v is number => typeof v === 'number');
    else if (keys.has('id')) {
      const ids = keys.get('id') ?? [];
      owners = this.ids(`select ${owned.column} as id from ${table} where id in (${placeholders(ids)})`, ids);
    } else if (table === 'media_files' && keys.has('movie_id')) {
      const movies = (keys.get('movie_id') ?? []).filter((v): v is number => typeof v === 'number');
      return { change: { movies } };
    }
    if (owners === null) return { change: ALL };
    const change: { movies?: number[]; files?: number[]; user?: number } = { [kind]: owners };
    const userColumn = PER_USER[table];
    const users = userColumn === undefined ? undefined : keys.get(userColumn);
    // Moving a person's row to another person changes both: counted as everyone's.
    if (users?.length === 1 && typeof users[0] === 'number' && set?.has(userColumn ?? '') !== true)
      change.user = users[0];
    // An UPDATE that moves rows to another item changes that item too.
    const moved = set?.get(owned.column);
    if (moved !== undefined) {
      const to = literal(moved);
      if (typeof to === 'number') change[kind] = [...owners, to];
      else if (to !== null) return { change: ALL };
    }
    if (table === 'media_files' && set?.has('movie_id') === true) {
      const to = literal(set.get('movie_id') as OperationNode);
      if (typeof to === 'number') change.movies = [to];
    }
    return { change };
  }

  /**
   * An UPDATE or DELETE of a table owned through another (a loan, through its copy): the movies of the
   * parents its WHERE names, looked up before it runs (a deleted row's parent is gone after), and of
   * the parent an UPDATE moves rows to.
   */
  private classifyVia(
    table: string,
    via: (typeof OWNED_VIA)[string],
    keys: Map<string, unknown[]>,
    set: Map<string, OperationNode> | null,
  ): ListingChange {
    const parents = keys.get(via.column);
    const ids = keys.get('id');
    let movies: number[];
    if (parents !== undefined) movies = this.owners(via, parents);
    else if (ids !== undefined) {
      movies = this.ids(
        `select distinct t.${via.owner} as id from ${table} r join ${via.table} t on t.id = r.${via.column}
         where r.id in (${placeholders(ids)})`,
        ids,
      );
    } else return ALL;
    const moved = set?.get(via.column);
    if (moved !== undefined) {
      const to = literal(moved);
      if (typeof to !== 'number') return ALL;
      movies = [...movies, ...this.owners(via, [to])];
    }
    return { movies };
  }

  /** The movies of these parent rows (a loan's copies). */
  private owners(via: (typeof OWNED_VIA)[string], parents: readonly unknown[]): number[] {
    return this.ids(
      `select distinct ${via.owner} as id from ${via.table} where id in (${placeholders(parents)})`,
      parents,
    );
  }

  private ids(sql: string, params: readonly unknown[]): number[] {
    if (params.length === 0) return [];
    return this.query(sql, params)
      .map((row) => row.id)
      .filter((id): id is number => typeof id === 'number');
  }
}

function merge(a: ListingChange, b: ListingChange): ListingChange {
  if (a.all === true || b.all === true) return ALL;
  return {
    movies: [...(a.movies ?? []), ...(b.movies ?? [])],
    files: [...(a.files ?? []), ...(b.files ?? [])],
  };
}

function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

/** The new rows' ids: RETURNING id, else the last insert rowid and the row count (one statement's rows are consecutive). */
function insertedIds(result: QueryResult<UnknownRow>): number[] | null {
  if (result.rows.length > 0) {
    const ids = result.rows.map((r) => r.id);
    return ids.every((id): id is number => typeof id === 'number') ? ids : null;
  }
  if (result.insertId === undefined || result.numAffectedRows === undefined) return null;
  const last = Number(result.insertId);
  const count = Number(result.numAffectedRows);
  if (count === 0) return [];
  return Array.from({ length: count }, (_, i) => last - count + 1 + i);
}

/** The rows of an INSERT … VALUES as column → literal maps (null when they are not literal). */
function insertedRows(node: InsertQueryNode): Map<string, unknown>[] | null {
  const columns = (node.columns ?? []).map((c) => c.column.name);
  const values = node.values;
  if (values === undefined || !ValuesNode.is(values)) return node.defaultValues === true ? [] : null;
  const rows: Map<string, unknown>[] = [];
  for (const item of values.values) {
    const row = new Map<string, unknown>();
    if (PrimitiveValueListNode.is(item)) {
      item.values.forEach((v, i) => row.set(columns[i] ?? '', v));
    } else {
      item.values.forEach((v, i) => {
        const value = literal(v);
        // A non-literal value (an expression, a default) is left out: its column reads as unknown.
        if (value !== null || ValueNode.is(v)) row.set(columns[i] ?? '', value);
      });
    }
    rows.push(row);
  }
  return rows;
}

/** A literal's value, or null when the node is not a literal. */
function literal(node: OperationNode): unknown {
  return ValueNode.is(node) ? node.value : null;
}

function tableName(node: OperationNode | undefined): string | null {
  if (node === undefined) return null;
  if (TableNode.is(node)) return node.table.identifier.name;
  if (AliasNode.is(node)) return tableName(node.node);
  return null;
}

function touchesListed(node: OperationNode): boolean {
  const name = tableName(node);
  return name === null || LISTED_TABLES.has(name);
}

function columnName(node: OperationNode): string | null {
  if (ColumnNode.is(node)) return node.column.name;
  if (ReferenceNode.is(node)) return ColumnNode.is(node.column) ? node.column.column.name : null;
  return null;
}

/**
 * The `column = value` and `column IN (values)` terms a WHERE is the conjunction of (an OR, or any
 * other shape, restricts nothing that can be relied on and is skipped).
 */
function constraints(node: OperationNode): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const visit = (n: OperationNode): void => {
    if (AndNode.is(n)) {
      visit(n.left);
      visit(n.right);
    } else if (ParensNode.is(n)) {
      visit(n.node);
    } else if (BinaryOperationNode.is(n)) {
      const operator = OperatorNode.is(n.operator) ? n.operator.operator : null;
      const column = columnName(n.leftOperand);
      if (column === null || out.has(column) || (operator !== '=' && operator !== 'in')) return;
      const right = n.rightOperand;
      if (ValueNode.is(right)) out.set(column, [right.value]);
      else if (PrimitiveValueListNode.is(right)) out.set(column, [...right.values]);
      else if (ValueListNode.is(right) && right.values.every((v) => ValueNode.is(v))) {
        out.set(column, right.values.map(literal));
      }
    }
  };
  visit(node);
  return out;
}
