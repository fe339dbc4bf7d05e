import iconv from 'iconv-lite';
import { iso6392BTo1, iso6392TTo1 } from 'iso-639-2';
import { chardet } from 'jschardet';

/**
 * Bytes of a text file in an unknown encoding (a sidecar subtitle) → text. Detection is jschardet's
 * (a port of Python's chardet 7) and decoding iconv-lite's; what this module adds is the order and the
 * tie-breaks:
 *
 * 1. a byte order mark says it (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE), and is dropped;
 * 2. bytes that are valid UTF-8 (ASCII included) and hold no NUL are UTF-8;
 * 3. otherwise jschardet ranks the encodings of today's web and the ISO-8859 family (not Mac, DOS or
 *    EBCDIC pages, which subtitles are not written in, and which it otherwise picks for short Cyrillic);
 *    - a language hint (the track's language) picks the best candidate whose text reads as that
 *      language, when its confidence is at least half the best one's (a `.fr.srt` of two lines);
 *    - Windows-1252 is taken over its ISO-8859-1/-15 twins when they score the same (within 2 %,
 *      as they do on Western text: Windows-1252 is what such files are written in);
 *    - a best guess below {@link UNSURE_BELOW} (a line or two of accents) is not trusted: Windows-1252.
 * Binary bytes (jschardet answers no encoding, e.g. `application/octet-stream`) throw.
 */
export interface DecodedText {
  text: string;
  /** iconv-lite's name of the encoding used (utf-8, utf-16le, windows-1252, iso-8859-2…). */
  encoding: string;
  /** How it was chosen. */
  by: 'bom' | 'utf-8' | 'detected' | 'language' | 'fallback';
  /** jschardet's confidence of the chosen candidate (null for a BOM or valid UTF-8). */
  confidence: number | null;
}

export interface DecodeOptions {
  /** The text's language, ISO 639-2 (`fre`, `ger`, `rus`) or 639-1 (`fr`); null when unknown. */
  language?: string | null;
}

/** The bytes are not text in any encoding the detector knows (binary data, an image). */
export class TextDecodingError extends Error {
  override name = 'TextDecodingError';
}

/** A best guess below this confidence is a guess on too little evidence (jschardet 4's scale). */
export const UNSURE_BELOW = 0.05;

/** The fallback and the tie-winner: what Western subtitle files without a BOM are written in. */
export const FALLBACK_ENCODING = 'windows-1252';

const BOMS: { bytes: number[]; encoding: string }[] = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xff, 0xfe, 0x00, 0x00], encoding: 'utf-32le' },
  { bytes: [0x00, 0x00, 0xfe, 0xff], encoding: 'utf-32be' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
];

/** ISO 639-2/B or /T (`fre`, `fra`) or 639-1 (`fr`) → the ISO 639-1 code jschardet names languages with. */
function languageCode(language: string | null | undefined): string | null {
  if (language === null || language === undefined) return null;
  const code = language.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  if (code.length === 2) return code;
  return iso6392BTo1[code] ?? iso6392TTo1[code] ?? null;
}

const startsWith = (bytes: Uint8Array, prefix: number[]) =>
  bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);

/** jschardet's names of the ISO pages Windows-1252 extends (-1) or nearly matches (-15). */
const LATIN_1_TWINS = new Set(['iso-8859-1', 'iso-8859-15']);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface Candidate {
  encoding: string;
  confidence: number;
  language: string | null;
}

/** The candidate a decoder should use (pure: the rules above over jschardet's ranked list). */
export function chooseEncoding(
  candidates: readonly Candidate[],
  language: string | null = null,
): { encoding: string; by: 'detected' | 'language' | 'fallback'; confidence: number | null } {
  const top = candidates[0];
  if (top === undefined) return { encoding: FALLBACK_ENCODING, by: 'fallback', confidence: null };
  // Windows-1252 over its ISO-8859-1/-15 twins when they score the same (within 2 %).
  const tieBreak = (best: Candidate): Candidate => {
    if (!LATIN_1_TWINS.has(best.encoding.toLowerCase().replace(/^iso-?/, 'iso-'))) return best;
    const western = candidates.find(
      (c) => c.encoding.toLowerCase() === FALLBACK_ENCODING && c.confidence >= best.confidence * 0.98,
    );
    return western ?? best;
  };
  const wanted = languageCode(language);
  if (wanted !== null) {
    const match = candidates.find((c) => c.language === wanted && c.confidence >= top.confidence / 2);
    if (match !== undefined) {
      const chosen = tieBreak(match);
      return { encoding: chosen.encoding, by: 'language', confidence: chosen.confidence };
    }
  }
  if (top.confidence < UNSURE_BELOW) {
    return { encoding: FALLBACK_ENCODING, by: 'fallback', confidence: top.confidence };
  }
  const chosen = tieBreak(top);
  return { encoding: chosen.encoding, by: 'detected', confidence: chosen.confidence };
}

/**
 * Decodes a text file's bytes (see the module comment for the order).
 * @throws TextDecodingError when the bytes are binary.
 */
export function decodeText(bytes: Uint8Array, options: DecodeOptions = {}): DecodedText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const bom of BOMS) {
    if (startsWith(buffer, bom.bytes)) {
      return {
        text: iconv.decode(buffer.subarray(bom.bytes.length), bom.encoding, { stripBOM: false }),
        encoding: bom.encoding,
        by: 'bom',
        confidence: null,
      };
    }
  }
  // NUL bytes are valid UTF-8, but in a text file they mean UTF-16/32 without a BOM (or binary).
  if (!buffer.includes(0)) {
    try {
      return { text: strictUtf8.decode(buffer), encoding: 'utf-8', by: 'utf-8', confidence: null };
    } catch {
      // not UTF-8: detect below
    }
  }
  const eras = chardet.EncodingEra;
  const ranked = chardet.detectAll(buffer, {
    encodingEra: eras.MODERN_WEB | eras.LEGACY_ISO,
    ignoreThreshold: true,
  });
  if (ranked[0]?.encoding === null || ranked[0] === undefined) {
    throw new TextDecodingError(
      `the bytes are not text (${ranked[0]?.mimeType ?? 'no encoding'} by their content)`,
    );
  }
  const candidates = ranked.flatMap((r) =>
    r.encoding !== null && iconv.encodingExists(r.encoding)
      ? [{ encoding: r.encoding, confidence: r.confidence, language: r.language }]
      : [],
  );
  const chosen = chooseEncoding(candidates, options.language ?? null);
  return {
    text: iconv.decode(buffer, chosen.encoding),
    encoding: chosen.encoding.toLowerCase(),
    by: chosen.by,
    confidence: chosen.confidence,
  };
}
