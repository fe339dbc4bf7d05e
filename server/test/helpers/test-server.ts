import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContractValidator } from '@reelshelf/contract';
import { type Config, loadConfig } from '../../src/config.ts';
import { createServer, type ReelshelfServer, type ServerOverrides } from '../../src/server.ts';
import type { ListingViewer } from '../../src/services/library/library.service.ts';
import { dropTestDatabase, testDatabaseEnv } from './test-database.ts';

export interface TestServer {
  url: string;
  token: string;
  dataDir: string;
  server: ReelshelfServer;
  config: Config;
  /** fetch against the server with the admin token (unless `auth: false`). */
  api(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
  close(): Promise<void>;
}

/** A real server on 127.0.0.1 (random port) with its own temporary data dir and database. */
export async function startTestServer(
  env: Record<string, string> = {},
  overrides: ServerOverrides = {},
): Promise<TestServer> {
  const dataDir = env.REELSHELF_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'reelshelf-test-'));
  const config = loadConfig({
    REELSHELF_HOST: '127.0.0.1',
    REELSHELF_PORT: '0',
    REELSHELF_LOG_LEVEL: 'silent',
    // Scans happen when a test asks for them; root-watcher.test.ts turns watching on.
    REELSHELF_WATCH: 'off',
    // Never Jellyfin's real ports in tests: a test that needs them asks for port 0.
    REELSHELF_JELLYFIN_PORT: 'off',
    REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
    // SSDP multicasts: only ever inside a test's own network namespace (helpers/netns.ts).
    REELSHELF_DLNA_SSDP_PORT: 'off',
    // Seek thumbnails would start an ffmpeg job per scanned film: the trickplay tests turn them on.
    REELSHELF_TRICKPLAY: 'off',
    // The engine under test: SQLite in the data dir, or the data dir's PostgreSQL database.
    ...testDatabaseEnv(dataDir),
    ...env,
    REELSHELF_DATA_DIR: dataDir,
  });
  const server = await createServer(config, overrides);
  const url = await server.listen();
  const token = server.apiToken;
  return {
    url,
    token,
    dataDir,
    server,
    config,
    api(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.auth !== false && !headers.has('authorization'))
        headers.set('authorization', `Bearer ${token}`);
      return fetch(`${url}${path}`, { ...init, headers });
    },
    async close() {
      await server.close();
      if (env.REELSHELF_DATA_DIR === undefined) {
        rmSync(dataDir, { recursive: true, force: true });
        if (env.REELSHELF_DATABASE_URL === undefined) dropTestDatabase(config.databaseUrl);
      }
    },
  };
}

/** JSON request init with the right content type. */
export function jsonBody(method: string, body: unknown): RequestInit {
  return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** The body of a response that must answer `status` (the body is the message when it does not). */
export async function readJson<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as T;
}

export const contract = createContractValidator();

/**
 * The person and credential of the admin token (the first admin, user 1 of a fresh database): what
 * the stream URLs of a listing fetched with the admin bearer are signed for.
 */
export const ADMIN = {
  userId: 1,
  limit: null,
  credential: { kind: 'admin-token', id: null },
} as const satisfies ListingViewer;
