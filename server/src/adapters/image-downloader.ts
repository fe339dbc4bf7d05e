/** A downloaded image. */
export interface DownloadedImage {
  bytes: Buffer;
  contentType: string;
}

/** Fetches images over HTTP with a timeout and a size bound; refuses anything but images. */
export class ImageDownloader {
  constructor(
    private readonly timeoutMs = 15_000,
    private readonly maxBytes = 20 * 1024 * 1024,
  ) {}

  async download(url: string): Promise<DownloadedImage> {
    const res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs), redirect: 'error' });
    if (!res.ok) throw new Error(`image download failed: HTTP ${res.status}`);
    const contentType = res.headers.get('content-type') ?? '';
    if (!/^image\/(jpeg|png|webp)/.test(contentType))
      throw new Error(`not an image (${contentType || 'no type'})`);
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > this.maxBytes) throw new Error('image too large');
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length > this.maxBytes) throw new Error('image too large');
    return { bytes, contentType };
  }
}
