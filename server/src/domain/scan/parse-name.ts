/**
 * What a movie file's path says about the movie: title, year, provider ids, version label, part number,
 * resolution and source. Also the reader for Kodi `.nfo` files. Pure, no I/O.
 *
 * Rules: reference/metadata.md §4.1–4.3 (Jellyfin naming, Radarr parser, Kodi NFO) and stack.md §5
 * (the known faults of `@ctrl/video-filename-parser`, worked around here: string years, `[tmdbid-N]`
 * read as the release group, `WEBDL` and `720P`/`480P` guessed when the name has no such token).
 */
import { filenameParse, parseResolution, parseSource } from '@ctrl/video-filename-parser';
import { normalizeTitle } from '../titles.ts';
import { RELEASE_SEPARATOR, RELEASE_WORDS_ALWAYS, RELEASE_WORDS_AT_END } from './release-words.ts';
import { DISC_STRUCTURE_FOLDERS, VIDEO_EXTENSIONS, extraKind } from './video-files.ts';

export type VideoResolution = '2160p' | '1080p' | '720p' | '576p' | '540p' | '480p';

export type VideoSource =
  | 'bluray'
  | 'webdl'
  | 'webrip'
  | 'dvd'
  | 'cam'
  | 'screener'
  | 'ppv'
  | 'telesync'
  | 'telecine'
  | 'workprint'
  | 'tv';

export interface ParsedMovieName {
  /** Clean display title ('' only when the path holds no usable name at all). */
  title: string;
  year: number | null;
  tmdbId: number | null;
  /** `tt` + 7–8 digits, lower-case. */
  imdbId: string | null;
  /**
   * Jellyfin version label (`- 1080p`, `- Director's Cut`), else Plex's `{edition-…}` tag, else the edition
   * words of a release name (`Extended`, `Director's Cut`, `Criterion`…; several joined with ", ").
   */
  editionLabel: string | null;
  resolution: VideoResolution | null;
  /** Only when the name has a source token; never guessed. */
  source: VideoSource | null;
  /** 1-based part of a stacked movie (`cd1`, `part2`, `disc 1`, `pt1`, `cd a`). */
  partNumber: number | null;
}

/** The fields of a Kodi/Jellyfin `.nfo` that matter for matching. */
export interface NfoInfo {
  title: string | null;
  year: number | null;
  tmdbId: number | null;
  imdbId: string | null;
}

interface ReleaseInfo {
  title: string;
  year: number | null;
  editionLabel: string | null;
  resolution: VideoResolution | null;
  source: VideoSource | null;
}

interface NameTags {
  tmdbId: number | null;
  imdbId: string | null;
  /** Plex's `{edition-Director's Cut}`. */
  edition: string | null;
  /** The text with the tags removed and spaces collapsed. */
  rest: string;
}

const VIDEO_EXTENSION_SET: ReadonlySet<string> = new Set(VIDEO_EXTENSIONS);
const DISC_FOLDER_SET: ReadonlySet<string> = new Set(DISC_STRUCTURE_FOLDERS.map((f) => f.toLowerCase()));

// metadata.md §4.1: accept [tmdbid-N], [tmdbid=N], [tmdb-N], {tmdb-N}, {tmdbid-N}, bare tmdbid-N; the same
// for imdb, plus a bare tt1234567(8) anywhere (Radarr's ReportImdbId).
const TMDB_TAG =
  /\[\s*tmdb(?:id)?\s*[-=]\s*(\d{1,10})\s*\]|\{\s*tmdb(?:id)?\s*[-=]\s*(\d{1,10})\s*\}|\btmdb(?:id)?[-=](\d{1,10})\b/giu;
const IMDB_TAG =
  /\[\s*imdb(?:id)?\s*[-=]\s*(tt\d{7,8})\s*\]|\{\s*imdb(?:id)?\s*[-=]\s*(tt\d{7,8})\s*\}|\bimdb(?:id)?[-=](tt\d{7,8})\b|(?<![\p{L}\p{N}])(tt\d{7,8})(?!\p{N})/giu;

/** Plex's edition tag, `{edition-Director's Cut}`; Jellyfin ignores it, we read it like `{tmdb-N}`. */
const EDITION_TAG = /\{\s*edition-([^}]*)\}/giu;

/** Jellyfin's folder/file form after id tags are removed: `Title (Year)`. */
const TITLE_YEAR_FORM = /^(?<title>.*?\S)\s*\((?<year>(?:18|19|20)\d{2})\)$/u;
/** `Title (Year) - label` without a matching folder (older Jellyfin docs: space-hyphen-space). */
const TITLE_YEAR_WITH_LABEL = /^(?<head>.*?\S\s*\((?:18|19|20)\d{2}\))\s+-\s+(?<label>\S.*)$/u;
/** A year in brackets anywhere in a version label: `(2003)`, `[2003]`. */
const YEAR_IN_BRACKETS = /[([]((?:18|19|20)\d{2})[)\]]/gu;
/** What may follow the folder name in a multi-version file name: `-`, `.`, `_` (spaces allowed) or `[...]`. */
const LABEL_AFTER_FOLDER = /^\s*(?:[-._]\s*)+(?<label>\S.*?)\s*$|^\s*\[(?<bracketed>[^\]]+)\]\s*$/u;

// Jellyfin's VideoFileStackingRules (digits, or a–d), end-anchored; a trailing `-GROUP` is tolerated.
const PART_SUFFIX =
  /^(?<name>.*?)(?:(?<=[\])}])|[ _.-]+)[([]?(?<type>cd|dvd|part|pt|dis[ck])(?<gap>[ _.-]*)(?<number>[0-9]{1,2}|[a-d])[)\]]?(?:-[a-z0-9]+)?$/iu;
const PART_ONLY = /^[([]?(?<type>cd|dvd|part|pt|dis[ck])[ _.-]*(?<number>[0-9]{1,2}|[a-d])[)\]]?$/iu;
const HAS_YEAR = /(?:^|[^0-9])(?:18|19|20)\d{2}(?![0-9])/u;

/** File names that say nothing about the movie (the folder names it). */
const GENERIC_NAME =
  /^(?:|movie|film|video|feature|main|index|title|default|video_ts|bdmv|vts_\d+_\d+|title_?t?\d+|[a-z]\d_t\d+|\d+|[0-9a-f]{16,}|(?:cd|dvd|part|pt|dis[ck])[ _.-]*(?:\d{1,2}|[a-d]))$/iu;

const TOKEN = /[\p{L}\p{N}]+/gu;

/**
 * A calendar date in a name (`2013.12.09`, `2013-12-09`, `20131209`) is part of the title, never its year
 * (Jellyfin's CleanDateTime: `My Movie 2013-12-09 2013` is `My Movie 2013-12-09` of 2013).
 */
const DATE_IN_NAME =
  /(?<![0-9])(?:18|19|20)\d{2}(?:([-._])(?:0[1-9]|1[0-2])\1(?:0[1-9]|[12]\d|3[01])|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?![0-9])/gu;
/** Stands in for a date while the name is parsed: one plain word the release parser leaves alone. */
const DATE_STAND_IN = /Zqdate([a-h])/giu;
const STAND_IN_LETTERS = 'abcdefgh';

const RELEASE_WORD = new RegExp(
  `(?<=${RELEASE_SEPARATOR})(?:(?<always>${RELEASE_WORDS_ALWAYS})|${RELEASE_WORDS_AT_END})(?=${RELEASE_SEPARATOR}|$)`,
  'giu',
);
const ONLY_RELEASE_WORDS = new RegExp(
  `^(?:${RELEASE_SEPARATOR}+(?:${RELEASE_WORDS_ALWAYS}|${RELEASE_WORDS_AT_END})(?=${RELEASE_SEPARATOR}|$))*${RELEASE_SEPARATOR}*$`,
  'iu',
);
const ARTICLES: ReadonlySet<string> = new Set(['the', 'a', 'an']);

/** Words the parser's "edition before year" pattern may put between title and year (`Title.Special.Edition.2011`). */
const EDITION_WORDS: ReadonlySet<string> = new Set([
  'director',
  'directors',
  's',
  'collector',
  'collectors',
  'theatrical',
  'anniversary',
  'the',
  'uncut',
  'ultimate',
  'final',
  'extended',
  'rogue',
  'special',
  'despecialized',
  'cut',
  'edition',
  'version',
  'uncensored',
  'remastered',
  'unrated',
  'imax',
  'fan',
  'edit',
  'restored',
  'criterion',
  'redux',
]);

/**
 * Edition words in a release name → label, in output order. Each match is removed before the next pattern
 * runs, so `Ultimate Cut` does not also yield `Ultimate Edition`. Text is lower-cased with `.`/`_` as spaces.
 */
const EDITION_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/\bdirector'?s?'?(?:\s*(?:cut|edition|version))?\b/u, "Director's Cut"],
  [/\bfinal\s+cut\b/u, 'Final Cut'],
  [/\brogue\s+cut\b/u, 'Rogue Cut'],
  [/\bultimate\s+cut\b/u, 'Ultimate Cut'],
  [/\bextended(?:\s+(?:cut|edition|version))?\b/u, 'Extended'],
  [/\btheatrical(?:\s+(?:cut|edition|version))?\b/u, 'Theatrical'],
  [/\bunrated\b/u, 'Unrated'],
  [/\buncut\b/u, 'Uncut'],
  [/\buncensored\b/u, 'Uncensored'],
  [/\bspecial\s+edition\b/u, 'Special Edition'],
  [/\bultimate(?:\s+edition)?\b/u, 'Ultimate Edition'],
  [/\bcollector'?s?\s+edition\b/u, "Collector's Edition"],
  [/\b(?:\d{1,3}(?:st|nd|rd|th)?\s+)?anniversary(?:\s+edition)?\b/u, 'Anniversary Edition'],
  [/\bredux\b/u, 'Redux'],
  [/\bremastered\b/u, 'Remastered'],
  [/\brestored\b/u, 'Restored'],
  [/\bimax\b/u, 'IMAX'],
  [/\bcriterion(?:\s+collection)?\b/u, 'Criterion'],
  [/\bdespecialized(?:\s+edition)?\b/u, 'Despecialized'],
  [/\bfan\s?edit\b/u, 'Fan Edit'],
  [/\bopen\s+matte\b/u, 'Open Matte'],
  [/\b3d\b/u, '3D'],
];

function splitPath(relativePath: string): string[] {
  return relativePath
    .normalize('NFC')
    .split(/[\\/]+/)
    .filter((segment) => segment !== '' && segment !== '.');
}

function stripVideoExtension(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0) return fileName;
  return VIDEO_EXTENSION_SET.has(fileName.slice(dot).toLowerCase()) ? fileName.slice(0, dot) : fileName;
}

function collapseSpaces(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

function toTmdbId(digits: string | undefined): number | null {
  const trimmed = digits?.trim();
  if (trimmed === undefined || !/^\d{1,10}$/u.test(trimmed)) return null;
  const value = Number.parseInt(trimmed, 10);
  return Number.isSafeInteger(value) && value > 0 && value <= 2_147_483_647 ? value : null;
}

/** Removes every provider id and edition tag from `text`; the first tag of each kind wins. */
function takeTags(text: string): NameTags {
  let tmdbId: number | null = null;
  let imdbId: string | null = null;
  let edition: string | null = null;
  const withoutEdition = text.replace(EDITION_TAG, (_match: string, label: string): string => {
    const clean = collapseSpaces(label);
    if (clean !== '') edition ??= clean;
    return ' ';
  });
  const withoutTmdb = withoutEdition.replace(
    TMDB_TAG,
    (_match: string, a?: string, b?: string, c?: string): string => {
      tmdbId ??= toTmdbId(a ?? b ?? c);
      return ' ';
    },
  );
  const rest = withoutTmdb.replace(
    IMDB_TAG,
    (_match: string, a?: string, b?: string, c?: string, d?: string): string => {
      const value = a ?? b ?? c ?? d;
      if (value !== undefined) imdbId ??= value.toLowerCase();
      return ' ';
    },
  );
  return { tmdbId, imdbId, edition, rest: collapseSpaces(rest) };
}

function partFromToken(number: string): number {
  const letter = number.toLowerCase();
  if (/^[a-d]$/u.test(letter)) return letter.charCodeAt(0) - 'a'.charCodeAt(0) + 1;
  return Number.parseInt(number, 10);
}

/**
 * Splits a stacking suffix off a base name. `cd`/`dvd`/`disc` always count; `part`/`pt` count after a
 * year, or without one when glued to a digit (`Movie part1`, `Movie.pt2`, `Movie - part1`, as Jellyfin
 * stacks them), so a title such as `Harry.Potter.and.the.Deathly.Hallows.Part.1` or `… Part 1` (word,
 * separator, number, no year) keeps its words. `DVD5`/`DVD9` are disc sizes.
 */
function splitPart(base: string): { name: string; part: number | null } {
  const whole = PART_ONLY.exec(base);
  if (whole?.groups?.number !== undefined) return { name: '', part: partFromToken(whole.groups.number) };
  const match = PART_SUFFIX.exec(base);
  const groups = match?.groups;
  if (groups?.name === undefined || groups.type === undefined || groups.number === undefined) {
    return { name: base, part: null };
  }
  const type = groups.type.toLowerCase();
  if (type === 'dvd' && /^[59]$/u.test(groups.number)) return { name: base, part: null };
  const glued = (groups.gap ?? '') === '' && /^[0-9]+$/u.test(groups.number);
  if ((type === 'part' || type === 'pt') && !glued && !HAS_YEAR.test(groups.name)) {
    return { name: base, part: null };
  }
  const part = partFromToken(groups.number);
  return part > 0 ? { name: groups.name, part } : { name: base, part: null };
}

/**
 * The part a folder holds: `CD2/` (the folder is only the part, the movie is its parent) or a folder
 * named with a part suffix, such as a disc set's `Movie (1965) (Disc 01)/VIDEO_TS` or `blah - cd 1/`
 * (Jellyfin stacks such folders; the movie is named by the folder without the suffix).
 */
function partOfFolder(folder: string): { part: number; name: string | null } | null {
  const number = PART_ONLY.exec(folder)?.groups?.number;
  if (number !== undefined) return { part: partFromToken(number), name: null };
  const stacked = splitPart(folder);
  return stacked.part === null || stacked.name === '' ? null : { part: stacked.part, name: stacked.name };
}

function unbracket(label: string): string {
  const inner = /^\[(.+)\]$/u.exec(label.trim())?.[1];
  return (inner ?? label).trim();
}

/**
 * Whether what follows a film's name is a version label rather than the rest of another film's name.
 * Jellyfin reads the year from the whole file name and groups versions only when they share one year, so
 * a name that carries a year of its own (bare or in brackets, anywhere, as the release parser reads it)
 * other than the folder's — or any year when the folder has none — is another film:
 * `Alien/Alien.Resurrection.1997.mkv`, `Scream/Scream.2.1997.mkv`, `Iron Man/Iron Man - B (2006).mkv`,
 * `Arrival/Arrival.2016.2160p.mkv` (the release's own year). `Heat (1995) - 1929 version` keeps 1995.
 * @param label what follows the name
 * @param fileCore the whole file name (id tags and part suffix removed)
 * @param nameYear the year of the name the label follows (the folder's, or `Title (Year)`'s)
 */
function isVersionLabel(label: string, fileCore: string, nameYear: number | null): boolean {
  if (parseRelease(fileCore).year !== nameYear) return false;
  return [...label.matchAll(YEAR_IN_BRACKETS)].every((m) => Number(m[1]) === nameYear);
}

/** The version label after the folder name, when the file starts with it (compared without case). */
function labelAfterFolder(fileCore: string, folderCore: string): string | null {
  // A folder name of one character is a letter folder (`M/Movie 1.mkv`), never a title.
  if (folderCore.length <= 1) return null;
  const prefix = fileCore.slice(0, folderCore.length);
  if (prefix.toLowerCase() !== folderCore.toLowerCase()) return null;
  const match = LABEL_AFTER_FOLDER.exec(fileCore.slice(folderCore.length));
  const label = match?.groups?.label ?? match?.groups?.bracketed;
  if (label === undefined) return null;
  const clean = unbracket(label);
  return clean !== '' && isVersionLabel(clean, fileCore, parseRelease(folderCore).year) ? clean : null;
}

/**
 * Whether a file may be one version of the film its folder names (Jellyfin's IsEligibleForMultiVersion):
 * its name is the folder's, or the folder's followed by a version label.
 */
function isEligibleForVersions(fileCore: string, folderCore: string): boolean {
  return (
    fileCore.toLowerCase() === folderCore.toLowerCase() || labelAfterFolder(fileCore, folderCore) !== null
  );
}

/**
 * Separates a Jellyfin multi-version label: after the folder name when the file starts with it (Jellyfin's
 * rule, compared without id tags and case: `Iron Man/Iron Man - bluray.mkv`, `Movie/Movie-2.mkv`,
 * `Heat (1995)/Heat (1995) [1080p].mkv`) and every video of the folder may be a version, else after
 * `Title (Year) - `.
 */
function splitVersionLabel(
  fileCore: string,
  folderCore: string | null,
  folderHoldsVersions: boolean,
): { core: string; label: string | null } {
  if (folderCore !== null && folderHoldsVersions) {
    const label = labelAfterFolder(fileCore, folderCore);
    // The folder's spelling names the movie: `Iron Man/iron man - 720p.mkv` is `Iron Man`.
    if (label !== null) return { core: folderCore, label };
  }
  const match = TITLE_YEAR_WITH_LABEL.exec(fileCore);
  const head = match?.groups?.head;
  const headYear = head === undefined ? undefined : TITLE_YEAR_FORM.exec(head)?.groups?.year;
  if (head !== undefined && headYear !== undefined && match?.groups?.label !== undefined) {
    const clean = unbracket(match.groups.label);
    if (clean !== '' && isVersionLabel(clean, fileCore, Number(headYear)))
      return { core: head, label: clean };
  }
  return { core: fileCore, label: null };
}

/** `S.W.A.T` → `S.W.A.T.`, `The.Ultimate.Gift` → `The Ultimate Gift`. */
function undot(text: string): string {
  const words: string[] = [];
  let acronym: string[] = [];
  const flush = (): void => {
    if (acronym.length > 1) words.push(`${acronym.join('.')}.`);
    else words.push(...acronym);
    acronym = [];
  };
  for (const part of text.split('.')) {
    if (/^\p{L}$/u.test(part)) {
      acronym.push(part);
      continue;
    }
    flush();
    if (part !== '') words.push(part);
  }
  flush();
  return words.join(' ');
}

/** Replaces each date with a stand-in word (at most eight; more stay as they are). */
function maskDates(text: string): { masked: string; dates: string[] } {
  const dates: string[] = [];
  const masked = text.replace(DATE_IN_NAME, (date: string): string => {
    const letter = STAND_IN_LETTERS[dates.length];
    if (letter === undefined) return date;
    dates.push(date);
    return `Zqdate${letter}`;
  });
  return { masked, dates };
}

function restoreDates(text: string, dates: readonly string[]): string {
  if (dates.length === 0) return text;
  return text.replace(DATE_STAND_IN, (standIn: string, letter: string): string => {
    return dates[STAND_IN_LETTERS.indexOf(letter.toLowerCase())] ?? standIn;
  });
}

/** Cuts a title at the first release or quality word (Jellyfin's CleanStrings), keeping at least one word besides an article. */
function cutReleaseWords(title: string): string {
  for (const match of title.matchAll(RELEASE_WORD)) {
    const endsTitle =
      match.groups?.always !== undefined || ONLY_RELEASE_WORDS.test(title.slice(match.index - 1));
    if (!endsTitle) continue;
    const kept = title.slice(0, match.index).replace(/[ _,.([-]+$/u, '');
    // `The Cam` keeps its word: an article alone is no title.
    if (tokenize(kept).some((token) => !ARTICLES.has(token.text.toLowerCase()))) return kept;
  }
  return title;
}

/** Underscores and separator dots to spaces; leading `[group]`, trailing `[...]`, `{...}`, `(Year)` and dangling separators off. */
function cleanTitle(raw: string): string {
  let title = raw.replace(/_/gu, ' ');
  if (!/\s/u.test(title) && title.includes('.')) title = undot(title);
  const whole = collapseSpaces(title);
  title = title.replace(/^\s*(?:\[[^\]]*\]\s*)+/u, '');
  let previous: string;
  do {
    previous = title;
    title = title.replace(/\s*(?:\[[^\]]*\]|\{[^}]*\}|\(\s*(?:(?:18|19|20)\d{2})?\s*\))\s*$/u, '');
  } while (title !== previous);
  // An unclosed bracket at the end is what the release parser leaves of `Title [480p]`.
  title = collapseSpaces(title.replace(/^[\s\-–—:,]+|[\s\-–—:,[(]+$/gu, ''));
  // `[rec]` is a title, not a release group with nothing after it.
  return title === '' ? whole : title;
}

function detectEdition(text: string): string | null {
  let rest = text.toLowerCase().replace(/[._]/gu, ' ').replace(/[’`]/gu, "'");
  const labels: string[] = [];
  for (const [pattern, label] of EDITION_PATTERNS) {
    const match = pattern.exec(rest);
    if (match === null) continue;
    if (!labels.includes(label)) labels.push(label);
    rest = `${rest.slice(0, match.index)} ${rest.slice(match.index + match[0].length)}`;
  }
  return labels.length === 0 ? null : labels.join(', ');
}

const RESOLUTIONS: ReadonlyMap<string, VideoResolution> = new Map<string, VideoResolution>([
  ['2160P', '2160p'],
  ['1080P', '1080p'],
  ['720P', '720p'],
  ['576P', '576p'],
  ['540P', '540p'],
  ['480P', '480p'],
]);

function detectResolution(text: string): VideoResolution | null {
  const { resolution, source } = parseResolution(text);
  // Without `source` the parser only guessed (a DVD is "probably 480p"): not a token of the name.
  if (resolution === undefined || source === undefined) return null;
  return RESOLUTIONS.get(resolution) ?? null;
}

const SOURCES: ReadonlyMap<string, VideoSource> = new Map<string, VideoSource>([
  ['BLURAY', 'bluray'],
  ['WEBDL', 'webdl'],
  ['WEBRIP', 'webrip'],
  ['DVD', 'dvd'],
  ['CAM', 'cam'],
  ['SCREENER', 'screener'],
  ['PPV', 'ppv'],
  ['TELESYNC', 'telesync'],
  ['TELECINE', 'telecine'],
  ['WORKPRINT', 'workprint'],
  ['TV', 'tv'],
]);

function detectSource(text: string): VideoSource | null {
  // parseSource only reports tokens that are present (the WEBDL guess lives in parseQuality, unused here).
  const first = parseSource(text)[0];
  const source = first === undefined ? undefined : SOURCES.get(first);
  if (source !== undefined) return source;
  return /\b(?:bd|uhd)?remux\b/iu.test(text) ? 'bluray' : null;
}

interface Token {
  text: string;
  start: number;
  end: number;
}

function tokenize(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));
}

function indexOfTokens(haystack: readonly Token[], needle: readonly string[]): number {
  if (needle.length === 0) return -1;
  const lower = needle.map((word) => word.toLowerCase());
  for (let i = 0; i + lower.length <= haystack.length; i++) {
    if (lower.every((word, j) => haystack[i + j]?.text.toLowerCase() === word)) return i;
  }
  return -1;
}

function isEditionWord(token: Token): boolean {
  const word = token.text.toLowerCase();
  return EDITION_WORDS.has(word) || /^\d{1,3}(?:st|nd|rd|th)$/u.test(word);
}

/** Release tokens of text that holds no title (a version label, or what follows the year). */
function releaseTokens(text: string): Omit<ReleaseInfo, 'title' | 'year'> {
  // The leading word character lets the parser's `\b[. ]WEB[. ]` patterns match at the very start.
  const padded = `x ${text}`;
  return {
    editionLabel: detectEdition(padded),
    resolution: detectResolution(padded),
    source: detectSource(padded),
  };
}

/** Title, year and release tokens of one name (a file base or a folder), id tags already removed. */
function parseRelease(text: string): ReleaseInfo {
  const { masked: name, dates } = maskDates(collapseSpaces(text));
  const simple = TITLE_YEAR_FORM.exec(name)?.groups;
  if (simple?.title !== undefined && simple.year !== undefined) {
    return {
      title: restoreDates(cleanTitle(simple.title), dates),
      year: Number(simple.year),
      editionLabel: null,
      resolution: null,
      source: null,
    };
  }

  const parsed = filenameParse(name);
  // The parser drops null fields (`year` is then undefined, not null) and types the year as a string.
  const parsedTitle = typeof parsed.title === 'string' ? parsed.title : '';
  const parsedYear = typeof parsed.year === 'string' && /^\d{4}$/u.test(parsed.year) ? parsed.year : null;
  const tokens = tokenize(name);
  const titleWords = tokenize(parsedTitle).map((t) => t.text);
  const titleStart = indexOfTokens(tokens, titleWords);
  const titleEnd = titleStart < 0 ? 0 : titleStart + titleWords.length;
  let title = parsedTitle;
  let year: number | null = null;
  let editionText = '';
  let tailStart = titleEnd > 0 ? (tokens[titleEnd - 1]?.end ?? 0) : 0;

  if (parsedYear !== null) {
    year = Number(parsedYear);
    const yearIndex = tokens.findIndex((t, i) => i >= titleEnd && t.text === parsedYear);
    const yearToken = tokens[yearIndex];
    if (yearToken !== undefined) {
      tailStart = yearToken.end;
      const between = tokens.slice(titleEnd, yearIndex);
      const first = between[0];
      const last = between.at(-1);
      const titleOnlyArticles = titleWords.every((w) => ARTICLES.has(w.toLowerCase()));
      if (first !== undefined && last !== undefined) {
        if (titleStart < 0) {
          // The parser found no title (`Cam.2018.1080p…` → ""): everything before the year is the title.
          title = name.slice(first.start, last.end);
        } else if (between.every(isEditionWord) && !titleOnlyArticles) {
          // The parser's "edition before year" form: `Mission.Impossible.3.Special.Edition.2011`.
          editionText = name.slice(first.start, last.end);
        } else {
          // The parser cut the title at a word it took for an edition (`The.Ultimate.Gift.2006` → "The").
          title = name.slice(tokens[titleStart]?.start ?? 0, last.end);
        }
      }
    }
  }

  const release = releaseTokens(`${editionText} ${name.slice(tailStart)}`);
  return { title: restoreDates(cleanTitle(cutReleaseWords(title)), dates), year, ...release };
}

function isGenericName(core: string): boolean {
  return GENERIC_NAME.test(core.trim());
}

function titlesOverlap(a: string, b: string): boolean {
  const x = normalizeTitle(a);
  const y = normalizeTitle(b);
  return x !== '' && y !== '' && (x.startsWith(y) || y.startsWith(x));
}

/** The pieces of a path the name rules read: the file's name and the folder that names its movie. */
interface PathNames {
  fileBase: string;
  fileTags: NameTags;
  folderTags: NameTags | null;
  /** The file's name without id tags and part suffix. */
  fileCore: string;
  partNumber: number | null;
  /** Whether the folder that names the movie is the file's own folder (not a part or disc folder). */
  ownFolder: boolean;
}

function readPathNames(relativePath: string): PathNames {
  const segments = splitPath(relativePath);
  const fileName = segments.at(-1) ?? '';
  let folders = segments.slice(0, -1);
  let fileBase = stripVideoExtension(fileName);
  let ownFolder = true;

  const discIndex = folders.findIndex((folder) => DISC_FOLDER_SET.has(folder.toLowerCase()));
  if (discIndex >= 0) {
    folders = folders.slice(0, discIndex);
    fileBase = '';
    ownFolder = false;
  }

  let partNumber: number | null = null;
  const lastFolder = folders.at(-1);
  const folderPart = lastFolder === undefined ? null : partOfFolder(lastFolder);
  if (folderPart !== null) {
    partNumber = folderPart.part;
    folders = folderPart.name === null ? folders.slice(0, -1) : [...folders.slice(0, -1), folderPart.name];
    ownFolder = false;
  }

  const folderName = folders.at(-1);
  const fileTags = takeTags(fileBase);
  const stacked = splitPart(fileTags.rest);
  return {
    fileBase,
    fileTags,
    folderTags: folderName === undefined ? null : takeTags(folderName),
    fileCore: stacked.name,
    partNumber: stacked.part ?? partNumber,
    ownFolder,
  };
}

/**
 * What a library-relative path says about its movie. The folder gives title and year when it has
 * Jellyfin's `Title (Year)` form, when the file name is generic (`movie.mkv`, `title_t00.mkv`, a disc
 * structure), or when only the folder has a year and looks like the same release; resolution, source and
 * edition come from the file name first, then the folder. Id tags are read from the file, then the folder.
 * @param relativePath path below the library root, `/` or `\` separated (extras must be filtered first)
 * @param folderHoldsVersions false when another video of the file's folder is no version of the film the
 *   folder names ({@link parseMoviePaths} decides it from the folder's files): no file of that folder is then
 *   read as a version by the folder's name. Without it the file is judged alone.
 * @example parseMoviePath('Heat (1995)/Heat (1995) - Director\'s Cut.mkv').editionLabel === "Director's Cut"
 * @example parseMoviePath('The.Matrix.1999.1080p.BluRay.x264-GROUP.mkv').source === 'bluray'
 */
export function parseMoviePath(relativePath: string, folderHoldsVersions = true): ParsedMovieName {
  const { fileBase, fileTags, folderTags, fileCore, partNumber } = readPathNames(relativePath);
  const { core, label } = splitVersionLabel(fileCore, folderTags?.rest ?? null, folderHoldsVersions);

  const fileInfo = parseRelease(core);
  const folderInfo = folderTags === null ? null : parseRelease(folderTags.rest);
  const labelInfo = label === null ? null : releaseTokens(label);

  const useFolder =
    folderInfo !== null &&
    folderTags !== null &&
    folderInfo.title !== '' &&
    (TITLE_YEAR_FORM.test(folderTags.rest) ||
      isGenericName(core) ||
      (fileInfo.year === null &&
        folderInfo.year !== null &&
        (folderInfo.resolution !== null ||
          folderInfo.source !== null ||
          titlesOverlap(fileInfo.title, folderInfo.title))));
  const primary = useFolder ? folderInfo : fileInfo;

  return {
    title: primary.title || fileInfo.title || cleanTitle(fileBase),
    year: primary.year,
    tmdbId: fileTags.tmdbId ?? folderTags?.tmdbId ?? null,
    imdbId: fileTags.imdbId ?? folderTags?.imdbId ?? null,
    editionLabel:
      label ??
      fileTags.edition ??
      fileInfo.editionLabel ??
      folderTags?.edition ??
      folderInfo?.editionLabel ??
      null,
    resolution: labelInfo?.resolution ?? fileInfo.resolution ?? folderInfo?.resolution ?? null,
    source: labelInfo?.source ?? fileInfo.source ?? folderInfo?.source ?? null,
    partNumber,
  };
}

/**
 * Reads every path of a scan, each knowing the other videos of its folder: a folder's files are versions
 * of the film the folder names only when every one of them may be (Jellyfin's VideoListResolver), so a
 * collection folder (`Scream/Scream.1996.mkv` beside `Scream/Scream.2.mkv`) lists films, not versions.
 * Extras do not count (`Movie/Movie-trailer.mkv`), nor do files whose movie is named by a part or disc
 * folder above them. Linear in the number of paths.
 * @param relativePaths every video path found below the library root (extras may be included)
 * @returns each path's {@link parseMoviePath} result
 * @example parseMoviePaths(['Scream/Scream.1996.mkv', 'Scream/Scream.2.mkv']).get('Scream/Scream.2.mkv')?.title === 'Scream 2'
 */
export function parseMoviePaths(relativePaths: readonly string[]): Map<string, ParsedMovieName> {
  const folderHoldsVersions = new Map<string, boolean>();
  for (const path of relativePaths) {
    const names = readPathNames(path);
    if (!names.ownFolder || names.folderTags === null || extraKind(path) !== null) continue;
    const folder = folderOf(path);
    if (folderHoldsVersions.get(folder) === false) continue;
    folderHoldsVersions.set(folder, isEligibleForVersions(names.fileCore, names.folderTags.rest));
  }
  return new Map(
    relativePaths.map((path) => [
      path,
      parseMoviePath(path, folderHoldsVersions.get(folderOf(path)) ?? true),
    ]),
  );
}

function folderOf(relativePath: string): string {
  return splitPath(relativePath).slice(0, -1).join('/').toLowerCase();
}

/**
 * Where a video's `.nfo` may be, most specific first (Kodi: `<video>.nfo`, the stacked name's `.nfo`,
 * `movie.nfo`; for disc structures `VIDEO_TS/VIDEO_TS.nfo` and `BDMV/index.nfo`).
 * @param relativePath library-relative path of the video
 * @returns library-relative paths, `/` separated
 */
export function nfoPathsFor(relativePath: string): string[] {
  const segments = splitPath(relativePath);
  const fileName = segments.at(-1) ?? '';
  const folders = segments.slice(0, -1);
  const join = (parts: readonly string[]): string => parts.join('/');
  const discIndex = folders.findIndex((folder) => DISC_FOLDER_SET.has(folder.toLowerCase()));
  if (discIndex >= 0) {
    const root = folders.slice(0, discIndex);
    const disc = folders[discIndex] ?? '';
    const discNfo = disc.toLowerCase() === 'video_ts' ? 'VIDEO_TS.nfo' : 'index.nfo';
    return [join([...root, disc, discNfo]), join([...root, 'movie.nfo'])];
  }
  const base = fileName.includes('.') ? fileName.slice(0, fileName.lastIndexOf('.')) : fileName;
  const paths = [join([...folders, `${base}.nfo`])];
  const stacked = splitPart(base);
  if (stacked.part !== null && stacked.name !== '') paths.push(join([...folders, `${stacked.name}.nfo`]));
  paths.push(join([...folders, 'movie.nfo']));
  return paths;
}

// ---------------------------------------------------------------------------------------------------------
// NFO

interface XmlChild {
  name: string;
  attributes: ReadonlyMap<string, string>;
  text: string;
}

// `[^<>]` (not `[^>]`) keeps every failed attempt local, so hostile input stays linear.
const XML_TAG = /<(\/?)([A-Za-z_][\w.:-]*)([^<>]*?)(\/?)>/gu;
const MAX_ATTRIBUTES_CHARS = 2048;
const XML_ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/gu;
const OTHER_NFO_ROOT = /<(?:tvshow|episodedetails|musicvideo|artist|album)\b/iu;
const TMDB_URL = /themoviedb\.org\/movie\/(\d{1,10})/iu;
const IMDB_IN_TEXT = /(?<![\p{L}\p{N}])(tt\d{7,8})(?!\p{N})/iu;

function decodeEntities(text: string): string {
  return text.replace(
    /&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/giu,
    (entity: string, body: string): string => {
      const lower = body.toLowerCase();
      if (lower.startsWith('#')) {
        const code = lower.startsWith('#x')
          ? Number.parseInt(lower.slice(2), 16)
          : Number.parseInt(lower.slice(1), 10);
        return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      const named: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
      return named[lower] ?? entity;
    },
  );
}

/**
 * Replaces each `open … close` section with `replace(inner)`, linearly (an unterminated section runs to
 * the end of the text). A lazy regex would rescan the rest of the text for every unterminated opener.
 */
function replaceSections(
  text: string,
  open: string,
  close: string,
  replace: (inner: string) => string,
): string {
  let out = '';
  let position = 0;
  for (;;) {
    const start = text.indexOf(open, position);
    if (start < 0) return out + text.slice(position);
    const end = text.indexOf(close, start + open.length);
    const innerEnd = end < 0 ? text.length : end;
    out += text.slice(position, start) + replace(text.slice(start + open.length, innerEnd));
    if (end < 0) return out;
    position = end + close.length;
  }
}

function escapeText(text: string): string {
  return text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');
}

function parseAttributes(raw: string): Map<string, string> {
  const attributes = new Map<string, string>();
  if (raw.length > MAX_ATTRIBUTES_CHARS) return attributes;
  for (const m of raw.matchAll(XML_ATTRIBUTE)) {
    const key = m[1];
    if (key !== undefined) attributes.set(key.toLowerCase(), decodeEntities(m[2] ?? m[3] ?? ''));
  }
  return attributes;
}

/**
 * The direct children of an element's content. Tolerant: an unclosed inner tag is dropped when its parent
 * closes, stray closing tags are ignored. Nested elements (`<set>`, `<actor>`, `<ratings>`) are skipped
 * whole, so a collection's `<uniqueid>` inside `<set>` is never read as the movie's (metadata.md §4.3).
 */
function directChildren(content: string): XmlChild[] {
  const children: XmlChild[] = [];
  const stack: string[] = [];
  let current: { name: string; attributes: Map<string, string>; contentStart: number } | null = null;
  for (const m of content.matchAll(XML_TAG)) {
    const [whole, closing, rawName, rawAttributes, selfClosing] = m;
    const name = (rawName ?? '').toLowerCase();
    if (closing === '/') {
      const at = stack.lastIndexOf(name);
      if (at < 0) continue;
      stack.length = at;
      if (at === 0 && current !== null) {
        const text = content.slice(current.contentStart, m.index).replace(/<[^<>]*>/gu, ' ');
        children.push({
          name: current.name,
          attributes: current.attributes,
          text: decodeEntities(text).trim(),
        });
        current = null;
      }
      continue;
    }
    if (stack.length === 0) {
      const attributes = parseAttributes(rawAttributes ?? '');
      if (selfClosing === '/') {
        children.push({ name, attributes, text: '' });
        continue;
      }
      current = { name, attributes, contentStart: m.index + whole.length };
    }
    if (selfClosing !== '/') stack.push(name);
  }
  return children;
}

function toImdbId(value: string | undefined): string | null {
  const match = value === undefined ? null : /^\s*(tt\d{7,8})\s*$/iu.exec(value);
  return match?.[1]?.toLowerCase() ?? null;
}

function toYear(value: string | undefined): number | null {
  const digits = value === undefined ? undefined : /^\s*(\d{4})(?:\D|$)/u.exec(value)?.[1];
  if (digits === undefined) return null;
  const year = Number(digits);
  return year >= 1870 && year <= 2200 ? year : null;
}

function fromMovieElement(content: string): NfoInfo {
  const children = directChildren(content);
  const first = (...names: string[]): string | undefined => {
    for (const wanted of names) {
      const child = children.find((c) => c.name === wanted && c.text !== '');
      if (child !== undefined) return child.text;
    }
    return undefined;
  };

  const uniqueIds = children.filter((c) => c.name === 'uniqueid' && c.text !== '');
  const isDefault = (c: XmlChild): boolean => c.attributes.get('default')?.toLowerCase() === 'true';
  const uniqueOf = (...types: string[]): string | undefined => {
    const ofType = uniqueIds.filter((c) => types.includes((c.attributes.get('type') ?? '').toLowerCase()));
    return (ofType.find(isDefault) ?? ofType[0])?.text;
  };

  let tmdbId = toTmdbId(uniqueOf('tmdb', 'themoviedb')) ?? toTmdbId(first('tmdbid', 'tmdb_id', 'tmdb'));
  let imdbId = toImdbId(uniqueOf('imdb')) ?? toImdbId(first('imdbid', 'imdb_id', 'imdb'));

  // <id> is Kodi's copy of the default id: `tt…` is IMDb; a bare number is taken as TMDb only when no
  // uniqueid says the default provider is something else (legacy TMDb-scraper files have only <id>).
  const id = first('id')?.trim();
  if (id !== undefined) {
    imdbId ??= toImdbId(id);
    const defaultType = (uniqueIds.find(isDefault)?.attributes.get('type') ?? 'tmdb').toLowerCase();
    if (/^\d+$/u.test(id) && (defaultType === 'tmdb' || defaultType === 'themoviedb'))
      tmdbId ??= toTmdbId(id);
  }

  const title = first('title', 'localtitle', 'originaltitle') ?? null;
  const year = toYear(first('year')) ?? toYear(first('premiered', 'releasedate', 'aired'));
  return { title, year, tmdbId, imdbId };
}

/**
 * Reads a Kodi/Jellyfin movie `.nfo`: metadata XML (`<movie>` with `title`, `originaltitle`, `year`,
 * `premiered`, `uniqueid type=tmdb|imdb`, `tmdbid`, `imdbid`, `id`), a "parsing" NFO holding only a
 * TMDb/IMDb URL, or XML followed by a URL (the XML wins, the URL fills gaps). Never throws.
 * @param text the file's text
 * @returns the fields found, or null when there are none (or the NFO describes a show, episode, album…)
 * @example parseNfo('https://www.themoviedb.org/movie/603-the-matrix')?.tmdbId === 603
 */
export function parseNfo(text: string): NfoInfo | null {
  const withoutComments = replaceSections(text.replace(/^\uFEFF/u, ''), '<!--', '-->', () => ' ');
  const source = replaceSections(withoutComments, '<![CDATA[', ']]>', escapeText);

  let info: NfoInfo = { title: null, year: null, tmdbId: null, imdbId: null };
  let outside = source;
  const open = /<movie\b[^<>]*?(\/?)>/iu.exec(source);
  if (open !== null) {
    const contentStart = open.index + open[0].length;
    const closeAt = source.toLowerCase().lastIndexOf('</movie');
    const contentEnd = open[1] === '/' ? contentStart : closeAt >= contentStart ? closeAt : source.length;
    info = fromMovieElement(source.slice(contentStart, contentEnd));
    const afterClose = closeAt >= contentStart ? source.indexOf('>', closeAt) + 1 : source.length;
    outside = `${source.slice(0, open.index)}\n${source.slice(Math.max(afterClose, contentEnd))}`;
  } else if (OTHER_NFO_ROOT.test(source)) {
    return null;
  }

  info.tmdbId ??= toTmdbId(TMDB_URL.exec(outside)?.[1]);
  info.imdbId ??= IMDB_IN_TEXT.exec(outside)?.[1]?.toLowerCase() ?? null;

  const empty = info.title === null && info.year === null && info.tmdbId === null && info.imdbId === null;
  return empty ? null : info;
}
