/** Median and p95 (nearest rank) of a list of durations in ms. */
export function summarize(samples: number[]): { median: number; p95: number; min: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { median: at(0.5), p95: at(0.95), min: sorted[0] ?? Number.NaN };
}

export function ms(n: number): string {
  return `${n.toFixed(1)} ms`;
}
