import type { DataStore } from '../../../adapters/data-store.ts';
import { renderMediaPlaylist } from '../../../domain/hls/playlists.ts';
import { AppError } from '../../../errors.ts';
import type { HlsFile, Presentation } from './presentation.ts';

/** The part of DataStore the segments use (its `segments` area, one folder per presentation). */
export type SegmentArea = Pick<
  DataStore,
  'list' | 'listFolders' | 'writeAtomic' | 'stat' | 'resolve' | 'removeFolder' | 'measure'
>;

const INIT = 'init.mp4';

/**
 * The segments of HLS presentations on disk: `segments/<presentation>/<rendition>/<n>.m4s` and
 * `init.mp4`, each written whole (atomically), and what each presentation knows is there.
 */
export class HlsSegmentStore {
  constructor(private readonly store: SegmentArea) {}

  /** What an earlier play (or a previous server) left on disk is reused. */
  async load(p: Presentation): Promise<void> {
    for (const r of p.renditions) {
      for (const name of await this.store.list('segments', `${p.key}/${r}`)) {
        if (name === INIT) p.inits.add(r);
        const match = /^(\d+)\.m4s$/.exec(name);
        if (match !== null) p.stored.get(r)?.add(Number(match[1]));
      }
    }
  }

  /** Stores one finished segment (`<n>.m4s`) or init section, unless it is there already. */
  async put(p: Presentation, rendition: string, name: string, bytes: Buffer): Promise<void> {
    const isInit = name === INIT;
    const index = isInit ? -1 : Number(name.slice(0, -'.m4s'.length));
    const already = isInit ? p.inits.has(rendition) : p.stored.get(rendition)?.has(index) === true;
    if (already) return;
    await this.store.writeAtomic('segments', `${p.key}/${rendition}/${name}`, bytes);
    if (isInit) p.inits.add(rendition);
    else p.stored.get(rendition)?.add(index);
  }

  /** A stored segment or init section with its ETag; 503 when the cache removed it meanwhile. */
  async file(p: Presentation, rendition: string, name: string): Promise<HlsFile> {
    const file = await this.store.stat('segments', `${p.key}/${rendition}/${name}`);
    if (file === null) {
      // Evicted between the check and the read: forget it, the next request makes it again.
      if (name === INIT) p.inits.delete(rendition);
      else p.stored.get(rendition)?.delete(Number(name.slice(0, -'.m4s'.length)));
      throw new AppError('artifact_building', {
        status: 503,
        message: 'That segment was just removed from the cache; it is being made again.',
        hint: 'Retry shortly.',
        headers: { 'retry-after': '1' },
      });
    }
    return { file, etag: `"${p.key}-${rendition}-${name}-${file.sizeBytes}"` };
  }

  /** A media playlist beside the segments (relative URIs), for ffmpeg to remux them: its absolute path. */
  async writeLocalPlaylist(p: Presentation, rendition: string): Promise<string> {
    const name = `${p.key}/${rendition}/local.m3u8`;
    const text = renderMediaPlaylist({
      segments: p.segments,
      initUri: INIT,
      segmentUri: (index) => `${index}.m4s`,
    });
    await this.store.writeAtomic('segments', name, Buffer.from(text));
    return this.store.resolve('segments', name);
  }

  /** The presentation folders on disk (those of earlier processes included). */
  folders(): Promise<string[]> {
    return this.store.listFolders('segments');
  }

  /** Bytes and newest write of a presentation's folder. */
  measure(key: string): Promise<{ bytes: number; newestMtimeMs: number }> {
    return this.store.measure('segments', key);
  }

  /** Removes a presentation's folder; `p` (when in memory) forgets what it had. */
  async remove(key: string, p: Presentation | undefined): Promise<void> {
    await this.store.removeFolder('segments', key);
    if (p !== undefined) {
      for (const set of p.stored.values()) set.clear();
      p.inits.clear();
    }
  }
}
