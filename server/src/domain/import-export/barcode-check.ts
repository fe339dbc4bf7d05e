/**
 * @module import-export/barcode-check
 * The default barcode rule of the importers: the project's {@link normalizeBarcode}
 * (server/src/domain/barcode.ts) adapted to {@link BarcodeNormalizer}, with messages a person can act
 * on. Barcodes are stored as the GTIN it returns (UPC-A as GTIN-13 with a leading 0), so a CSV that
 * says `036000291452` and a scan of the same disc meet on `0036000291452`.
 */
import { gtinCheckDigit, normalizeBarcode } from '../barcode.ts';
import { quoted } from './excerpt.ts';
import type { BarcodeCheck } from './types.ts';

/**
 * Checks a UPC-A / EAN-13 / EAN-8 / UPC-E / GTIN-14 barcode (spaces and dashes allowed).
 * @example checkBarcode('036000291452') // { ok: true, barcode: '0036000291452' }
 * @example checkBarcode('036000291453') // { ok: false, message: '"036000291453" has a wrong check digit …' }
 */
export function checkBarcode(input: string): BarcodeCheck {
  const result = normalizeBarcode(input);
  if (result.ok) return { ok: true, barcode: result.gtin };
  const digits = input.replace(/[\s-]+/g, '');
  switch (result.reason) {
    case 'not_digits':
      return { ok: false, message: `${quoted(input)} is not a barcode: a barcode has digits only` };
    case 'bad_length':
      return {
        ok: false,
        message: `${quoted(input)} has ${digits.length} digits: a UPC-A has 12, an EAN-13 13, an EAN-8 or UPC-E 8`,
      };
    case 'bad_check_digit':
      return {
        ok: false,
        message: `${quoted(input)} has a wrong check digit (the last digit should be ${gtinCheckDigit(digits.slice(0, -1))}): a typo in the barcode?`,
      };
    case 'isbn':
      return { ok: false, message: `${quoted(input)} is an ISBN (a book), not a disc barcode` };
  }
}
