/**
 * Subtitle files beside a video (sidecars): which video a file belongs to and what its name says
 * (format, language, forced / default / SDH, a title). Pure functions over file names and
 * library-relative paths; no I/O. docs/naming.md ("Subtitles") shows the rules with examples.
 *
 * The rules follow Jellyfin (`MediaInfoResolver.GetExternalFiles`, `ExternalPathParser.ParseFile`):
 * a sidecar's name starts with the video's file name without its extension, followed by `.` or the
 * end (case-insensitive); the rest, split at `.`, is read from the right: flags, one language, and
 * whatever is neither is the track's title. Deviations are marked where they are made.
 */
import { iso6392 } from 'iso-639-2';

export type SidecarFormat = 'srt' | 'ass' | 'ssa' | 'webvtt' | 'microdvd' | 'vobsub' | 'pgs';

/** What a sidecar's name (and extension) says about its track. */
export interface SidecarName {
  format: SidecarFormat;
  kind: 'text' | 'image';
  /** ISO 639-2/B (eng, fre, ger), as the analysis stores embedded tracks; null when the name gives none. */
  language: string | null;
  title: string | null;
  forced: boolean;
  default: boolean;
  /** For the deaf and hard of hearing (`sdh`, `cc`, `hi` beside a language). */
  sdh: boolean;
}

/** A video of the library as the sidecar rules see it: extras own their sidecars, which are then not recorded. */
export interface SidecarVideo {
  relativePath: string;
  extra: boolean;
}

/** A sidecar file attached to a (non-extra) video. */
export interface SidecarMatch {
  videoPath: string;
  sidecarPath: string;
  name: SidecarName;
}

const FORMATS: ReadonlyMap<string, { format: SidecarFormat; kind: 'text' | 'image' }> = new Map([
  ['.srt', { format: 'srt', kind: 'text' }],
  ['.ass', { format: 'ass', kind: 'text' }],
  ['.ssa', { format: 'ssa', kind: 'text' }],
  ['.vtt', { format: 'webvtt', kind: 'text' }],
  // `.sub` alone is MicroDVD text (`{0}{25}Hello`); beside an `.idx` of the same name it is VobSub's data.
  ['.sub', { format: 'microdvd', kind: 'text' }],
  ['.idx', { format: 'vobsub', kind: 'image' }],
  ['.sup', { format: 'pgs', kind: 'image' }],
]);

/** The extensions the scan collects as possible sidecars, lower-case with the dot. */
export const SUBTITLE_EXTENSIONS: readonly string[] = Object.freeze([...FORMATS.keys()]);

/** Folders of subtitles beside a release's video (`Movie.2010.1080p-GRP/Subs/English.srt`). Not Jellyfin's. */
const SUBTITLE_FOLDERS: ReadonlySet<string> = new Set(['subs', 'subtitles', 'sub']);

const FORCED_WORDS: ReadonlySet<string> = new Set(['forced', 'foreign']);
const DEFAULT_WORDS: ReadonlySet<string> = new Set(['default']);
const SDH_WORDS: ReadonlySet<string> = new Set(['sdh', 'cc']);
/** Codes that name no language: read as a tag, give no language. */
const NO_LANGUAGE: ReadonlySet<string> = new Set(['und', 'zxx']);

/**
 * Names people write that the ISO 639-2 English names do not spell out: the modern language of
 * "Greek, Modern (1453-)", common English adjectives, and the languages' own names.
 */
const EXTRA_NAMES: readonly (readonly [string, string])[] = [
  ['greek', 'gre'],
  ['farsi', 'per'],
  ['brazilian', 'por'],
  ['mandarin', 'chi'],
  ['cantonese', 'chi'],
  ['deutsch', 'ger'],
  ['français', 'fre'],
  ['francais', 'fre'],
  ['español', 'spa'],
  ['espanol', 'spa'],
  ['castellano', 'spa'],
  ['italiano', 'ita'],
  ['português', 'por'],
  ['portugues', 'por'],
  ['nederlands', 'dut'],
  ['svenska', 'swe'],
  ['norsk', 'nor'],
  ['dansk', 'dan'],
  ['suomi', 'fin'],
  ['polski', 'pol'],
  ['čeština', 'cze'],
  ['cesky', 'cze'],
  ['magyar', 'hun'],
  ['türkçe', 'tur'],
  ['turkce', 'tur'],
  ['română', 'rum'],
  ['romana', 'rum'],
  ['русский', 'rus'],
  ['українська', 'ukr'],
  ['ελληνικά', 'gre'],
  ['日本語', 'jpn'],
  ['한국어', 'kor'],
  ['中文', 'chi'],
];

/** Lower-case code or name → ISO 639-2/B. */
const LANGUAGES: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  const add = (key: string, code: string) => {
    const k = key.trim().toLowerCase();
    if (k !== '' && !map.has(k)) map.set(k, code);
  };
  for (const entry of iso6392) {
    if (!/^[a-z]{3}$/.test(entry.iso6392B)) continue; // qaa-qtz (local use) is a range, not a code
    add(entry.iso6392B, entry.iso6392B);
    if (entry.iso6392T !== undefined) add(entry.iso6392T, entry.iso6392B);
    if (entry.iso6391 !== undefined) add(entry.iso6391, entry.iso6392B);
  }
  // Names after every code, so that no name shadows a code.
  for (const entry of iso6392) {
    if (!/^[a-z]{3}$/.test(entry.iso6392B)) continue;
    for (const name of entry.name.split(';')) add(name.replace(/\s*\(.*\)\s*$/, ''), entry.iso6392B);
  }
  for (const [name, code] of EXTRA_NAMES) add(name, code);
  return map;
})();

/** A BCP 47 tag with a region or script (`pt-BR`, `zh-Hans`, `es-419`, `pt_br`). */
const TAGGED_LANGUAGE = /^([a-z]{2,3})[-_]([a-z]{2}|[0-9]{3}|[a-z]{4})$/i;

type Tag =
  | { kind: 'forced' | 'default' | 'sdh' | 'hi' | 'none' }
  /** `keep`: the part stays in the title too (a region tag: `pt-BR` says more than `por`). */
  | { kind: 'language'; code: string; keep: boolean };

/**
 * ISO 639-2/B for an ISO 639-1 code, an ISO 639-2 code (B or T) or an English language name.
 * @example languageCode('fra') === 'fre'; languageCode('German') === 'ger'; languageCode('xx') === null
 */
export function languageCode(text: string): string | null {
  const code = LANGUAGES.get(text.normalize('NFC').trim().toLowerCase());
  return code === undefined || NO_LANGUAGE.has(code) ? null : code;
}

function classifyWord(word: string): Tag | null {
  const w = word.toLowerCase();
  if (FORCED_WORDS.has(w)) return { kind: 'forced' };
  if (DEFAULT_WORDS.has(w)) return { kind: 'default' };
  if (SDH_WORDS.has(w)) return { kind: 'sdh' };
  // Hindi's code and hearing impaired's flag: resolved once the whole name is read.
  if (w === 'hi') return { kind: 'hi' };
  if (NO_LANGUAGE.has(w)) return { kind: 'none' };
  const code = LANGUAGES.get(w);
  return code === undefined ? null : { kind: 'language', code, keep: false };
}

/**
 * The tags one dotted part carries, or null when it is title text. Beyond Jellyfin, a part of several
 * words counts when every word is a tag and at most one a language (`English SDH`, `English (Forced)`),
 * and a language with a region or script (`pt-BR`, `zh-Hant`) is read as its language.
 */
function classifyPart(part: string): Tag[] | null {
  const single = classifyWord(part);
  if (single !== null) return [single];
  const tagged = TAGGED_LANGUAGE.exec(part);
  if (tagged !== null) {
    const code = LANGUAGES.get((tagged[1] ?? '').toLowerCase());
    if (code !== undefined && !NO_LANGUAGE.has(code)) return [{ kind: 'language', code, keep: true }];
  }
  const words = part.split(/[\s_\-()[\]{},]+/).filter((w) => w !== '');
  if (words.length < 2) return null;
  const tags = words.map(classifyWord);
  if (tags.some((t) => t === null)) return null;
  const languages = new Set(tags.flatMap((t) => (t?.kind === 'language' ? [t.code] : [])));
  return languages.size <= 1 ? (tags as Tag[]) : null;
}

interface ReadTags {
  language: string | null;
  title: string | null;
  forced: boolean;
  default: boolean;
  sdh: boolean;
}

/**
 * Reads the dotted parts after the video's name, right to left as Jellyfin does. The first language
 * found (the rightmost) is the track's; a part naming another language is title text. `hi` is Hindi
 * when no other language is named, else the hearing-impaired flag (`Movie.en.hi.srt`).
 * @param loose a name not made from the video's: tags are read from the right up to the first part that
 *   is not one, and the rest is the file's own name, not a title
 */
function readTags(parts: readonly string[], loose: boolean): ReadTags {
  const out: ReadTags = { language: null, title: null, forced: false, default: false, sdh: false };
  const title: string[] = [];
  let hi = false;
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = (parts[i] ?? '').trim();
    if (part === '') continue;
    const tags = classifyPart(part);
    const language = tags?.find((t) => t.kind === 'language');
    const conflicting =
      language?.kind === 'language' && out.language !== null && language.code !== out.language;
    if (tags === null || conflicting) {
      if (loose) break;
      title.unshift(part);
      continue;
    }
    for (const tag of tags) {
      if (tag.kind === 'forced') out.forced = true;
      else if (tag.kind === 'default') out.default = true;
      else if (tag.kind === 'sdh') out.sdh = true;
      else if (tag.kind === 'hi') hi = true;
      else if (tag.kind === 'language' && out.language === null) {
        out.language = tag.code;
        if (tag.keep && !loose) title.unshift(part);
      }
    }
  }
  if (hi) {
    if (out.language === null) out.language = 'hin';
    else out.sdh = true;
  }
  out.title = title.length === 0 ? null : title.join(' ');
  return out;
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

function baseNameOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name : name.slice(0, dot);
}

function fileNameOf(path: string): string {
  return path.split(/[\\/]/).at(-1) ?? path;
}

function folderOf(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts.slice(0, -1).join('/');
}

/**
 * Whether a file name has a subtitle extension the scan records (`.srt`, `.ass`, `.ssa`, `.vtt`,
 * `.sub`, `.idx`, `.sup`). macOS resource forks (`._Movie.srt`) are not subtitles.
 */
export function isSubtitleFile(name: string): boolean {
  const fileName = fileNameOf(name);
  return !fileName.startsWith('._') && FORMATS.has(extensionOf(fileName));
}

/**
 * The format of a subtitle file, knowing the other file names of its folder: VobSub is one track, an
 * `.idx` (recorded) with its `.sub` (its data, not recorded on its own); a `.sub` with no `.idx` is
 * MicroDVD text; an `.idx` whose `.sub` is absent has no pictures and is no track. Without `siblings`,
 * `.idx` is VobSub and `.sub` MicroDVD.
 * @returns null when the file is no track of its own
 */
export function sidecarFormat(
  fileName: string,
  siblings?: readonly string[],
): { format: SidecarFormat; kind: 'text' | 'image' } | null {
  const name = fileNameOf(fileName);
  if (!isSubtitleFile(name)) return null;
  const ext = extensionOf(name);
  const format = FORMATS.get(ext) ?? null;
  if (siblings === undefined || (ext !== '.sub' && ext !== '.idx')) return format;
  const partner = `${baseNameOf(name)}${ext === '.sub' ? '.idx' : '.sub'}`.toLowerCase();
  const hasPartner = siblings.some((s) => fileNameOf(s).toLowerCase() === partner);
  if (ext === '.sub') return hasPartner ? null : format;
  return hasPartner ? format : null;
}

/**
 * The part of a sidecar's base name after the video's base name (`.en.forced`, or '' for the same
 * name), or null when the sidecar's name does not start with the video's followed by `.` or its end.
 */
function extraAfterVideo(videoFileName: string, candidateFileName: string): string | null {
  const video = baseNameOf(fileNameOf(videoFileName)).normalize('NFC');
  const candidate = baseNameOf(fileNameOf(candidateFileName)).normalize('NFC');
  if (candidate.length < video.length) return null;
  if (candidate.slice(0, video.length).toLowerCase() !== video.toLowerCase()) return null;
  const rest = candidate.slice(video.length);
  return rest === '' || rest.startsWith('.') ? rest : null;
}

function named(format: { format: SidecarFormat; kind: 'text' | 'image' }, tags: ReadTags): SidecarName {
  return { format: format.format, kind: format.kind, ...tags };
}

/**
 * Whether `candidateFileName` is a sidecar of `videoFileName` (both in one folder), and what its name
 * says. Jellyfin's rule: the candidate's name starts with the video's name without extension, followed
 * by `.` or the end, case-insensitive.
 * @param siblings the other file names of the folder, for VobSub pairs (see {@link sidecarFormat})
 * @example readSidecarName('Movie (2010).mkv', 'Movie (2010).eng.forced.srt')
 *   // { format: 'srt', kind: 'text', language: 'eng', title: null, forced: true, default: false, sdh: false }
 * @example readSidecarName('Movie (2010).mkv', 'Movie (2010) - Extended.srt') === null
 */
export function readSidecarName(
  videoFileName: string,
  candidateFileName: string,
  siblings?: readonly string[],
): SidecarName | null {
  const format = sidecarFormat(candidateFileName, siblings);
  if (format === null) return null;
  const extra = extraAfterVideo(videoFileName, candidateFileName);
  if (extra === null) return null;
  return named(format, readTags(extra.split('.'), false));
}

/**
 * What a subtitle file's name says when it is not made from its video's name (`English.srt`,
 * `Heat.1995.eng.forced.srt` beside a release-named video): the tags at its end; no title.
 */
function readLooseName(
  candidateFileName: string,
  siblings: readonly string[],
  inSubtitleFolder: boolean,
): SidecarName | null {
  const format = sidecarFormat(candidateFileName, siblings);
  if (format === null) return null;
  let base = baseNameOf(fileNameOf(candidateFileName)).normalize('NFC');
  // A release's Subs/ folder numbers its files by stream: `2_English.srt`, `3_French.srt`.
  if (inSubtitleFolder) base = base.replace(/^\d+[_ ]+/, '');
  return named(format, readTags(base.split('.'), true));
}

/**
 * Attaches the subtitle files of a library to its videos, folder by folder:
 *
 * 1. a file whose name starts with a video's name (Jellyfin's rule, {@link readSidecarName}) belongs to
 *    that video; when several videos' names fit (`Movie.mkv`, `Movie.2010.mkv`), to the longest one
 *    (Jellyfin attaches it to all of them);
 * 2. otherwise, when its folder holds exactly one video that is not an extra, to that video, reading
 *    only the tags at the end of its name (`English.srt`, `Heat.1995.eng.srt`);
 * 3. a file in a `Subs`/`Subtitles` folder belongs, by the same two rules, to the videos of the folder
 *    above it (`Movie.2010.1080p-GRP/Subs/2_English.srt`).
 *
 * A file that fits an extra (`Heat (1995)-trailer.en.srt`) or no video is not recorded.
 * @param videos every video the scan found, extras included (they own their sidecars)
 * @param subtitles library-relative paths of the subtitle files ({@link isSubtitleFile})
 */
export function matchSidecars(videos: readonly SidecarVideo[], subtitles: readonly string[]): SidecarMatch[] {
  const videosByFolder = new Map<string, SidecarVideo[]>();
  for (const video of videos) {
    const folder = folderOf(video.relativePath);
    const list = videosByFolder.get(folder);
    if (list === undefined) videosByFolder.set(folder, [video]);
    else list.push(video);
  }
  const siblingsByFolder = new Map<string, string[]>();
  for (const path of subtitles) {
    const folder = folderOf(path);
    const list = siblingsByFolder.get(folder);
    if (list === undefined) siblingsByFolder.set(folder, [fileNameOf(path)]);
    else list.push(fileNameOf(path));
  }

  const matches: SidecarMatch[] = [];
  for (const path of subtitles) {
    const folder = folderOf(path);
    const siblings = siblingsByFolder.get(folder) ?? [];
    let match = matchInFolder(videosByFolder.get(folder) ?? [], path, siblings, false);
    if (match === undefined) {
      const folderName = fileNameOf(folder).toLowerCase();
      if (folder !== '' && SUBTITLE_FOLDERS.has(folderName)) {
        match = matchInFolder(videosByFolder.get(folderOf(folder)) ?? [], path, siblings, true);
      }
    }
    if (match !== undefined && match !== null) matches.push(match);
  }
  return matches;
}

/**
 * The match of one subtitle file among one folder's videos: a match, null when it belongs to an extra
 * (decided, not recorded), undefined when no video of the folder takes it.
 */
function matchInFolder(
  videos: readonly SidecarVideo[],
  sidecarPath: string,
  siblings: readonly string[],
  inSubtitleFolder: boolean,
): SidecarMatch | null | undefined {
  let best: { video: SidecarVideo; name: SidecarName; length: number } | undefined;
  for (const video of videos) {
    const name = readSidecarName(video.relativePath, sidecarPath, siblings);
    if (name === null) continue;
    const length = baseNameOf(fileNameOf(video.relativePath)).length;
    if (best === undefined || length > best.length) best = { video, name, length };
  }
  if (best !== undefined) {
    return best.video.extra ? null : { videoPath: best.video.relativePath, sidecarPath, name: best.name };
  }
  const mains = videos.filter((v) => !v.extra);
  if (mains.length !== 1 || mains[0] === undefined) return undefined;
  const name = readLooseName(sidecarPath, siblings, inSubtitleFolder);
  return name === null ? undefined : { videoPath: mains[0].relativePath, sidecarPath, name };
}
