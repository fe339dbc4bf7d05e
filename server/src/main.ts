import { ConfigError, loadConfig } from './config.ts';
import { createServer } from './server.ts';

/** `npm start`: serve the library until SIGTERM/SIGINT, then shut down cleanly. */
async function main(): Promise<void> {
  if (typeof process.loadEnvFile === 'function') {
    try {
      process.loadEnvFile('.env');
    } catch {
      // No .env file: the environment alone configures the server.
    }
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`reelshelf: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const server = await createServer(config);
  // Which media tools run (env, PATH or bundled) and what is off, before the address people look for.
  for (const line of server.services.status.toolLines()) process.stdout.write(`${line}\n`);
  for (const warning of server.services.status.warnings()) process.stdout.write(`warning: ${warning}\n`);
  const url = await server.listen();
  const shown = url.replace('://0.0.0.0', '://127.0.0.1');
  // One write: the token is never split from the line that says the server is up (a script that
  // waits for "listening on" reads the token in the same chunk).
  const token = server.apiTokenCreated
    ? `Admin token (shown once; kept in ${config.dataDir}/api-token):\n  ${server.apiToken}\n`
    : '';
  process.stdout.write(`reelshelf listening on ${shown} (data dir ${config.dataDir})\n${token}`);
  if (server.jellyfin.url !== null) {
    process.stdout.write(
      `Jellyfin apps: ${server.jellyfin.url.replace('://0.0.0.0', '://127.0.0.1')} (or ${shown}/jellyfin)\n`,
    );
  }
  for (const warning of server.jellyfin.warnings) process.stdout.write(`warning: ${warning}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`reelshelf: ${signal}, finishing in-flight requests\n`);
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`reelshelf: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`reelshelf: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
