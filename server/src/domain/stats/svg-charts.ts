/**
 * Small server-rendered SVG charts for /stats (issue 27 item 6): a bar chart, stacked bars (counts
 * or shares of 100 %) and a line chart with its area. Pure functions from data to markup; no
 * client script, no chart library. Drawn for a 1080p TV: a chart is about 900 px wide there, so
 * text is 20–24 px in the viewBox's units and every bar carries its value as text (the value is
 * never told by colour alone). Each chart is an `img` with a <title> and a <desc> that says the
 * figures in words for screen readers.
 */
import { escapeXml } from '../xml-text.ts';

/** Colours at ≥ 3:1 against the page's dark surface (#1c2128) and against white (print, light theme). */
export const PALETTE = ['#3b82f6', '#e8590c', '#2f9e44', '#9c36b5', '#868e96', '#e03131'] as const;

export interface BarDatum {
  label: string;
  value: number;
}

export interface ChartText {
  /** The chart's name: its <title> (and the accessible name). */
  title: string;
  /** An id prefix unique on the page (the <title>/<desc> ids are made from it). */
  id: string;
  /** How a value is written on a bar, in the description and on the axis; default: the integer. */
  format?: (value: number) => string;
}

export interface Series {
  name: string;
  colour: string;
}

export interface StackedRow {
  label: string;
  /** One value per series, in the series' order. */
  values: readonly number[];
}

const WIDTH = 900;
const FONT = 22;
const SMALL = 20;

/** A number as an attribute: at most one decimal, no `-0`. */
function n(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

const integer = (value: number): string => Math.round(value).toLocaleString('en-US');

/**
 * A label cut to `max` characters with an ellipsis (the full text stays in the description).
 */
export function clip(label: string, max: number): string {
  return label.length <= max ? label : `${label.slice(0, Math.max(1, max - 1))}…`;
}

/** The opening of a chart: role, accessible name and description. */
function open(text: ChartText, height: number, description: string): string {
  const t = `${text.id}-title`;
  const d = `${text.id}-desc`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="${escapeXml(text.id)}" role="img" ` +
    `viewBox="0 0 ${WIDTH} ${n(height)}" width="${WIDTH}" height="${n(height)}" ` +
    `aria-labelledby="${escapeXml(t)} ${escapeXml(d)}" font-family="system-ui, sans-serif">` +
    `<title id="${escapeXml(t)}">${escapeXml(text.title)}</title>` +
    `<desc id="${escapeXml(d)}">${escapeXml(description)}</desc>`
  );
}

function empty(text: ChartText): string {
  return `${open(text, 80, 'Nothing to show yet.')}<text x="0" y="48" font-size="${FONT}" fill="currentColor">Nothing to show yet.</text></svg>`;
}

/**
 * Horizontal bars, one per datum, in the given order: label at the left, value after the bar.
 * Bars are scaled to the largest value; a zero value draws no bar but keeps its row and its "0".
 */
export function barChart(data: readonly BarDatum[], text: ChartText, colour: string = PALETTE[0]): string {
  if (data.length === 0) return empty(text);
  const fmt = text.format ?? integer;
  const row = 44;
  const labelWidth = 260;
  const valueRoom = 150;
  const barMax = WIDTH - labelWidth - valueRoom;
  const max = Math.max(...data.map((d) => d.value), 0);
  const height = data.length * row + 8;
  const description = data.map((d) => `${d.label}: ${fmt(d.value)}`).join('; ');
  const rows = data.map((d, i) => {
    const y = i * row + 4;
    const w = max <= 0 ? 0 : (Math.max(0, d.value) / max) * barMax;
    const bar =
      w > 0
        ? `<rect x="${labelWidth}" y="${n(y + 6)}" width="${n(w)}" height="${row - 12}" rx="4" fill="${colour}"/>`
        : '';
    return (
      `<g class="bar"><text x="${labelWidth - 12}" y="${n(y + row / 2 + 7)}" font-size="${FONT}" text-anchor="end" fill="currentColor">${escapeXml(clip(d.label, 20))}</text>` +
      bar +
      `<text x="${n(labelWidth + w + 10)}" y="${n(y + row / 2 + 7)}" font-size="${FONT}" font-weight="600" fill="currentColor">${escapeXml(fmt(d.value))}</text></g>`
    );
  });
  return `${open(text, height, description)}${rows.join('')}</svg>`;
}

/** A legend row: a swatch and the series name, side by side. */
function legend(series: readonly Series[], y: number): string {
  let x = 0;
  return series
    .map((s) => {
      const item =
        `<rect x="${n(x)}" y="${n(y - 17)}" width="20" height="20" rx="3" fill="${s.colour}"/>` +
        `<text x="${n(x + 28)}" y="${n(y)}" font-size="${SMALL}" fill="currentColor">${escapeXml(s.name)}</text>`;
      x += 28 + s.name.length * 11 + 28;
      return item;
    })
    .join('');
}

/**
 * Horizontal stacked bars, one per row; with `percent` every bar is the full width (shares of 100 %)
 * and each part says its count, else bars are scaled to the largest total. A part too narrow for its
 * number leaves it out of the bar (the description and the total still say it).
 */
export function stackedBars(
  rows: readonly StackedRow[],
  series: readonly Series[],
  text: ChartText & { percent?: boolean },
): string {
  if (rows.length === 0) return empty(text);
  const fmt = text.format ?? integer;
  const row = 52;
  const labelWidth = 200;
  const totalRoom = text.percent === true ? 0 : 130;
  const barMax = WIDTH - labelWidth - totalRoom - 4;
  const totals = rows.map((r) => r.values.reduce((a, b) => a + Math.max(0, b), 0));
  const max = Math.max(...totals, 0);
  const top = 36;
  const height = top + rows.length * row + 8;
  const description = rows
    .map(
      (r, i) =>
        `${r.label}: ${series.map((s, k) => `${s.name} ${fmt(r.values[k] ?? 0)}`).join(', ')} (of ${fmt(totals[i] ?? 0)})`,
    )
    .join('; ');
  const bars = rows.map((r, i) => {
    const y = top + i * row;
    const total = totals[i] ?? 0;
    const scale = total <= 0 ? 0 : text.percent === true ? barMax / total : barMax / (max || 1);
    let x = labelWidth;
    const parts = series.map((s, k) => {
      const v = Math.max(0, r.values[k] ?? 0);
      const w = v * scale;
      if (w <= 0) return '';
      const label = fmt(v);
      const fits = w >= label.length * 12 + 12;
      const part =
        `<rect x="${n(x)}" y="${n(y + 6)}" width="${n(w)}" height="${row - 12}" fill="${s.colour}"><title>${escapeXml(`${r.label} · ${s.name}: ${label}`)}</title></rect>` +
        (fits
          ? `<text x="${n(x + w / 2)}" y="${n(y + row / 2 + 7)}" font-size="${SMALL}" font-weight="600" text-anchor="middle" fill="#ffffff">${escapeXml(label)}</text>`
          : '');
      x += w;
      return part;
    });
    const after =
      text.percent === true
        ? ''
        : `<text x="${n(x + 10)}" y="${n(y + row / 2 + 7)}" font-size="${FONT}" font-weight="600" fill="currentColor">${escapeXml(fmt(total))}</text>`;
    return (
      `<g class="bar"><text x="${labelWidth - 12}" y="${n(y + row / 2 + 7)}" font-size="${FONT}" text-anchor="end" fill="currentColor">${escapeXml(clip(r.label, 15))}</text>` +
      `${parts.join('')}${after}</g>`
    );
  });
  return `${open(text, height, description)}${legend(series, 22)}${bars.join('')}</svg>`;
}

/** A rounded-up axis maximum: 1, 2 or 5 times a power of ten (at least 1). */
export function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/**
 * A line over points in order (months, say) with the area under it filled; the y axis from 0 to a
 * round maximum with three grid lines, about six evenly spaced x labels ending at the last point, and
 * the last point's value written at it.
 */
export function lineChart(points: readonly BarDatum[], text: ChartText, colour: string = PALETTE[1]): string {
  if (points.length === 0) return empty(text);
  const fmt = text.format ?? integer;
  const height = 380;
  const left = 90;
  const right = 110;
  const top = 20;
  const bottom = 56;
  const plotW = WIDTH - left - right;
  const plotH = height - top - bottom;
  const max = niceMax(Math.max(...points.map((p) => p.value)));
  const xAt = (i: number) => left + (points.length === 1 ? plotW / 2 : (i / (points.length - 1)) * plotW);
  const yAt = (v: number) => top + plotH - (Math.max(0, v) / max) * plotH;
  const grid = [0, 0.5, 1]
    .map((f) => {
      const y = yAt(max * f);
      return (
        `<line x1="${left}" x2="${left + plotW}" y1="${n(y)}" y2="${n(y)}" stroke="currentColor" stroke-opacity="0.25"/>` +
        `<text x="${left - 10}" y="${n(y + 7)}" font-size="${SMALL}" text-anchor="end" fill="currentColor">${escapeXml(fmt(max * f))}</text>`
      );
    })
    .join('');
  const line = points.map((p, i) => `${n(xAt(i))},${n(yAt(p.value))}`).join(' ');
  const area = `${n(xAt(0))},${n(yAt(0))} ${line} ${n(xAt(points.length - 1))},${n(yAt(0))}`;
  const every = Math.max(1, Math.ceil(points.length / 6));
  const labels = points
    .map((p, i) =>
      // Counted back from the last point (always labelled), so no two labels crowd at the end.
      (points.length - 1 - i) % every === 0
        ? `<text x="${n(xAt(i))}" y="${height - 20}" font-size="${SMALL}" text-anchor="middle" fill="currentColor">${escapeXml(p.label)}</text>`
        : '',
    )
    .join('');
  const last = points[points.length - 1] as BarDatum;
  const first = points[0] as BarDatum;
  const peak = points.reduce((a, b) => (b.value > a.value ? b : a), first);
  const description =
    `${points.length} points from ${first.label} (${fmt(first.value)}) to ${last.label} (${fmt(last.value)}); ` +
    `highest ${fmt(peak.value)} in ${peak.label}.`;
  return (
    `${open(text, height, description)}${grid}` +
    `<polygon points="${area}" fill="${colour}" fill-opacity="0.3"/>` +
    `<polyline points="${line}" fill="none" stroke="${colour}" stroke-width="4" stroke-linejoin="round"/>` +
    `<circle cx="${n(xAt(points.length - 1))}" cy="${n(yAt(last.value))}" r="7" fill="${colour}"/>` +
    `<text x="${n(xAt(points.length - 1) + 14)}" y="${n(yAt(last.value) + 8)}" font-size="${FONT}" font-weight="600" fill="currentColor">${escapeXml(fmt(last.value))}</text>` +
    `${labels}</svg>`
  );
}
