/**
 * Disc barcodes (GS1 GTINs): validation and normalisation, no I/O (reference metadata.md §3.5).
 *
 * - 12 digits → UPC-A, stored as GTIN-13 (`0` + code), sent to the UPC service as the 12 digits.
 * - 13 digits → EAN-13; one starting with `0` is a UPC-A written as GTIN-13, so it is reported as
 *   UPC-A and sent as 12 digits. `978`/`979` (Bookland, ISBN) are refused: books, not discs.
 * - 14 digits → GTIN-14; indicator digit `0` means the same item as its GTIN-13 (normalised to it),
 *   any other indicator is a case/pack code, kept as 14 digits.
 * - 8 digits → UPC-E when it starts with 0/1 and its check digit is the one of its UPC-A expansion
 *   (stored as that UPC-A's GTIN-13), else EAN-8 (kept as 8 digits).
 *
 * The GTIN is always a string: leading zeros matter.
 */

export type BarcodeKind = 'UPC-A' | 'EAN-13' | 'EAN-8' | 'UPC-E' | 'GTIN-14';

export type BarcodeRejection = 'not_digits' | 'bad_length' | 'bad_check_digit' | 'isbn';

export type NormalizedBarcode =
  | {
      ok: true;
      /** What to store and compare: GTIN-13 (UPC-A, UPC-E, EAN-13), GTIN-14, or the 8 EAN-8 digits. */
      gtin: string;
      kind: BarcodeKind;
      /** What to send to the UPC service: 12-digit UPC-A when the code is one, else the digits. */
      upc: string;
    }
  | { ok: false; reason: BarcodeRejection };

/**
 * GS1 mod-10 check digit of `body` (the digits without the check digit): weights 3,1,3,… from the
 * rightmost data digit.
 */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const d = body.charCodeAt(body.length - 1 - i) - 48;
    sum += d * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

/** True when the last digit of an all-digit string is its GS1 check digit. */
export function hasValidCheckDigit(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  return gtinCheckDigit(digits.slice(0, -1)) === Number(digits.slice(-1));
}

/**
 * Expands an 8-digit UPC-E (`N d1…d6 C`, N ∈ {0,1}) to its 12-digit UPC-A, keeping its check digit
 * `C`; null when the input is not 8 digits with number system 0 or 1. The caller verifies the check.
 * @example expandUpcE('04252614') === '042100005264'
 */
export function expandUpcE(code: string): string | null {
  if (!/^[01]\d{7}$/.test(code)) return null;
  const n = code.charAt(0);
  const [d1, d2, d3, d4, d5, d6] = code.slice(1, 7).split('');
  const c = code.charAt(7);
  let body: string;
  switch (d6) {
    case '0':
    case '1':
    case '2':
      body = `${d1}${d2}${d6}0000${d3}${d4}${d5}`;
      break;
    case '3':
      body = `${d1}${d2}${d3}00000${d4}${d5}`;
      break;
    case '4':
      body = `${d1}${d2}${d3}${d4}00000${d5}`;
      break;
    default:
      body = `${d1}${d2}${d3}${d4}${d5}0000${d6}`;
  }
  return `${n}${body}${c}`;
}

/**
 * Validates and normalises a scanned or typed barcode. Spaces and dashes are ignored.
 * @example normalizeBarcode('0-36000-29145-2') → { ok: true, gtin: '0036000291452', kind: 'UPC-A', upc: '036000291452' }
 */
export function normalizeBarcode(input: string): NormalizedBarcode {
  const digits = input.replace(/[\s\-‐‑–]+/g, '');
  if (digits === '' || !/^\d+$/.test(digits)) return { ok: false, reason: 'not_digits' };
  switch (digits.length) {
    case 8:
      return normalizeEight(digits);
    case 12:
      return hasValidCheckDigit(digits)
        ? { ok: true, gtin: `0${digits}`, kind: 'UPC-A', upc: digits }
        : { ok: false, reason: 'bad_check_digit' };
    case 13:
      return normalizeThirteen(digits);
    case 14:
      if (!hasValidCheckDigit(digits)) return { ok: false, reason: 'bad_check_digit' };
      // Indicator 0: the same trade item as the GTIN-13 (leading zeros do not change the check digit).
      if (digits.startsWith('0')) return normalizeThirteen(digits.slice(1));
      return { ok: true, gtin: digits, kind: 'GTIN-14', upc: digits };
    default:
      return { ok: false, reason: 'bad_length' };
  }
}

function normalizeThirteen(digits: string): NormalizedBarcode {
  if (!hasValidCheckDigit(digits)) return { ok: false, reason: 'bad_check_digit' };
  if (digits.startsWith('978') || digits.startsWith('979')) return { ok: false, reason: 'isbn' };
  if (digits.startsWith('0')) return { ok: true, gtin: digits, kind: 'UPC-A', upc: digits.slice(1) };
  return { ok: true, gtin: digits, kind: 'EAN-13', upc: digits };
}

function normalizeEight(digits: string): NormalizedBarcode {
  const expanded = expandUpcE(digits);
  if (expanded !== null && hasValidCheckDigit(expanded)) {
    return { ok: true, gtin: `0${expanded}`, kind: 'UPC-E', upc: expanded };
  }
  if (hasValidCheckDigit(digits)) return { ok: true, gtin: digits, kind: 'EAN-8', upc: digits };
  return { ok: false, reason: 'bad_check_digit' };
}
