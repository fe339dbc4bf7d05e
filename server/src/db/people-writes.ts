import {
  AliasNode,
  ColumnNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  TableNode,
  type UnknownRow,
} from 'kysely';

/** Tables whose rows say who a request is: the kept sessions, keys and people (PeopleCache). */
export const PEOPLE_TABLES = ['users', 'sessions', 'api_keys'] as const;

/** Columns that record a use only: writing them changes nobody's access. */
export const USE_COLUMNS = new Set(['last_seen_at', 'last_used_at', 'last_used_address']);

function tableOf(node: OperationNode | undefined): string | null {
  if (node === undefined) return null;
  if (TableNode.is(node)) return node.table.identifier.name;
  if (AliasNode.is(node)) return tableOf(node.node);
  return null;
}

function isPeopleTable(name: string | null): boolean {
  return name !== null && (PEOPLE_TABLES as readonly string[]).includes(name);
}

/**
 * Sees every statement run through Kysely that may change who a request is — an UPDATE or DELETE
 * of users, sessions or api_keys (other than a use's timestamp), an INSERT into users, raw SQL that
 * names them — and tells its listeners once the statement ran. Installed on the one Kysely instance
 * (db/database.ts) beside the listing's observer: whoever writes (a service, a test, a future route)
 * cannot forget to end a kept session. A new session or key needs no telling (unknown secrets are
 * never kept). Another process's commits are seen through `PRAGMA data_version` instead.
 */
export class PeopleWriteObserver implements KyselyPlugin {
  private static readonly installed = new WeakMap<object, PeopleWriteObserver>();
  private readonly listeners: (() => void)[] = [];
  private readonly pending = new WeakSet<object>();

  static register(db: object, observer: PeopleWriteObserver): void {
    PeopleWriteObserver.installed.set(db, observer);
  }

  static of(db: object): PeopleWriteObserver | undefined {
    return PeopleWriteObserver.installed.get(db);
  }

  subscribe(listener: () => void): void {
    this.listeners.push(listener);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.listeners.length > 0 && PeopleWriteObserver.changesPeople(args.node)) {
      this.pending.add(args.queryId);
    }
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.pending.has(args.queryId)) for (const listener of this.listeners) listener();
    return Promise.resolve(args.result);
  }

  private static changesPeople(node: RootOperationNode): boolean {
    switch (node.kind) {
      case 'InsertQueryNode':
        return tableOf(node.into) === 'users';
      case 'UpdateQueryNode': {
        if (!isPeopleTable(tableOf(node.table))) return false;
        // A column set in another shape than a plain name counts as a change.
        return (node.updates ?? []).some(
          (u) => !ColumnNode.is(u.column) || !USE_COLUMNS.has(u.column.column.name),
        );
      }
      case 'DeleteQueryNode':
        return node.from.froms.some((f) => isPeopleTable(tableOf(f)));
      case 'RawNode': {
        const text = node.sqlFragments.join('?').toLowerCase();
        if (!/^\s*(with\b[\s\S]*)?(insert|update|delete|replace)\b/.test(text)) return false;
        return PEOPLE_TABLES.some((t) => new RegExp(`\\b${t}\\b`).test(text));
      }
      default:
        return false;
    }
  }
}
