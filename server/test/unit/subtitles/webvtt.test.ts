import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import webvttParser from 'webvtt-parser';
import { buildSubtitleExtractionArgs } from '../../../src/domain/subtitles/extract-command.ts';
import {
  checkWebVtt,
  escapeCueText,
  formatVttTime,
  parseAss,
  parseMicroDvd,
  parseSrt,
  serializeWebVtt,
  sniffSubtitleFormat,
  SubtitleFormatError,
  subripTimings,
  toWebVtt,
} from '../../../src/domain/subtitles/webvtt.ts';

const { WebVTTParser } = webvttParser;

/** The cues a real WebVTT parser reads from `vtt` (and no parse error): [start ms, end ms, text]. */
function parsed(vtt: string): [number, number, string][] {
  const result = new WebVTTParser().parse(vtt, 'subtitles');
  assert.deepEqual(result.errors, [], `WebVTT errors in:\n${vtt}`);
  return result.cues.map((cue) => [
    Math.round(cue.startTime * 1000),
    Math.round(cue.endTime * 1000),
    cue.text,
  ]);
}

const crlf = (text: string) => text.replace(/\n/g, '\r\n');

describe('formatVttTime', () => {
  for (const [ms, text] of [
    [0, '00:00:00.000'],
    [1, '00:00:00.001'],
    [61_001, '00:01:01.001'],
    [3_723_004, '01:02:03.004'],
    [100 * 3_600_000 + 5, '100:00:00.005'],
  ] as const) {
    it(`${ms} ms → ${text}`, () => assert.equal(formatVttTime(ms), text));
  }
});

describe('escapeCueText', () => {
  it('escapes &, < and > so text never becomes a tag or an arrow', () => {
    assert.equal(escapeCueText('a < b & c > d --> e'), 'a &lt; b &amp; c &gt; d --&gt; e');
  });
});

describe('SubRip → WebVTT', () => {
  const cases: { name: string; srt: string; cues: [number, number, string][] }[] = [
    {
      name: 'comma → dot, index lines dropped, times exact to the millisecond',
      srt: '1\n00:00:01,001 --> 00:00:02,999\nHello\n\n2\n01:02:03,004 --> 01:02:03,005\nWorld\n\n',
      cues: [
        [1001, 2999, 'Hello'],
        [3_723_004, 3_723_005, 'World'],
      ],
    },
    {
      name: 'CRLF, a BOM and no final blank line',
      srt: `\uFEFF${crlf('1\n00:00:00,500 --> 00:00:01,250\nOne\nTwo\n\n2\n00:00:02,000 --> 00:00:03,000\nThree')}`,
      cues: [
        [500, 1250, 'One\nTwo'],
        [2000, 3000, 'Three'],
      ],
    },
    {
      name: 'extra blank lines between cues and inside a cue; a missing index',
      srt: '\n\n1\n00:00:01,000 --> 00:00:02,000\nFirst\n\nstill first\n\n\n\n00:00:03,000 --> 00:00:04,000\nSecond\n\n\n3\n00:00:05,000 --> 00:00:06,000\nThird\n',
      cues: [
        [1000, 2000, 'First\nstill first'],
        [3000, 4000, 'Second'],
        [5000, 6000, 'Third'],
      ],
    },
    {
      name: 'a number as the text of a cue is kept',
      srt: '1\n00:00:01,000 --> 00:00:02,000\nThe year was\n1984\n\n2\n00:00:03,000 --> 00:00:04,000\n42\n',
      cues: [
        [1000, 2000, 'The year was\n1984'],
        [3000, 4000, '42'],
      ],
    },
    {
      name: '<i>, <b>, <u> kept (any case), <font> and other tags removed, <br> a line break',
      srt: '1\n00:00:01,000 --> 00:00:02,000\n<I>Italic</I> <b>bold</b> <u>under</u>\n<font color="#ffff00">yellow</font> <span>plain</span><br/>next\n',
      cues: [[1000, 2000, '<i>Italic</i> <b>bold</b> <u>under</u>\nyellow plain\nnext']],
    },
    {
      name: 'SSA tags in SubRip: {\\i1}…{\\i0}, {\\b1}, {\\an8} dropped, \\N a line break',
      srt: '1\n00:00:01,000 --> 00:00:02,000\n{\\an8}{\\i1}Top{\\i0} and {\\b1}bold{\\b0}\\Nsecond line\n',
      cues: [[1000, 2000, '<i>Top</i> and <b>bold</b>\nsecond line']],
    },
    {
      name: '&, <, > escaped; "a < b > c" is text; --> never inside the text',
      srt: '1\n00:00:01,000 --> 00:00:02,000\nTom & Jerry: a < b > c\nwait --> go\n',
      cues: [[1000, 2000, 'Tom &amp; Jerry: a &lt; b &gt; c\nwait --&gt; go']],
    },
    {
      name: 'unbalanced tags: an open tag closed at the end, a stray close dropped, crossing tags nested',
      srt: '1\n00:00:01,000 --> 00:00:02,000\n<i>open\n\n2\n00:00:03,000 --> 00:00:04,000\n</b>stray\n\n3\n00:00:05,000 --> 00:00:06,000\n<i><b>x</i>y</b>\n',
      cues: [
        [1000, 2000, '<i>open</i>'],
        [3000, 4000, 'stray'],
        [5000, 6000, '<i><b>x</b></i><b>y</b>'],
      ],
    },
    {
      name: 'a tag open over two lines stays open across the line break',
      srt: '1\n00:00:01,000 --> 00:00:02,000\n<i>one\ntwo</i>\n',
      cues: [[1000, 2000, '<i>one\ntwo</i>']],
    },
    {
      name: 'a cue of tags only and a cue ending before it starts are left out',
      srt: '1\n00:00:01,000 --> 00:00:02,000\n<i></i>\n\n2\n00:00:03,000 --> 00:00:02,000\nBackwards\n\n3\n00:00:04,000 --> 00:00:05,000\nKept\n',
      cues: [[4000, 5000, 'Kept']],
    },
    {
      name: 'period separators, short fractions as decimals, positions after the times ignored',
      srt: '1\n00:00:01.5 --> 00:00:02.25  X1:100 X2:200 Y1:10 Y2:20\nLoose\n',
      cues: [[1500, 2250, 'Loose']],
    },
    {
      name: 'cues out of order come out in start order',
      srt: '1\n00:00:05,000 --> 00:00:06,000\nLater\n\n2\n00:00:01,000 --> 00:00:02,000\nEarlier\n',
      cues: [
        [1000, 2000, 'Earlier'],
        [5000, 6000, 'Later'],
      ],
    },
    {
      name: 'spaces at line ends and leading spaces go; accents stay',
      srt: '1\n00:00:01,000 --> 00:00:02,000\n   Café crème   \n  <i>Très bien </i>\n',
      cues: [[1000, 2000, 'Café crème\n<i>Très bien</i>']],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = toWebVtt(c.srt, 'srt');
      assert.equal(result.format, 'srt');
      assert.deepEqual(parsed(result.vtt), c.cues);
      assert.equal(result.cues, c.cues.length);
    });
  }

  it('writes the exact file', () => {
    assert.equal(
      toWebVtt('1\r\n00:00:01,000 --> 00:00:02,500\r\nHi <i>there</i>\r\n', 'srt').vtt,
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nHi <i>there</i>\n',
    );
  });

  it('parseSrt gives the cue model', () => {
    assert.deepEqual(parseSrt('1\n00:00:00,001 --> 00:00:00,002\nx\n'), [
      { startMs: 1, endMs: 2, text: 'x' },
    ]);
  });
});

const ASS_HEADER = `[Script Info]
ScriptType: v4.00+
PlayResX: 384
PlayResY: 288

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,2,2,10,10,10,1
Style: Thoughts,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,-1,0,0,100,100,0,0,1,2,2,2,10,10,10,1
Style: Sign,Arial,28,&H0000FFFF,&H000000FF,&H00000000,&H00000000,-1,0,0,0,100,100,0,0,1,2,2,8,10,10,10,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
`;

describe('ASS/SSA → WebVTT', () => {
  const cases: { name: string; ass: string; cues: [number, number, string][] }[] = [
    {
      name: 'centiseconds → milliseconds, \\N and \\n line breaks, \\h a space, commas in the text kept',
      ass: `${ASS_HEADER}Dialogue: 0,0:00:01.23,0:00:02.45,Default,,0,0,0,,One, two\\Nthree\\nfour\\hfive\n`,
      cues: [[1230, 2450, 'One, two\nthree\nfour five']],
    },
    {
      name: '{\\i1}…{\\i0} → <i>…</i>; positions, colours, fonts, fades, karaoke, transforms dropped',
      ass: `${ASS_HEADER}Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,{\\pos(10,20)\\c&H00FF00&\\fnTimes}{\\i1}Whisper{\\i0} {\\k20}ka{\\kf30}ra{\\t(0,500,\\i1)\\fad(100,100)}oke {\\u1}under{\\u0} {\\b700}heavy{\\b400} {\\s1}struck\n`,
      cues: [[1000, 2000, '<i>Whisper</i> karaoke <u>under</u> <b>heavy</b> struck']],
    },
    {
      name: 'a style that is italic or bold stays so; \\i0 and \\r change it, \\i goes back to the style',
      ass: `${ASS_HEADER}Dialogue: 0,0:00:01.00,0:00:02.00,Thoughts,,0,0,0,,I think {\\i0}not{\\i} so\nDialogue: 0,0:00:03.00,0:00:04.00,Sign,,0,0,0,,BIG {\\b0}plain {\\r}bold {\\rThoughts}thought\n`,
      cues: [
        [1000, 2000, '<i>I think </i>not<i> so</i>'],
        [3000, 4000, '<b>BIG </b>plain <b>bold </b><i>thought</i>'],
      ],
    },
    {
      name: 'overlapping events are separate cues, in start order; Comment lines are not shown',
      ass: `${ASS_HEADER}Dialogue: 0,0:00:03.00,0:00:05.00,Default,,0,0,0,,Bottom line
Dialogue: 1,0:00:02.00,0:00:06.00,Sign,,0,0,0,,{\\an8}A sign
Comment: 0,0:00:02.00,0:00:06.00,Default,,0,0,0,,a note to the typesetter
`,
      cues: [
        [2000, 6000, '<b>A sign</b>'],
        [3000, 5000, 'Bottom line'],
      ],
    },
    {
      name: 'drawings are dropped (an event of a drawing only disappears); text after \\p0 stays',
      ass: `${ASS_HEADER}Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,{\\p1}m 0 0 l 100 0 100 100 0 100{\\p0}
Dialogue: 0,0:00:03.00,0:00:04.00,Default,,0,0,0,,{\\p2}m 0 0 l 5 5{\\p0}After
`,
      cues: [[3000, 4000, 'After']],
    },
    {
      name: 'comments in braces dropped; &, <, > escaped',
      ass: `${ASS_HEADER}Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,{TL note: pun}Fish & chips <3 -> yes\n`,
      cues: [[1000, 2000, 'Fish &amp; chips &lt;3 -&gt; yes']],
    },
    {
      name: 'the same text at the same time on two layers (a border copy) is one cue',
      ass: `${ASS_HEADER}Dialogue: 0,0:00:01.00,0:00:02.00,Sign,,0,0,0,,{\\blur4\\3c&H000000&}Exit
Dialogue: 1,0:00:01.00,0:00:02.00,Sign,,0,0,0,,{\\blur0}Exit
`,
      cues: [[1000, 2000, '<b>Exit</b>']],
    },
    {
      name: "fields read by the Format line's order (Text not last of the defaults, Start after End)",
      ass: `[Events]
Format: End, Start, Style, Layer, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0:00:02.50,0:00:01.50,Default,0,,0,0,0,,Reordered, with a comma
`,
      cues: [[1500, 2500, 'Reordered, with a comma']],
    },
    {
      name: 'SSA v4 ([V4 Styles], Marked=, -1 for italic)',
      ass: `[Script Info]
ScriptType: v4.00

[V4 Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, TertiaryColour, BackColour, Bold, Italic, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, AlphaLevel, Encoding
Style: *Default,Arial,20,16777215,65535,65535,-2147483640,0,-1,1,2,2,2,30,30,10,0,0

[Events]
Format: Marked, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: Marked=0,0:00:00.50,0:00:01.75,*Default,,0000,0000,0000,,Old school
`,
      cues: [[500, 1750, '<i>Old school</i>']],
    },
    {
      name: 'CRLF and a BOM',
      ass: `\uFEFF${crlf(`${ASS_HEADER}Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,Windows\\Nline ends\n`)}`,
      cues: [[1000, 2000, 'Windows\nline ends']],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = toWebVtt(c.ass, 'ass');
      assert.equal(result.format, 'ass');
      assert.deepEqual(parsed(result.vtt), c.cues);
    });
  }

  it('ssa is read by the same reader', () => {
    assert.equal(
      toWebVtt(`${ASS_HEADER}Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,x\n`, 'ssa').cues,
      1,
    );
  });

  it("exact times: each event takes the millisecond timing within its centisecond's rounding", () => {
    const ass = `${ASS_HEADER}Dialogue: 0,0:00:01.25,0:00:03.47,Default,,0,0,0,,Top
Dialogue: 0,0:00:01.25,0:00:03.47,Default,,0,0,0,,Bottom
Dialogue: 0,0:00:05.00,0:00:06.00,Default,,0,0,0,,No match keeps its own
`;
    const exactTimes = [
      { startMs: 1_251, endMs: 3_471 },
      { startMs: 1_254, endMs: 3_474 },
      { startMs: 9_000, endMs: 9_500 },
    ];
    assert.deepEqual(parsed(toWebVtt(ass, 'ass', { exactTimes }).vtt), [
      [1_251, 3_471, 'Top'],
      [1_254, 3_474, 'Bottom'],
      [5_000, 6_000, 'No match keeps its own'],
    ]);
  });

  it('subripTimings reads every timing line, cues without text too', () => {
    assert.deepEqual(
      subripTimings('1\r\n00:00:01,251 --> 00:00:03,471\r\n\r\n2\r\n00:00:05,000 --> 00:00:06,000\r\nx\r\n'),
      [
        { startMs: 1_251, endMs: 3_471 },
        { startMs: 5_000, endMs: 6_000 },
      ],
    );
  });

  it('parseAss without events finds nothing', () => {
    assert.deepEqual(parseAss(ASS_HEADER), []);
  });
});

describe('WebVTT as is', () => {
  it('strips the BOM and CRLF, keeps everything else', () => {
    const vtt =
      'WEBVTT - a title\n\nNOTE kept\n\nid-1\n00:01.000 --> 00:02.000 line:0\n<c.yellow>Hi</c> &amp; bye\n';
    const result = toWebVtt(`\uFEFF${crlf(vtt)}`, 'webvtt');
    assert.equal(result.vtt, vtt);
    assert.equal(result.cues, 1);
    assert.deepEqual(parsed(result.vtt), [[1000, 2000, '<c.yellow>Hi</c> &amp; bye']]);
  });

  it('adds the final line end', () => {
    assert.equal(
      checkWebVtt('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nx').vtt,
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nx\n',
    );
  });

  it('a WebVTT header without a cue is refused', () => {
    assert.throws(
      () => toWebVtt('WEBVTT\n\nNOTE nothing here\n', 'webvtt'),
      (err: unknown) => err instanceof SubtitleFormatError && err.problem === 'no_cues',
    );
  });

  it('a .vtt that is really SubRip is read as SubRip', () => {
    const result = toWebVtt('1\n00:00:01,000 --> 00:00:02,000\nNot VTT\n', 'webvtt');
    assert.equal(result.format, 'srt');
    assert.deepEqual(parsed(result.vtt), [[1000, 2000, 'Not VTT']]);
  });
});

describe('MicroDVD → WebVTT', () => {
  it('23.976 by default (24000/1001): frames to exact milliseconds', () => {
    const result = toWebVtt('{24}{48}One|two\n{240}{264}{y:i}Ten\n', 'microdvd');
    assert.deepEqual(parsed(result.vtt), [
      [1001, 2002, 'One\ntwo'],
      [10010, 11011, '<i>Ten</i>'],
    ]);
  });

  it('the file says its frame rate with {1}{1}25 (and it is no cue)', () => {
    assert.deepEqual(parsed(toWebVtt('{1}{1}25\n{25}{50}Hi\n', 'microdvd').vtt), [[1000, 2000, 'Hi']]);
    assert.deepEqual(parsed(toWebVtt('{0}{0}25.000\n{50}{75}Hi\n', 'microdvd').vtt), [[2000, 3000, 'Hi']]);
  });

  it("the video's frame rate when the file does not say", () => {
    assert.deepEqual(parseMicroDvd('{25}{50}x\n', 25), [{ startMs: 1000, endMs: 2000, text: 'x' }]);
  });

  it('{Y:i} for every line, {y:b} for one, / italic, other codes dropped', () => {
    const vtt = toWebVtt('{24}{48}{Y:i}{c:$0000FF}All|{y:b}bold\n{72}{96}/slash|plain\n', 'microdvd').vtt;
    assert.deepEqual(parsed(vtt), [
      [1001, 2002, '<i>All</i>\n<i><b>bold</b></i>'],
      [3003, 4004, '<i>slash</i>\nplain'],
    ]);
  });
});

describe('what is not subtitles', () => {
  for (const [name, text, format, problem] of [
    ['binary bytes', '\u0000\u0001\u0002PNG\u0003\u0004\u0005\u0006\u0007\u0008'.repeat(20), 'srt', 'binary'],
    ['text with no cue', 'Just some notes\nabout the film\n', 'srt', 'no_cues'],
    ['an ASS without events', ASS_HEADER, 'ass', 'no_cues'],
    ['an unknown format name and content', 'hello', 'ttml', 'unknown_format'],
    ['a MicroDVD with no cue', '{1}{1}25\n', 'microdvd', 'no_cues'],
  ] as const) {
    it(`${name} → SubtitleFormatError ${problem}`, () => {
      assert.throws(
        () => toWebVtt(text, format),
        (err: unknown) => err instanceof SubtitleFormatError && err.problem === problem,
      );
    });
  }

  it('a few stray control characters are not binary', () => {
    const result = toWebVtt('1\n00:00:01,000 --> 00:00:02,000\nOdd\u0001 text\n', 'srt');
    assert.equal(result.cues, 1);
  });
});

describe('sniffSubtitleFormat', () => {
  for (const [text, format] of [
    ['WEBVTT\n\n00:01.000 --> 00:02.000\nx', 'webvtt'],
    ['[Script Info]\nTitle: x\n', 'ass'],
    ['1\n00:00:01,000 --> 00:00:02,000\nx', 'srt'],
    ['{1}{25}x', 'microdvd'],
    ['hello', null],
  ] as const) {
    it(`${JSON.stringify(text.slice(0, 14))} → ${format}`, () =>
      assert.equal(sniffSubtitleFormat(text), format));
  }
});

describe('serializeWebVtt', () => {
  it('orders by start then end, drops empty and backwards cues', () => {
    assert.equal(
      serializeWebVtt([
        { startMs: 2000, endMs: 3000, text: 'b' },
        { startMs: 1000, endMs: 4000, text: 'a2' },
        { startMs: 1000, endMs: 2000, text: 'a1' },
        { startMs: 5000, endMs: 5000, text: 'zero' },
        { startMs: 6000, endMs: 7000, text: '' },
      ]),
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\na1\n\n00:00:01.000 --> 00:00:04.000\na2\n\n00:00:02.000 --> 00:00:03.000\nb\n',
    );
  });
});

describe('buildSubtitleExtractionArgs', () => {
  it('copies SubRip, ASS and WebVTT, converts the rest to SubRip; ASS twice (text, then times)', () => {
    const command = buildSubtitleExtractionArgs('/m/film.mkv', [
      { stream: 0, codec: 'srt' },
      { stream: 1, codec: 'ass' },
      { stream: 3, codec: 'mov_text' },
      { stream: 4, codec: 'webvtt' },
    ]);
    assert.deepEqual(command.args, [
      ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-copyts', '-i', '/m/film.mkv'],
      ...['-map', '0:s:0', '-c:s', 'copy', '-f', 'srt', 'pipe:3'],
      ...['-map', '0:s:1', '-c:s', 'copy', '-f', 'ass', 'pipe:4'],
      ...['-map', '0:s:1', '-c:s', 'srt', '-f', 'srt', 'pipe:5'],
      ...['-map', '0:s:3', '-c:s', 'srt', '-f', 'srt', 'pipe:6'],
      ...['-map', '0:s:4', '-c:s', 'copy', '-f', 'webvtt', 'pipe:7'],
    ]);
    assert.deepEqual(command.outputs, [
      { stream: 0, role: 'text' },
      { stream: 1, role: 'text' },
      { stream: 1, role: 'timings' },
      { stream: 3, role: 'text' },
      { stream: 4, role: 'text' },
    ]);
  });

  it('without timings an ASS stream has one pipe', () => {
    const command = buildSubtitleExtractionArgs('/m/a.mkv', [{ stream: 2, codec: 'ssa' }], {
      timings: false,
    });
    assert.deepEqual(command.outputs, [{ stream: 2, role: 'text' }]);
    assert.deepEqual(command.args.slice(-7), ['-map', '0:s:2', '-c:s', 'copy', '-f', 'ass', 'pipe:3']);
  });
});
