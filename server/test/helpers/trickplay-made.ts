/**
 * Made trickplay sets for the serving surfaces' tests, standing in for the trickplay job: the real
 * one-pass ffmpeg (TrickplayFfmpeg + buildSheetArgs) writes Jellyfin's sheets of the file's film,
 * sharp cuts them into thumbnails for the Roku re-cut and the BIF (writeBif), and a small
 * TrickplayReader serves them through ServerOverrides.trickplayReader.
 *
 * The API is what a test needs and no more, so that it can later be pointed at the real job:
 *   const server = await startTrickplayServer();           // the real server, this reader inside
 *   const made = await makeTrickplayFor(server, fileId);   // as a finished job would leave it
 *   setTrickplayStatus(server, fileId, {state: 'running', jobId: 7});  // the states before "ready"
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { checkedFileAt } from '../../src/adapters/file-system.ts';
import { TrickplayFfmpeg } from '../../src/adapters/trickplay-ffmpeg.ts';
import type { StoredFile } from '../../src/adapters/data-store.ts';
import type { Capabilities } from '../../src/domain/media/capabilities.ts';
import { writeBif } from '../../src/domain/trickplay/bif.ts';
import {
  DEFAULT_TRICKPLAY_OPTIONS,
  planTrickplay,
  rokuLayout,
  sheetCount,
  sheetSize,
  thumbnailsPerSheet,
  type TrickplayLayout,
  type TrickplayOptions,
} from '../../src/domain/trickplay/geometry.ts';
import { buildSheetArgs, type SheetMode } from '../../src/domain/trickplay/sheet-command.ts';
import { AppError } from '../../src/errors.ts';
import type {
  TrickplayMade,
  TrickplayReader,
  TrickplayStatus,
  TrickplayVariant,
} from '../../src/services/trickplay/trickplay-ports.ts';
import { fixtureFfmpeg } from './media.ts';
import { startTestServer, type TestServer } from './test-server.ts';

interface Stored {
  made: TrickplayMade;
  dir: string;
}

function gone(message: string): AppError {
  return new AppError('not_found', { message });
}

/** A TrickplayReader over sets made in a temporary folder, with settable states before "ready". */
export class TestTrickplayReader implements TrickplayReader {
  readonly enabled: boolean;
  private readonly sets = new Map<number, Stored>();
  private readonly states = new Map<number, TrickplayStatus>();
  /** Every status / made / madeMany call (tests: a kept answer still asks). */
  calls = 0;

  constructor(
    readonly root: string,
    options: { enabled?: boolean } = {},
  ) {
    this.enabled = options.enabled ?? true;
  }

  put(made: TrickplayMade, dir: string): void {
    this.sets.set(made.fileId, { made, dir });
    this.states.delete(made.fileId);
  }

  setStatus(fileId: number, status: TrickplayStatus): void {
    if (status.state === 'ready') this.sets.set(fileId, { made: status.made, dir: this.dirOf(fileId) });
    else {
      this.sets.delete(fileId);
      this.states.set(fileId, status);
    }
  }

  private dirOf(fileId: number): string {
    const dir = this.sets.get(fileId)?.dir;
    if (dir === undefined) throw new Error(`no set of file ${fileId} to mark ready`);
    return dir;
  }

  status(fileId: number): Promise<TrickplayStatus> {
    this.calls++;
    const set = this.sets.get(fileId);
    if (set !== undefined) return Promise.resolve({ state: 'ready', made: set.made });
    return Promise.resolve(this.states.get(fileId) ?? { state: 'none' });
  }

  made(fileId: number): Promise<TrickplayMade | null> {
    this.calls++;
    return Promise.resolve(this.sets.get(fileId)?.made ?? null);
  }

  madeMany(fileIds: readonly number[]): Promise<Map<number, TrickplayMade>> {
    this.calls++;
    const out = new Map<number, TrickplayMade>();
    for (const id of fileIds) {
      const made = this.sets.get(id)?.made;
      if (made !== undefined) out.set(id, made);
    }
    return Promise.resolve(out);
  }

  sheet(fileId: number, generation: number, variant: TrickplayVariant, index: number): Promise<StoredFile> {
    const set = this.sets.get(fileId);
    if (set === undefined || set.made.generation !== generation) {
      return Promise.reject(gone(`File ${fileId} has no trickplay set ${generation}.`));
    }
    const layout = variant === 'sheets' ? set.made.layout : set.made.roku.layout;
    if (!Number.isInteger(index) || index < 0 || index >= sheetCount(layout)) {
      return Promise.reject(gone(`Set ${generation} of file ${fileId} has no sheet ${index}.`));
    }
    return Promise.resolve(fileAt(join(set.dir, variant, `${index}.jpg`)));
  }

  bif(fileId: number): Promise<StoredFile> {
    const set = this.sets.get(fileId);
    if (set === undefined) return Promise.reject(gone(`File ${fileId} has no trickplay set.`));
    return Promise.resolve(fileAt(join(set.dir, 'trickplay.bif')));
  }
}

function fileAt(path: string): StoredFile {
  const stat = statSync(path);
  return checkedFileAt(path, stat.size, Math.floor(stat.mtimeMs));
}

export interface MakeOptions {
  /** Layout options (default: Jellyfin's, as the job). */
  options?: Partial<TrickplayOptions>;
  mode?: SheetMode;
  /** The generation (the job id of a real set); default: one more than the last made here. */
  generation?: number;
}

let lastGeneration = 100;

/**
 * Makes the set of one film as the job would: the sheets by the real ffmpeg pass, the Roku re-cut
 * and the BIF from the sheets' thumbnails (sharp), and returns its record. `dir` gets
 * `sheets/`, `roku/` and `trickplay.bif` (the storage layout of trickplay-ports.ts below the generation).
 */
export async function makeTrickplaySet(
  dir: string,
  film: { fileId: number; path: string; capabilities: Capabilities },
  make: MakeOptions = {},
): Promise<TrickplayMade> {
  const video = film.capabilities.video;
  const plan = planTrickplay(
    {
      durationSeconds: film.capabilities.duration_seconds,
      displayWidth: video?.width ?? null,
      displayHeight: video?.height ?? null,
    },
    { ...DEFAULT_TRICKPLAY_OPTIONS, ...make.options },
  );
  if (!plan.ok) throw new Error(`no trickplay for file ${film.fileId}: ${plan.message}`);
  const { layout } = plan;
  const roku = rokuLayout(layout);
  if (roku === null) throw new Error('the test layouts all fit Roku');
  const sheetsDir = join(dir, 'sheets');
  mkdirSync(sheetsDir, { recursive: true });
  await new TrickplayFfmpeg(fixtureFfmpeg).run({
    args: buildSheetArgs({
      source: film.path,
      outputDir: sheetsDir,
      layout: {
        interval_ms: layout.intervalMs,
        width: layout.thumbnailWidth,
        height: layout.thumbnailHeight,
        tile_width: layout.tileWidth,
        tile_height: layout.tileHeight,
      },
      mode: make.mode ?? 'keyframes',
      thumbnailCount: layout.thumbnailCount,
      // The fixtures' films have a keyframe every 2 s at most (the ones these tests make).
      maxKeyframeGapSeconds: 2,
      capabilities: film.capabilities,
      threads: 1,
    }),
    outputDir: sheetsDir,
    durationSeconds: film.capabilities.duration_seconds ?? 0,
  });
  const thumbnails = await cutThumbnails(sheetsDir, layout);
  const rokuDir = join(dir, 'roku');
  mkdirSync(rokuDir, { recursive: true });
  const rokuBytes: number[] = [];
  const per = thumbnailsPerSheet(roku);
  const size = sheetSize(roku);
  for (let sheet = 0; sheet < sheetCount(roku); sheet++) {
    const cells = thumbnails.slice(sheet * per, (sheet + 1) * per).map((input, i) => ({
      input,
      left: (i % roku.tileWidth) * roku.thumbnailWidth,
      top: Math.floor(i / roku.tileWidth) * roku.thumbnailHeight,
    }));
    const jpeg = await sharp({
      create: { width: size.width, height: size.height, channels: 3, background: '#000' },
    })
      .composite(cells)
      .jpeg({ quality: 80 })
      .toBuffer();
    writeFileSync(join(rokuDir, `${sheet}.jpg`), jpeg);
    rokuBytes.push(jpeg.length);
  }
  const bif = writeBif(thumbnails, layout.intervalMs);
  writeFileSync(join(dir, 'trickplay.bif'), bif);
  const sheetBytes = Array.from(
    { length: sheetCount(layout) },
    (_, i) => statSync(join(sheetsDir, `${i}.jpg`)).size,
  );
  return {
    fileId: film.fileId,
    generation: make.generation ?? ++lastGeneration,
    mode: make.mode ?? 'keyframes',
    layout,
    sheetBytes,
    roku: { layout: roku, sheetBytes: rokuBytes },
    bifBytes: bif.length,
    madeAt: new Date().toISOString(),
  };
}

/** Every real thumbnail of the sheets, in order, as its own JPEG. */
async function cutThumbnails(sheetsDir: string, layout: TrickplayLayout): Promise<Buffer[]> {
  const out: Buffer[] = [];
  const per = thumbnailsPerSheet(layout);
  for (let n = 0; n < layout.thumbnailCount; n++) {
    const sheet = readFileSync(join(sheetsDir, `${Math.floor(n / per)}.jpg`));
    const cell = n % per;
    out.push(
      await sharp(sheet)
        .extract({
          left: (cell % layout.tileWidth) * layout.thumbnailWidth,
          top: Math.floor(cell / layout.tileWidth) * layout.thumbnailHeight,
          width: layout.thumbnailWidth,
          height: layout.thumbnailHeight,
        })
        .jpeg({ quality: 80 })
        .toBuffer(),
    );
  }
  return out;
}

const readers = new WeakMap<TestServer, TestTrickplayReader>();

/** The real server (startTestServer) with a test trickplay reader inside. */
export async function startTrickplayServer(
  env: Record<string, string> = {},
  options: { enabled?: boolean } = {},
): Promise<TestServer> {
  const root = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-made-'));
  const reader = new TestTrickplayReader(root, options);
  const server = await startTestServer(env, { trickplayReader: reader });
  readers.set(server, reader);
  const close = server.close.bind(server);
  server.close = async () => {
    await close();
    rmSync(root, { recursive: true, force: true });
  };
  return server;
}

export function trickplayReaderOf(server: TestServer): TestTrickplayReader {
  const reader = readers.get(server);
  if (reader === undefined) throw new Error('the server was not started by startTrickplayServer');
  return reader;
}

/** Makes (or remakes: a new generation) the file's set, as a finished trickplay job would. */
export async function makeTrickplayFor(
  server: TestServer,
  fileId: number,
  make: MakeOptions = {},
): Promise<TrickplayMade> {
  const reader = trickplayReaderOf(server);
  const row = await server.server.database.db
    .selectFrom('media_files')
    .innerJoin('library_roots', 'library_roots.id', 'media_files.library_root_id')
    .select(['library_roots.path as root', 'media_files.relative_path', 'media_files.capabilities_json'])
    .where('media_files.id', '=', fileId)
    .executeTakeFirstOrThrow();
  if (row.capabilities_json === null) throw new Error(`file ${fileId} is not analysed`);
  const generation = make.generation ?? ++lastGeneration;
  const dir = join(reader.root, String(fileId), String(generation));
  const made = await makeTrickplaySet(
    dir,
    {
      fileId,
      path: join(row.root, row.relative_path),
      capabilities: JSON.parse(row.capabilities_json) as Capabilities,
    },
    { ...make, generation },
  );
  reader.put(made, dir);
  return made;
}

/** The states before "ready" (queued, running, failed, none), as the job would report them. */
export function setTrickplayStatus(server: TestServer, fileId: number, status: TrickplayStatus): void {
  trickplayReaderOf(server).setStatus(fileId, status);
}
