/**
 * The Roku re-cut and the BIF's pictures, made from the sheets ffmpeg wrote (no second decode of
 * the film): each sheet is decoded once with sharp, its real thumbnails (not the black padding after
 * the last one) cut out, encoded as one JPEG each for the BIF and laid onto Roku-sized sheets.
 * Memory stays at one decoded sheet plus one Roku sheet's thumbnails.
 */
import sharp from 'sharp';

/** Thumbnail size and grids; only what the re-cut needs of a TrickplayLayout. */
export interface RecutLayout {
  thumbnailWidth: number;
  thumbnailHeight: number;
  tileWidth: number;
  tileHeight: number;
  thumbnailCount: number;
}

export interface RecutInput {
  /** The sheets' layout (Jellyfin's) with the real thumbnail count. */
  sheets: RecutLayout;
  /** The Roku grid for the same thumbnails. */
  roku: { tileWidth: number; tileHeight: number };
  /** Bytes of sheet `index` (JPEG). */
  readSheet(index: number): Promise<Buffer>;
  /** Stores Roku sheet `index` (JPEG); resolves once written. */
  writeRokuSheet(index: number, bytes: Buffer): Promise<void>;
  /** Awaited between sheets: a paused job waits here (never in a viewer's way). */
  between?(): Promise<void>;
}

export interface RecutResult {
  /** One JPEG per real thumbnail, in order (the BIF's pictures). */
  thumbnails: Buffer[];
  /** Byte size of each Roku sheet written, in order. */
  rokuSheetBytes: number[];
}

/** Quality of the BIF pictures and the Roku sheets: close to the MJPEG sheets' qscale 4. */
const JPEG_QUALITY = 85;
const CHANNELS = 3;

interface RawThumbnail {
  data: Buffer;
  channels: 1 | 2 | 3 | 4;
}

export async function recutThumbnails(input: RecutInput): Promise<RecutResult> {
  const { sheets, roku } = input;
  const w = sheets.thumbnailWidth;
  const h = sheets.thumbnailHeight;
  const perSheet = sheets.tileWidth * sheets.tileHeight;
  const perRoku = roku.tileWidth * roku.tileHeight;
  const thumbnails: Buffer[] = [];
  const rokuSheetBytes: number[] = [];
  let pending: RawThumbnail[] = [];

  const flushRoku = async () => {
    if (pending.length === 0) return;
    const bytes = await sharp({
      create: {
        width: roku.tileWidth * w,
        height: roku.tileHeight * h,
        channels: CHANNELS,
        background: { r: 0, g: 0, b: 0 },
      },
    })
      .composite(
        pending.map((thumb, cell) => ({
          input: thumb.data,
          raw: { width: w, height: h, channels: thumb.channels },
          left: (cell % roku.tileWidth) * w,
          top: Math.floor(cell / roku.tileWidth) * h,
        })),
      )
      .jpeg({ quality: JPEG_QUALITY })
      .toBuffer();
    await input.writeRokuSheet(rokuSheetBytes.length, bytes);
    rokuSheetBytes.push(bytes.length);
    pending = [];
  };

  const sheetCount = Math.ceil(sheets.thumbnailCount / perSheet);
  for (let index = 0; index < sheetCount; index++) {
    await input.between?.();
    const { data, info } = await sharp(await input.readSheet(index))
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.width < sheets.tileWidth * w || info.height < sheets.tileHeight * h) {
      throw new Error(
        `sheet ${index} is ${info.width}×${info.height}, smaller than its ${sheets.tileWidth}×${sheets.tileHeight} grid of ${w}×${h}`,
      );
    }
    const real = Math.min(perSheet, sheets.thumbnailCount - index * perSheet);
    for (let cell = 0; cell < real; cell++) {
      const left = (cell % sheets.tileWidth) * w;
      const top = Math.floor(cell / sheets.tileWidth) * h;
      const crop = Buffer.alloc(w * h * info.channels);
      for (let row = 0; row < h; row++) {
        const from = ((top + row) * info.width + left) * info.channels;
        data.copy(crop, row * w * info.channels, from, from + w * info.channels);
      }
      thumbnails.push(
        await sharp(crop, { raw: { width: w, height: h, channels: info.channels } })
          .jpeg({ quality: JPEG_QUALITY })
          .toBuffer(),
      );
      pending.push({ data: crop, channels: info.channels });
      if (pending.length === perRoku) await flushRoku();
    }
  }
  await flushRoku();
  return { thumbnails, rokuSheetBytes };
}
