/** Types of scripts/chromium.mjs (plain JavaScript, so `npm test`'s prelude runs it without tsx). */
export declare const CHROMIUM_NAMES: readonly string[];
export declare const CHROMIUM_VARIABLE: 'REELSHELF_CHROMIUM';
export interface ChromiumLookup {
  /** The executable to launch, or null when none was found. */
  path: string | null;
  source: 'env' | 'path';
  /** Where it was found, or where it was looked for. */
  reason: string;
}
export declare function findOnPath(
  name: string,
  env?: Record<string, string | undefined>,
  extraDirs?: readonly string[],
): string | null;
export declare function findChromium(env?: Record<string, string | undefined>): ChromiumLookup;
