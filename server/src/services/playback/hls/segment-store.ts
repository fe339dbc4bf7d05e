import type { DataStore } from '../../../adapters/data-store.ts';
import { renderMediaPlaylist } from '../../../domain/hls/playlists.ts';
import { AppError } from '../../../errors.ts';
import { INIT_INDEX } from '../../../domain/hls/run-ownership.ts';
import type { HlsFile, Presentation } from './presentation.ts';

/** The part of DataStore the segments use (its `segments` area, one folder per presentation). */
export type SegmentArea = Pick<
  DataStore,
  'listFolders' | 'writeAtomic' | 'stat' | 'resolve' | 'removeFolder' | 'measure' | 'remove'
>;

const INIT = 'init.mp4';
/**
 * A just-announced file another node wrote may not be visible here yet (NFS shows renames late):
 * looked for this many times, this far apart, before the request gets 503 + Retry-After.
 */
const VISIBLE_TRIES = 5;
const VISIBLE_RETRY_MS = 100;

/** Where a run hands a finished file for its announcement (fenced); false: the claim was lost. */
export type Announce = (fileName: string, index: number, bytes: number) => Promise<boolean>;

/**
 * The segments of HLS presentations on disk: `segments/<presentation>/<rendition>/<n>.<epoch>.m4s`
 * and `init.<epoch>.mp4`, each written whole (atomically) under a name carrying the epoch of the
 * claim that made it (a run presumed dead never overwrites its successor's files), then announced in
 * `hls_segments`; what is served is what was announced.
 */
export class HlsSegmentStore {
  constructor(private readonly store: SegmentArea) {}

  /**
   * Stores one finished segment (`<n>.m4s`) or init section (`init.mp4`) of a run, unless it is
   * announced already, and announces it.
   * @returns false when the announcement was refused (the claim was lost: the file is removed)
   * @throws when the file could not be written or the announcement failed (the file is removed)
   */
  async put(
    p: Presentation,
    epoch: number,
    rendition: string,
    name: string,
    bytes: Buffer,
    announce: Announce,
  ): Promise<boolean> {
    const isInit = name === INIT;
    const index = isInit ? INIT_INDEX : Number(name.slice(0, -'.m4s'.length));
    const already = isInit ? p.inits.has(rendition) : p.stored.get(rendition)?.has(index) === true;
    if (already) return true;
    const fileName = isInit ? `init.${epoch}.mp4` : `${index}.${epoch}.m4s`;
    const path = `${p.key}/${rendition}/${fileName}`;
    await this.store.writeAtomic('segments', path, bytes);
    let announced = false;
    try {
      announced = await announce(fileName, index, bytes.length);
    } finally {
      // Refused, or failed: a file nobody is told of does not stay.
      if (!announced) await this.store.remove('segments', path).catch(() => undefined);
    }
    if (!announced) return false;
    if (isInit) p.inits.set(rendition, fileName);
    else p.stored.get(rendition)?.set(index, fileName);
    return true;
  }

  /**
   * An announced segment (`index`) or init section (`'init'`) with its ETag; 503 + Retry-After when
   * its file is not there (the cache removed it, or another node's file is not visible here yet).
   */
  async file(p: Presentation, rendition: string, which: number | 'init'): Promise<HlsFile> {
    const fileName = which === 'init' ? p.inits.get(rendition) : p.stored.get(rendition)?.get(which);
    for (let attempt = 1; fileName !== undefined; attempt++) {
      const file = await this.store.stat('segments', `${p.key}/${rendition}/${fileName}`);
      if (file !== null) return { file, etag: `"${p.key}-${rendition}-${fileName}-${file.sizeBytes}"` };
      if (attempt >= VISIBLE_TRIES) break;
      await new Promise((resolve) => setTimeout(resolve, VISIBLE_RETRY_MS));
    }
    // Gone: forget it here (a node that reads the announcements again learns whether it still is).
    if (which === 'init') p.inits.delete(rendition);
    else p.stored.get(rendition)?.delete(which);
    throw new AppError('artifact_building', {
      status: 503,
      message: 'That segment is not on disk here (just removed from the cache, or not visible yet).',
      hint: 'Retry shortly.',
      headers: { 'retry-after': '1' },
    });
  }

  /** A media playlist beside the segments (relative URIs), for ffmpeg to remux them: its absolute path. */
  async writeLocalPlaylist(p: Presentation, rendition: string): Promise<string> {
    const name = `${p.key}/${rendition}/local.m3u8`;
    const stored = p.stored.get(rendition);
    const init = p.inits.get(rendition);
    if (init === undefined) throw new Error(`the init section of ${rendition} is not announced`);
    const text = renderMediaPlaylist({
      segments: p.segments,
      initUri: init,
      segmentUri: (index) => {
        const fileName = stored?.get(index);
        if (fileName === undefined) throw new Error(`segment ${index} of ${rendition} is not announced`);
        return fileName;
      },
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
      for (const map of p.stored.values()) map.clear();
      p.inits.clear();
    }
  }
}
