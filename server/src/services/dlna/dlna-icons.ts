/**
 * The device icons TVs show beside the server's name (description.xml's iconList): a small built-in
 * drawing (a film frame) rendered by sharp once per size and type, then kept.
 */
import sharp from 'sharp';
import type { DlnaIconSize, DlnaIconType } from '../../domain/dlna/description.ts';

const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 120">
<rect width="120" height="120" rx="18" fill="#1f2937"/>
<rect x="18" y="30" width="84" height="60" rx="6" fill="#f59e0b"/>
<g fill="#1f2937">${[0, 1, 2, 3, 4, 5]
  .map(
    (i) =>
      `<rect x="${24 + i * 13}" y="34" width="7" height="7"/><rect x="${24 + i * 13}" y="79" width="7" height="7"/>`,
  )
  .join('')}</g>
<path d="M52 50 L72 60 L52 70 Z" fill="#1f2937"/>
</svg>`;

export interface DlnaIcon {
  bytes: Buffer;
  contentType: string;
}

export class DlnaIcons {
  private readonly kept = new Map<string, Promise<DlnaIcon>>();

  get(size: DlnaIconSize, type: DlnaIconType): Promise<DlnaIcon> {
    const key = `${size}.${type}`;
    let icon = this.kept.get(key);
    if (icon === undefined) {
      icon = render(size, type);
      this.kept.set(key, icon);
    }
    return icon;
  }
}

async function render(size: DlnaIconSize, type: DlnaIconType): Promise<DlnaIcon> {
  // 24-bit as the description says: no alpha channel, flattened on the frame's own dark colour.
  const image = sharp(Buffer.from(ICON_SVG)).resize(size, size).flatten({ background: '#1f2937' });
  const bytes = type === 'png' ? await image.png().toBuffer() : await image.jpeg({ quality: 90 }).toBuffer();
  return { bytes, contentType: `image/${type}` };
}
