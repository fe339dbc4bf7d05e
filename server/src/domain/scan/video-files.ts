/**
 * Which files of a library folder are videos, which of those are extras, and which entries the walker skips.
 * Pure functions over names and library-relative paths (`/` or `\` separated), no I/O.
 *
 * The rules follow Jellyfin (reference/metadata.md §4.1; `Emby.Naming/Common/NamingOptions.cs`,
 * `Emby.Naming/Video/ExtraRuleResolver.cs`).
 */
import { RELEASE_SEPARATOR, RELEASE_WORDS_ALWAYS } from './release-words.ts';

/** Jellyfin's `NamingOptions.VideoFileExtensions`, lower-case with the leading dot (as `path.extname` gives). */
export const VIDEO_EXTENSIONS: readonly string[] = Object.freeze([
  '.001',
  '.3g2',
  '.3gp',
  '.amv',
  '.asf',
  '.asx',
  '.avi',
  '.bin',
  '.bivx',
  '.divx',
  '.dv',
  '.dvr-ms',
  '.f4v',
  '.fli',
  '.flv',
  '.ifo',
  '.img',
  '.iso',
  '.m2t',
  '.m2ts',
  '.m2v',
  '.m4v',
  '.mkv',
  '.mk3d',
  '.mov',
  '.mp4',
  '.mpe',
  '.mpeg',
  '.mpg',
  '.mts',
  '.mxf',
  '.nrg',
  '.nsv',
  '.nuv',
  '.ogg',
  '.ogm',
  '.ogv',
  '.pva',
  '.qt',
  '.rec',
  '.rm',
  '.rmvb',
  '.strm',
  '.svq3',
  '.tp',
  '.ts',
  '.ty',
  '.viv',
  '.vob',
  '.vp3',
  '.webm',
  '.wmv',
  '.wtv',
  '.xvid',
]);

const VIDEO_EXTENSION_SET: ReadonlySet<string> = new Set(VIDEO_EXTENSIONS);

/** A directory holding one of these files is skipped together with everything below it (Jellyfin `.ignore`). */
export const IGNORE_MARKER_FILES: readonly string[] = Object.freeze(['.ignore']);

/** Disc structures: the folder holding one of these is one movie, its contents are never scanned one by one. */
export const DISC_STRUCTURE_FOLDERS: readonly string[] = Object.freeze(['VIDEO_TS', 'BDMV']);

/** What kind of extra a file is; `extra` is Jellyfin's "Unknown" (`extras/`, `other/`, `-extra`, `-other`). */
export type ExtraKind =
  | 'trailer'
  | 'sample'
  | 'featurette'
  | 'behind_the_scenes'
  | 'deleted_scene'
  | 'interview'
  | 'scene'
  | 'short'
  | 'clip'
  | 'theme_video'
  | 'extra';

/** Jellyfin's extras folder names (`ExtraRuleType.DirectoryName`), compared case-insensitively. */
const EXTRA_FOLDERS: ReadonlyMap<string, ExtraKind> = new Map<string, ExtraKind>([
  ['trailers', 'trailer'],
  ['backdrops', 'theme_video'],
  ['theme-music', 'theme_video'],
  ['behind the scenes', 'behind_the_scenes'],
  ['deleted scenes', 'deleted_scene'],
  ['interviews', 'interview'],
  ['scenes', 'scene'],
  ['samples', 'sample'],
  // Not Jellyfin's: a scene release keeps its sample in `Sample/` (`the.matrix.sample.mkv`, `grp-tm.mkv`).
  ['sample', 'sample'],
  ['shorts', 'short'],
  ['featurettes', 'featurette'],
  ['extras', 'extra'],
  ['extra', 'extra'],
  ['other', 'extra'],
  ['clips', 'clip'],
]);

/**
 * Whole base names (`ExtraRuleType.Filename`): `trailer.mkv`, `sample.avi`. Also `<folder name> trailer`
 * inside that folder (`Heat (1995)/Heat (1995) sample.mkv`): the word follows the film's whole name.
 */
const EXTRA_FILE_NAMES: ReadonlyMap<string, ExtraKind> = new Map<string, ExtraKind>([
  ['trailer', 'trailer'],
  ['sample', 'sample'],
]);

/**
 * Base-name suffixes (`ExtraRuleType.Suffix`), in Jellyfin's rule order. Only trailer and sample accept
 * `.`, `_` and `- ` separators; the others need a hyphen. A bare space is no separator: `I Live In A
 * Trailer` and `The DNA Sample` are films whose titles end in a word, not extras (nor are their dotted and
 * underscored spellings: {@link isSuffixAfter}). `-deletedscene` comes before `-deleted` only for
 * readability: both map to the same kind.
 */
const EXTRA_SUFFIXES: readonly (readonly [string, ExtraKind])[] = [
  ['-trailer', 'trailer'],
  ['.trailer', 'trailer'],
  ['_trailer', 'trailer'],
  ['- trailer', 'trailer'],
  ['-sample', 'sample'],
  ['.sample', 'sample'],
  ['_sample', 'sample'],
  ['- sample', 'sample'],
  ['-scene', 'scene'],
  ['-clip', 'clip'],
  ['-interview', 'interview'],
  ['-behindthescenes', 'behind_the_scenes'],
  ['-deletedscene', 'deleted_scene'],
  ['-deleted', 'deleted_scene'],
  ['-featurette', 'featurette'],
  ['-short', 'short'],
  ['-extra', 'extra'],
  ['-other', 'extra'],
];

/** Suffixes whose separator may also be the one between a title's words (`The.DNA.Sample`, `I_Live_In_A_Trailer`). */
const WORD_SEPARATOR_SUFFIXES: ReadonlySet<string> = new Set(['.trailer', '_trailer', '.sample', '_sample']);

/**
 * What a release name carries before its sample's or trailer's suffix: a year after the title's first
 * word, or a release word (`1080p`, `BluRay`, `x264`…). `Movie.2010.1080p.sample` is a release's sample.
 */
const RELEASE_EVIDENCE = new RegExp(
  `${RELEASE_SEPARATOR}(?:(?:18|19|20)\\d{2}|${RELEASE_WORDS_ALWAYS}|hevc|webrip|remux)(?=${RELEASE_SEPARATOR}|$)`,
  'iu',
);

/**
 * Whether `suffix` ends a name as an extra's suffix rather than as the last word of a title. Jellyfin takes
 * any `.sample`/`_trailer` ending, and so hides `The.DNA.Sample.mkv` and `I_Live_In_A_Trailer.mkv`, whole
 * films. Here a `.` or `_` before the word counts only when it is not how the title joins its words (the
 * name before it has spaces, or no such character: `300.trailer`, `Harry Potter….trailer`), or when a year
 * or release word precedes it (`Movie.2010.1080p.sample`, `The_Matrix_1999_trailer`).
 * @param before the base name before the suffix, lower-case
 */
function isSuffixAfter(before: string, suffix: string): boolean {
  if (!WORD_SEPARATOR_SUFFIXES.has(suffix)) return true;
  const joinsTitleWords = !before.includes(' ') && before.includes(suffix.charAt(0));
  return !joinsTitleWords || RELEASE_EVIDENCE.test(before);
}

/**
 * Entries the walker never descends into or reports: hidden entries (including macOS `._` resource forks)
 * and the system/NAS folders from Jellyfin's ignore patterns.
 */
const SKIPPED_ENTRY_NAMES: ReadonlySet<string> = new Set([
  '@eadir',
  '#recycle',
  '#snapshot',
  '$recycle.bin',
  'system volume information',
  'lost+found',
]);

function splitPath(relativePath: string): string[] {
  return relativePath
    .normalize('NFC')
    .split(/[\\/]+/)
    .filter((segment) => segment !== '' && segment !== '.');
}

/** The extension of a file name, lower-case with its dot, or '' when there is none. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

/** A file name without its extension (only the last one). */
function baseNameOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name : name.slice(0, dot);
}

/**
 * Whether a file name has one of Jellyfin's video extensions. macOS resource forks (`._Movie.mkv`) are
 * not videos although they carry the extension.
 * @param name a file name or path
 * @example isVideoFile('Heat (1995).MKV') === true
 */
export function isVideoFile(name: string): boolean {
  const fileName = splitPath(name).at(-1) ?? '';
  if (fileName.startsWith('._')) return false;
  return VIDEO_EXTENSION_SET.has(extensionOf(fileName));
}

/**
 * Whether a directory entry must be skipped by the walker (hidden, or a system/NAS folder). The walker
 * checks {@link isIgnoreMarker} on a directory's entries first: `.ignore` is itself a hidden name.
 * @param name one directory entry name
 */
export function isSkippedEntryName(name: string): boolean {
  return name.startsWith('.') || SKIPPED_ENTRY_NAMES.has(name.toLowerCase());
}

/**
 * Whether an entry of a directory is an ignore marker, so the directory and everything below it are skipped.
 * @param name one directory entry name
 */
export function isIgnoreMarker(name: string): boolean {
  return IGNORE_MARKER_FILES.includes(name.toLowerCase());
}

/**
 * For a path inside a `VIDEO_TS/` or `BDMV/` structure, the library-relative folder that holds the structure
 * (`''` for the library root): that folder is the movie, and the structure is scanned as one unit.
 * @param relativePath library-relative path of a file
 * @returns the holding folder, or null when the path is not inside a disc structure
 * @example discStructureRoot('Movie (2021)/VIDEO_TS/VTS_01_1.VOB') === 'Movie (2021)'
 */
export function discStructureRoot(relativePath: string): string | null {
  const segments = splitPath(relativePath);
  const folders = segments.slice(0, -1);
  const discFolders = DISC_STRUCTURE_FOLDERS.map((folder) => folder.toLowerCase());
  const index = folders.findIndex((folder) => discFolders.includes(folder.toLowerCase()));
  return index < 0 ? null : folders.slice(0, index).join('/');
}

/**
 * The kind of extra a video is, or null when it is a candidate main movie. Rules in Jellyfin's order:
 * an extras folder, the whole base name `trailer`/`sample`, then a suffix (trailing digits ignored, so
 * `-trailer2` counts). A word inside or at the end of a title never makes an extra
 * (`I Live In A Trailer (2011).mkv` is a film).
 *
 * Deviation from Jellyfin, on purpose: any folder of the path counts (so `extras/Disc 2/x.mkv` is an
 * extra), except the first one under the library root, which is the user's own grouping (a top-level
 * `Shorts/` or `Other/` folder holds movies, not extras of some movie).
 * @param relativePath library-relative path of a video file
 * @example extraKind('Movie (2000)/extras/Making of.mkv') === 'extra'
 * @example extraKind('Movie (2000)/Movie (2000)-trailer.mp4') === 'trailer'
 */
export function extraKind(relativePath: string): ExtraKind | null {
  const segments = splitPath(relativePath);
  const fileName = segments.at(-1) ?? '';
  const folders = segments.slice(1, -1);
  for (let i = folders.length - 1; i >= 0; i--) {
    const kind = EXTRA_FOLDERS.get((folders[i] ?? '').toLowerCase());
    if (kind !== undefined) return kind;
  }

  const base = baseNameOf(fileName).toLowerCase();
  const byName = EXTRA_FILE_NAMES.get(base);
  if (byName !== undefined) return byName;
  const parent = segments.at(-2)?.toLowerCase();
  if (parent !== undefined && base.startsWith(`${parent} `)) {
    const afterFolderName = EXTRA_FILE_NAMES.get(base.slice(parent.length + 1).replace(/\s*[0-9]+$/, ''));
    if (afterFolderName !== undefined) return afterFolderName;
  }

  const withoutDigits = base.replace(/[0-9]+$/, '');
  for (const [suffix, kind] of EXTRA_SUFFIXES) {
    if (withoutDigits.length <= suffix.length || !withoutDigits.endsWith(suffix)) continue;
    if (isSuffixAfter(withoutDigits.slice(0, -suffix.length), suffix)) return kind;
  }
  return null;
}
