import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import {
  chooseEncoding,
  decodeText,
  FALLBACK_ENCODING,
  TextDecodingError,
  UNSURE_BELOW,
} from '../../../src/adapters/text-decoding.ts';

/** A SubRip file of these lines, CRLF, as Windows tools write them. */
const srt = (lines: string[]) =>
  lines
    .map(
      (text, i) =>
        `${i + 1}\r\n00:00:${String(i).padStart(2, '0')},000 --> 00:00:${String(i).padStart(2, '0')},500\r\n${text}\r\n`,
    )
    .join('\r\n');

const FRENCH = [
  'Bonjour, je suis très content de te voir.',
  'Où étais-tu hier soir ?',
  'Je suis allé au café avec mon frère.',
  'Le garçon a reçu une lettre de sa mère.',
  "C'est déjà trop tard, on ne peut plus rien faire.",
  'Ça ne me dérange pas du tout.',
  'Nous avons dîné chez Müller, über alles.',
  'Elle a été élevée à la campagne.',
];
const GERMAN = [
  'Guten Morgen, wie geht es dir?',
  'Wir müssen jetzt nach Hause fahren.',
  'Die Straße ist zu groß für uns.',
  'Nein, ich weiß nicht, wo sie sind.',
  'Fünf Männer kamen über die Brücke.',
];
const SPANISH = [
  'Buenos días, ¿cómo estás?',
  '¿Por qué nunca me escuchas?',
  'Mañana iremos a la montaña.',
  '¡Qué sorpresa!',
];
const RUSSIAN = [
  'Доброе утро, как ты себя чувствуешь?',
  'Спасибо, всё хорошо.',
  'Нам нужно ехать домой прямо сейчас.',
  'Почему ты меня никогда не слушаешь?',
];
const POLISH = [
  'Dzień dobry, jak się masz?',
  'Dziękuję, wszystko w porządku.',
  'Gdzie są klucze? Nie wiem.',
  'Przepraszam, byłem bardzo zmęczony.',
  'Pięciu mężczyzn przeszło przez most.',
];
const CZECH = [
  'Dobré ráno, jak se máš?',
  'Děkuji, všechno je v pořádku.',
  'Proč mě nikdy neposloucháš?',
  'Pět mužů přešlo přes most.',
];
const GREEK = ['Καλημέρα, τι κάνεις;', 'Ευχαριστώ, όλα καλά.', 'Πρέπει να πάμε σπίτι τώρα.'];
const TURKISH = ['Günaydın, nasılsın?', 'Teşekkür ederim, her şey yolunda.', 'Özür dilerim, çok yorgundum.'];

describe('decodeText: byte order marks', () => {
  const text = srt(['Café, élève, garçon, über — “quotes” ✓']);
  for (const [encoding, bom] of [
    ['utf-8', [0xef, 0xbb, 0xbf]],
    ['utf-16le', [0xff, 0xfe]],
    ['utf-16be', [0xfe, 0xff]],
    ['utf-32le', [0xff, 0xfe, 0x00, 0x00]],
  ] as const) {
    it(`${encoding}: decoded, the BOM dropped`, () => {
      const bytes = Buffer.concat([Buffer.from(bom), iconv.encode(text, encoding, { addBOM: false })]);
      const decoded = decodeText(bytes);
      assert.equal(decoded.text, text);
      assert.equal(decoded.encoding, encoding);
      assert.equal(decoded.by, 'bom');
    });
  }
});

describe('decodeText: UTF-8 without a BOM', () => {
  it('valid UTF-8 is UTF-8 (accents, CJK, emoji)', () => {
    const text = srt(['Café ça über', '日本語', '🎬']);
    assert.deepEqual(decodeText(Buffer.from(text, 'utf8')), {
      text,
      encoding: 'utf-8',
      by: 'utf-8',
      confidence: null,
    });
  });

  it('ASCII is UTF-8', () => {
    assert.equal(decodeText(Buffer.from(srt(['Plain English']))).by, 'utf-8');
  });
});

describe('decodeText: legacy encodings, detected by jschardet', () => {
  for (const [encoding, lines, language] of [
    ['windows-1252', FRENCH, 'fre'],
    ['windows-1252', GERMAN, 'ger'],
    ['windows-1252', SPANISH, 'spa'],
    ['iso-8859-1', FRENCH, 'fre'],
    ['iso-8859-15', FRENCH, 'fre'],
    ['windows-1251', RUSSIAN, 'rus'],
    ['koi8-r', RUSSIAN, 'rus'],
    ['iso-8859-5', RUSSIAN, 'rus'],
    ['iso-8859-2', POLISH, 'pol'],
    ['windows-1250', POLISH, 'pol'],
    ['windows-1250', CZECH, 'cze'],
    ['iso-8859-7', GREEK, 'gre'],
    ['windows-1254', TURKISH, 'tur'],
    ['iso-8859-9', TURKISH, 'tur'],
  ] as const) {
    const text = srt([...lines]);
    const bytes = iconv.encode(text, encoding);
    it(`${encoding} (${lines[0]?.slice(0, 16)}…) decodes right`, () => {
      assert.equal(decodeText(bytes).text, text);
    });
    it(`${encoding} (${lines[0]?.slice(0, 16)}…) decodes right with the language hint ${language}`, () => {
      assert.equal(decodeText(bytes, { language }).text, text);
    });
  }

  it('UTF-16 without a BOM', () => {
    const text = srt(FRENCH);
    for (const encoding of ['utf-16le', 'utf-16be']) {
      const decoded = decodeText(iconv.encode(text, encoding, { addBOM: false }));
      assert.equal(decoded.text, text, encoding);
    }
  });

  it('Windows-1252 wins a tie with its ISO-8859 twins', () => {
    const decoded = decodeText(iconv.encode(srt(FRENCH), 'windows-1252'));
    assert.equal(decoded.encoding, 'windows-1252');
    assert.equal(decoded.by, 'detected');
  });

  it('one line of accents is too little to detect: Windows-1252', () => {
    const text = srt(['Café, élève, garçon, über']);
    const decoded = decodeText(iconv.encode(text, 'windows-1252'));
    assert.equal(decoded.by, 'fallback');
    assert.equal(decoded.encoding, FALLBACK_ENCODING);
    assert.equal(decoded.text, text);
  });

  it("the track's language settles a short file the detector gets wrong", () => {
    const text = srt(['Perché non vieni? Così è la vita.', 'Città più bella.']);
    const bytes = iconv.encode(text, 'windows-1252');
    assert.equal(decodeText(bytes, { language: 'ita' }).text, text);
    assert.equal(decodeText(bytes, { language: 'it' }).text, text);
  });
});

describe('decodeText: not text', () => {
  it('binary bytes throw TextDecodingError', () => {
    const bytes = Buffer.alloc(4096);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 7919 + 13) % 256;
    assert.throws(() => decodeText(bytes), TextDecodingError);
  });

  it('a PNG throws TextDecodingError', () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      Buffer.alloc(200, 0xff),
    ]);
    assert.throws(() => decodeText(png), TextDecodingError);
  });
});

describe('chooseEncoding', () => {
  const c = (encoding: string, confidence: number, language: string | null = null) => ({
    encoding,
    confidence,
    language,
  });
  const cases: {
    name: string;
    candidates: ReturnType<typeof c>[];
    language?: string;
    expected: { encoding: string; by: string };
  }[] = [
    {
      name: 'the best candidate',
      candidates: [c('Windows-1251', 0.3, 'ru'), c('KOI8-R', 0.05, 'ru')],
      expected: { encoding: 'Windows-1251', by: 'detected' },
    },
    {
      name: 'Windows-1252 when it ties the best',
      candidates: [c('iso8859-15', 0.07, 'fr'), c('ISO-8859-1', 0.07, 'fr'), c('Windows-1252', 0.07, 'fr')],
      expected: { encoding: 'Windows-1252', by: 'detected' },
    },
    {
      name: 'within 2 % of an ISO twin is a tie',
      candidates: [
        c('iso8859-15', 0.0787, 'fr'),
        c('ISO-8859-1', 0.0787, 'fr'),
        c('Windows-1252', 0.0786, 'fr'),
      ],
      expected: { encoding: 'Windows-1252', by: 'detected' },
    },
    {
      name: 'only the ISO twins lose a tie to Windows-1252',
      candidates: [c('Windows-1250', 0.08, 'cs'), c('Windows-1252', 0.08, 'cs')],
      expected: { encoding: 'Windows-1250', by: 'detected' },
    },
    {
      name: 'a close second is not a tie',
      candidates: [c('Windows-1250', 0.08, 'cs'), c('Windows-1252', 0.07, 'cs')],
      expected: { encoding: 'Windows-1250', by: 'detected' },
    },
    {
      name: `below ${UNSURE_BELOW}: Windows-1252`,
      candidates: [c('Windows-1250', 0.03, 'hu')],
      expected: { encoding: 'windows-1252', by: 'fallback' },
    },
    {
      name: 'nothing ranked: Windows-1252',
      candidates: [],
      expected: { encoding: 'windows-1252', by: 'fallback' },
    },
    {
      name: 'the language hint picks its candidate (639-2/B)',
      candidates: [c('Windows-1251', 0.06, 'sr'), c('iso8859-15', 0.04, 'it'), c('Windows-1252', 0.04, 'it')],
      language: 'ita',
      expected: { encoding: 'Windows-1252', by: 'language' },
    },
    {
      name: 'a language candidate under half the best is not taken',
      candidates: [c('Windows-1251', 0.3, 'ru'), c('Windows-1252', 0.1, 'fr')],
      language: 'fre',
      expected: { encoding: 'Windows-1251', by: 'detected' },
    },
    {
      name: 'an unknown language changes nothing',
      candidates: [c('Windows-1251', 0.3, 'ru')],
      language: 'xyz',
      expected: { encoding: 'Windows-1251', by: 'detected' },
    },
  ];
  for (const t of cases) {
    it(t.name, () => {
      const chosen = chooseEncoding(t.candidates, t.language ?? null);
      assert.deepEqual({ encoding: chosen.encoding, by: chosen.by }, t.expected);
    });
  }
});
