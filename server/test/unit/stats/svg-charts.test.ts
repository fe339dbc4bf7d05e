// The /stats SVG charts (issue 27 item 6): pure markup, table-tested on what a reader and a screen
// reader get — names, values as text, escaping, scaling, accessible title and description.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { barChart, clip, lineChart, niceMax, stackedBars } from '../../../src/domain/stats/svg-charts.ts';

/** The text contents of every <text> element, in order. */
function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? '');
}

/** The widths of the filled bars (<rect> with a width, legend swatches of 20 left out). */
function widths(svg: string): number[] {
  return [...svg.matchAll(/<rect [^>]*width="([\d.]+)" height="(\d+)"/g)]
    .filter((m) => m[2] !== '20')
    .map((m) => Number(m[1]));
}

describe('barChart', () => {
  it('an accessible image: role, labelled by its title and description', () => {
    const svg = barChart([{ label: 'DVD', value: 3 }], { id: 'c1', title: 'Discs by format' });
    assert.match(svg, /^<svg [^>]*role="img"[^>]*aria-labelledby="c1-title c1-desc"/);
    assert.match(svg, /<title id="c1-title">Discs by format<\/title>/);
    assert.match(svg, /<desc id="c1-desc">DVD: 3<\/desc>/);
  });

  const cases: [name: string, data: { label: string; value: number }[], labels: string[], bars: number[]][] =
    [
      [
        'the largest bar is the full width, others in proportion',
        [
          { label: 'Blu-ray', value: 40 },
          { label: 'DVD', value: 20 },
          { label: '4K UHD', value: 10 },
        ],
        ['Blu-ray', '40', 'DVD', '20', '4K UHD', '10'],
        [490, 245, 122.5],
      ],
      [
        'a zero keeps its row and its 0, without a bar',
        [
          { label: 'A', value: 5 },
          { label: 'B', value: 0 },
        ],
        ['A', '5', 'B', '0'],
        [490],
      ],
      ['all zeros: no bars, no division by zero', [{ label: 'A', value: 0 }], ['A', '0'], []],
      ['thousands are grouped', [{ label: 'All', value: 12345 }], ['All', '12,345'], [490]],
    ];
  for (const [name, data, labels, bars] of cases) {
    it(name, () => {
      const svg = barChart(data, { id: 'c', title: 't' });
      assert.deepEqual(texts(svg), labels);
      assert.deepEqual(widths(svg), bars);
      assert.doesNotMatch(svg, /NaN|Infinity|undefined/);
    });
  }

  it('data cannot become markup', () => {
    const svg = barChart([{ label: '<script>"x"&', value: 1 }], { id: 'c"', title: '<b>' });
    assert.doesNotMatch(svg, /<script>|<b>/);
    assert.match(svg, /&lt;script&gt;&quot;x&quot;&amp;/);
    assert.match(svg, /id="c&quot;"/);
  });

  it('long labels are clipped on the bar, whole in the description', () => {
    const label = 'A library root with a very long name indeed';
    const svg = barChart([{ label, value: 1 }], { id: 'c', title: 't' });
    assert.equal(texts(svg)[0], clip(label, 20));
    assert.ok((texts(svg)[0] ?? '').endsWith('…'));
    assert.match(svg, new RegExp(`<desc id="c-desc">${label}: 1</desc>`));
  });

  it('a custom format writes values (disk space)', () => {
    const svg = barChart([{ label: 'Films', value: 2.5e12 }], {
      id: 'c',
      title: 't',
      format: (v) => `${(v / 1e12).toFixed(1)} TB`,
    });
    assert.deepEqual(texts(svg), ['Films', '2.5 TB']);
  });

  it('no data: says so', () => {
    assert.deepEqual(texts(barChart([], { id: 'c', title: 't' })), ['Nothing to show yet.']);
  });

  it('text is large enough for a TV (≥ 20 px in a 900 px chart)', () => {
    const svg = barChart([{ label: 'DVD', value: 3 }], { id: 'c', title: 't' });
    assert.match(svg, /viewBox="0 0 900 /);
    // Every <text> carries its size (none left to the 16 px default), and each is ≥ 20.
    const sizes = [...svg.matchAll(/<text [^>]*font-size="(\d+)"/g)].map((m) => Number(m[1]));
    assert.equal(sizes.length, texts(svg).length, svg);
    assert.equal(sizes.length > 0, true);
    for (const size of sizes) assert.ok(size >= 20, String(size));
  });
});

describe('stackedBars', () => {
  const series = [
    { name: 'Direct', colour: '#0a0' },
    { name: 'Converted', colour: '#00a' },
  ];

  it('100 %: each bar the full width, parts in proportion, counts written in the parts that fit', () => {
    const svg = stackedBars(
      [
        { label: 'Web', values: [30, 10] },
        { label: 'TV', values: [1, 99] },
      ],
      series,
      { id: 's', title: 'Playback', percent: true },
    );
    // 696 px of bar: 30/40 and 10/40; 1/100 is too narrow for its number.
    assert.deepEqual(widths(svg), [522, 174, 7, 689]);
    assert.deepEqual(texts(svg), ['Direct', 'Converted', 'Web', '30', '10', 'TV', '99']);
    assert.match(
      svg,
      /<desc id="s-desc">Web: Direct 30, Converted 10 \(of 40\); TV: Direct 1, Converted 99 \(of 100\)<\/desc>/,
    );
    // Every part names itself on hover and for assistive technology.
    assert.match(svg, /<title>TV · Direct: 1<\/title>/);
  });

  it('counts: bars scaled to the largest total, the total after each bar', () => {
    const svg = stackedBars(
      [
        { label: 'A', values: [50, 50] },
        { label: 'B', values: [25, 0] },
      ],
      series,
      { id: 's', title: 't' },
    );
    assert.deepEqual(widths(svg), [283, 283, 141.5]);
    assert.deepEqual(texts(svg), ['Direct', 'Converted', 'A', '50', '50', '100', 'B', '25', '25']);
  });

  it('a row of zeros draws no part and no NaN', () => {
    const svg = stackedBars([{ label: 'Roku', values: [0, 0] }], series, {
      id: 's',
      title: 't',
      percent: true,
    });
    assert.deepEqual(widths(svg), []);
    assert.doesNotMatch(svg, /NaN|Infinity/);
  });
});

describe('lineChart', () => {
  it('a line and its area over the points; the last value written at its end', () => {
    const svg = lineChart(
      [
        { label: 'Jan', value: 0 },
        { label: 'Feb', value: 5 },
        { label: 'Mar', value: 10 },
      ],
      { id: 'l', title: 'Rip queue' },
    );
    assert.match(svg, /<polyline points="90,324 440,172 790,20"/);
    assert.match(svg, /<polygon points="90,324 90,324 440,172 790,20 790,324"/);
    assert.deepEqual(texts(svg), ['0', '5', '10', '10', 'Jan', 'Feb', 'Mar']);
    assert.match(svg, /<desc id="l-desc">3 points from Jan \(0\) to Mar \(10\); highest 10 in Mar\.<\/desc>/);
  });

  it('one point sits in the middle; about six x labels for long series', () => {
    assert.match(lineChart([{ label: 'Now', value: 3 }], { id: 'l', title: 't' }), /<polyline points="440,/);
    const many = Array.from({ length: 24 }, (_, i) => ({ label: `m${i}`, value: i }));
    const labels = texts(lineChart(many, { id: 'l', title: 't' })).filter((t) => t.startsWith('m'));
    assert.deepEqual(labels, ['m3', 'm7', 'm11', 'm15', 'm19', 'm23']);
  });

  const nice: [number, number][] = [
    [0, 1],
    [1, 1],
    [3, 5],
    [7, 10],
    [11, 20],
    [150, 200],
    [480, 500],
    [501, 1000],
  ];
  for (const [value, expected] of nice)
    it(`niceMax(${value}) = ${expected}`, () => assert.equal(niceMax(value), expected));
});
