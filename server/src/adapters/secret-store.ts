import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Secret {
  value: string;
  /** True when the secret was generated just now (so the caller may print it once). */
  created: boolean;
}

/**
 * Keeps generated secrets (admin token, playback-token signing key) as files in the data dir,
 * readable by the owner only (mode 0600).
 */
export class SecretStore {
  constructor(private readonly dataDir: string) {}

  /**
   * Reads the identifier `name` (the DLNA UDN), making it with `make` on first use or when the file
   * holds something `valid` refuses (a hand-edited file): the same value across restarts.
   */
  getOrCreateId(name: string, make: () => string, valid: (value: string) => boolean): string {
    mkdirSync(this.dataDir, { recursive: true });
    const file = join(this.dataDir, name);
    if (existsSync(file)) {
      const value = readFileSync(file, 'utf8').trim();
      if (valid(value)) return value;
    }
    const value = make();
    writeFileSync(file, `${value}\n`, { mode: 0o600 });
    return value;
  }

  /** The secret `name` if this data dir has a non-empty file of that name (nothing is made). */
  read(name: string): string | undefined {
    const file = join(this.dataDir, name);
    if (!existsSync(file)) return undefined;
    const value = readFileSync(file, 'utf8').trim();
    return value.length > 0 ? value : undefined;
  }

  /** Reads the secret `name`, generating `bytes` random bytes (base64url) on first use. */
  getOrCreate(name: string, bytes = 32): Secret {
    mkdirSync(this.dataDir, { recursive: true });
    const file = join(this.dataDir, name);
    if (existsSync(file)) {
      const value = readFileSync(file, 'utf8').trim();
      if (value.length > 0) return { value, created: false };
    }
    const value = randomBytes(bytes).toString('base64url');
    // `wx` refuses to overwrite a file another process wrote in the meantime.
    writeFileSync(file, `${value}\n`, { mode: 0o600, flag: existsSync(file) ? 'w' : 'wx' });
    chmodSync(file, 0o600);
    return { value, created: true };
  }
}
