import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  ARTIFACTS,
  assertSchemasValid,
  buildBundle,
  buildContract,
  bumpContractVersion,
  ContractError,
  checkContract,
  checkSchemaIds,
  checkVersionGuard,
  compileSchemas,
  computeHash,
  DEFAULT_CONTRACT_DIR,
  generateTypes,
  parseVersions,
  readContractVersion,
  readSchemaDir,
  renderBundleJson,
  rewriteSchemaVersion,
  type SchemaMap,
} from '../scripts/build-contract.ts';
import {
  type ApiError,
  type AudioTrackInfo,
  BADGE_VALUES,
  CONTRACT_BUNDLE,
  CONTRACT_HASH,
  CONTRACT_ROUTES,
  CONTRACT_VERSION,
  createContractValidator,
  type Incompatibility,
  type LibraryEdition,
  type LibraryMovieItem,
  type LibraryResponse,
  type PhysicalCopyInfo,
  PLAYBACK_PREDICTIONS,
  PLAYBACK_STATUS_CODES,
  type PrewarmResponse,
  SCHEMA_NAMES,
  type SchemaName,
  schemaId,
} from '../src/index.ts';

const dir = DEFAULT_CONTRACT_DIR;
const validator = createContractValidator();
const schemas = (): SchemaMap => readSchemaDir(join(dir, 'schemas'));

type Obj = Record<string, unknown>;
const without = (value: object, key: string): Obj => {
  const copy: Obj = { ...value };
  delete copy[key];
  return copy;
};
const withField = (value: object, key: string, v: unknown): Obj => ({ ...value, [key]: v });

function accepts(name: SchemaName, value: unknown): void {
  const result = validator.validate(name, value);
  assert.deepEqual(result, { ok: true, value }, `${name} should accept ${JSON.stringify(value)}`);
}

function rejects(name: SchemaName, value: unknown, pattern?: RegExp): void {
  const result = validator.validate(name, value);
  assert.equal(result.ok, false, `${name} should reject ${JSON.stringify(value)}`);
  if (!result.ok) {
    assert.ok(result.errors.length > 0);
    if (pattern)
      assert.ok(
        result.errors.some((e) => pattern.test(e)),
        `${result.errors.join('; ')} !~ ${pattern}`,
      );
  }
}

// ---- realistic examples (typed, so they also check the generated types) ----
const physicalCopy: PhysicalCopyInfo = { binder: 'Binder A', slot: '12', format: 'bluray' };
const audioTrack: AudioTrackInfo = { index: 1, codec: 'eac3', channels: 6, language: 'eng', title: null };
const incompatibility: Incompatibility = {
  type: 'audio',
  code: 'AUDIO_CODEC_UNSUPPORTED',
  detail: 'TrueHD audio cannot be decoded by this device',
  hint: 'Enable adaptive audio to play a converted track',
};
const edition: LibraryEdition = {
  media_file_id: 42,
  label: 'Director’s Cut',
  stream_url: '/stream/media_file/42?device=tv',
  integrity_flagged: false,
  capabilities: { video_codec: 'hevc', audio: ['truehd'], bit_depth: 10 },
  compatibility: { playable: false, reason: 'audio codec truehd unsupported', incompatibility },
  playback_prediction: 'strict_incompatible',
  is_playable: true,
  needs_adaptive_audio: true,
  has_adaptive_fallback: true,
  playback_status_code: 'adaptive',
  playback_status_primary_text: 'Plays with converted audio',
  display_label: 'Director’s Cut · 4K HDR',
  playback_status_secondary_text: null,
  audio_channels: 8,
  audio_display_label: 'TrueHD 7.1',
  audio_tracks: [audioTrack],
  duration_seconds: 8160,
  hdr_display_label: 'HDR10',
  hdr_format: 'hdr10',
  physical_copy: physicalCopy,
  resolution: '3840x2160',
  resolution_label: '4K',
  resume_position_seconds: 0,
  runtime_text: '2h 16m',
  subtitle_url: null,
  watched: false,
};
const movie: LibraryMovieItem = {
  movie_id: 7,
  title: 'Blade Runner',
  editions: [edition],
  default_edition_index: 0,
  badge: 'playable',
  backdrop_url: '/api/artwork/7/backdrop.jpg',
  poster_url: null,
  overview: 'A blade runner must pursue and terminate four replicants.',
  year: 1982,
  cast_names: ['Harrison Ford', 'Rutger Hauer'],
  director_names: ['Ridley Scott'],
  physical_copies: [physicalCopy],
  has_digital_store_a: true,
  has_digital_store_b: false,
};
const library: LibraryResponse = {
  items: [
    movie,
    { movie_id: null, title: 'unknown.mkv', editions: [], default_edition_index: 0, badge: 'not_analyzed' },
  ],
  contract_version: CONTRACT_VERSION,
  device: 'tv',
  health_summary: '1 playable · 0 need review · 1 not playable',
  system_warning: null,
};
const apiError: ApiError = {
  error: 'not_found',
  message: 'media file 9 not found',
  hint: 'rescan the library',
};
const prewarmShapes: PrewarmResponse[] = [
  { status: 'ready' },
  { status: 'not_needed', reason: 'direct play' },
  { status: 'not_ready', reason: 'no artifact yet' },
  { status: 'building', message: 'converting audio (35%)' },
  { status: 'cancelled' },
  { status: 'not_building', message: 'no build in progress' },
];

interface ObjectCase {
  valid: object;
  required: string;
  wrongType: [string, unknown];
  wrongEnum?: [string, unknown];
  extraAllowed?: boolean;
}
const objectCases: Record<string, ObjectCase> = {
  apiError: {
    valid: apiError,
    required: 'error',
    wrongType: ['adaptiveAvailable', 'yes'],
    extraAllowed: true,
  },
  audioTrackInfo: { valid: audioTrack, required: 'codec', wrongType: ['channels', 5.1] },
  incompatibility: {
    valid: incompatibility,
    required: 'detail',
    wrongType: ['code', 3],
    wrongEnum: ['type', 'codec'],
  },
  libraryEdition: {
    valid: edition,
    required: 'playback_status_code',
    wrongType: ['media_file_id', '42'],
    wrongEnum: ['playback_prediction', 'maybe'],
  },
  libraryMovieItem: {
    valid: movie,
    required: 'movie_id',
    wrongType: ['year', '1982'],
    wrongEnum: ['badge', 'great'],
  },
  libraryResponse: { valid: library, required: 'contract_version', wrongType: ['items', {}] },
  physicalCopyInfo: { valid: physicalCopy, required: 'slot', wrongType: ['format', 4] },
};

describe('schemas', () => {
  test('exactly the ten spec names, each compiling in strict Ajv 2020 with ids at the contract version', () => {
    const map = schemas();
    assert.deepEqual(Object.keys(map).sort(), [...SCHEMA_NAMES].sort());
    assert.equal(SCHEMA_NAMES.length, 10);
    assert.deepEqual(checkSchemaIds(map, readContractVersion(dir)), []);
    assert.deepEqual(compileSchemas(map), []);
    for (const name of SCHEMA_NAMES) {
      assert.equal(map[name].$id, `https://reelshelf.dev/contract/1.1.0/${name}.json`);
      assert.equal(schemaId(name), map[name].$id);
      assert.equal(typeof validator.ajv.getSchema(schemaId(name)), 'function');
    }
  });

  test('a broken schema is reported with a clear message', () => {
    const map = schemas();
    map.audioTrackInfo = { ...map.audioTrackInfo, properties: { index: { type: 'integr' } } };
    assert.throws(() => assertSchemasValid(map, '1.1.0'), /audioTrackInfo\.schema\.json does not compile/);
    const unknownKeyword = schemas();
    unknownKeyword.prewarm = { ...unknownKeyword.prewarm, discriminatr: 'status' };
    assert.throws(
      () => assertSchemasValid(unknownKeyword, '1.1.0'),
      /prewarm\.schema\.json does not compile.*strict/,
    );
    const danglingRef = schemas();
    danglingRef.libraryResponse = {
      ...danglingRef.libraryResponse,
      items: { $ref: 'https://reelshelf.dev/contract/1.1.0/movie.json' },
    };
    assert.throws(
      () => assertSchemasValid(danglingRef, '1.1.0'),
      /libraryResponse\.schema\.json: "\$ref" .*movie\.json/,
    );
    assert.throws(
      () => assertSchemasValid(schemas(), '1.1.1'),
      /"\$id" is .* expected "https:\/\/reelshelf\.dev\/contract\/1\.1\.1/,
    );
  });
});

describe('bundle', () => {
  const text = readFileSync(join(dir, ARTIFACTS.bundle), 'utf8');
  const parsed = JSON.parse(text) as typeof CONTRACT_BUNDLE;

  test('hash recomputes from the committed file and matches the embedded constants', () => {
    assert.match(parsed.hash, /^[0-9a-f]{64}$/);
    assert.equal(computeHash(parsed), parsed.hash);
    assert.equal(parsed.hash, CONTRACT_HASH);
    assert.equal(parsed.version, CONTRACT_VERSION);
    assert.equal(CONTRACT_VERSION, readContractVersion(dir));
    assert.equal(CONTRACT_BUNDLE.hash, CONTRACT_HASH);
  });

  test('has the expected shape, routes and deterministic bytes', () => {
    assert.deepEqual(Object.keys(parsed).sort(), ['hash', 'routes', 'schemas', 'version']);
    assert.deepEqual(Object.keys(parsed.schemas).sort(), [...SCHEMA_NAMES].sort());
    assert.deepEqual(parsed.routes, {
      'GET /library': 'libraryResponse',
      'GET /api/media-file/{id}/prewarm-tv': 'prewarm',
      'DELETE /api/media-file/{id}/prewarm-tv': 'prewarm',
    });
    assert.deepEqual(parsed.routes, CONTRACT_ROUTES);
    assert.equal(renderBundleJson(parsed), text);
    assert.ok(text.endsWith('}\n') && !text.includes('\r'));
    assert.equal(renderBundleJson(buildBundle(schemas(), '1.1.0')), text);
  });

  test('the hash covers the content (any change changes it)', () => {
    const changed = structuredClone(parsed);
    changed.routes['GET /extra'] = 'apiError';
    assert.notEqual(computeHash(changed), parsed.hash);
  });
});

describe('regeneration --check', () => {
  test('the committed artifacts are fresh', async () => {
    const result = await checkContract(dir);
    assert.deepEqual(result, { ok: true, stale: [], problems: [] });
  });

  test('the CLI --check exits 0', () => {
    const res = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(dir, 'scripts/build-contract.ts'), '--check'],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /contract:check ok/);
  });

  test('generated types are deterministic', async () => {
    const map = schemas();
    const a = await generateTypes(map, '1.1.0');
    assert.equal(a, readFileSync(join(dir, ARTIFACTS.types), 'utf8'));
    assert.ok(a.startsWith('// GENERATED by contract/scripts/build-contract.ts — do not edit'));
    assert.doesNotMatch(a, /https:\/\//);
  });
});

describe('validation of each object schema', () => {
  for (const [name, c] of Object.entries(objectCases) as [SchemaName, ObjectCase][]) {
    test(name, () => {
      accepts(name, c.valid);
      rejects(name, without(c.valid, c.required), new RegExp(`required property '${c.required}'`));
      rejects(name, withField(c.valid, c.wrongType[0], c.wrongType[1]), /must be/);
      if (c.wrongEnum)
        rejects(name, withField(c.valid, c.wrongEnum[0], c.wrongEnum[1]), /must be equal to one of/);
      if (c.extraAllowed) accepts(name, withField(c.valid, 'x_trace_id', 'abc'));
      else rejects(name, withField(c.valid, 'surprise', true), /additional properties \(surprise\)/);
      rejects(name, null);
      rejects(name, []);
    });
  }

  test('null handling follows T|null', () => {
    rejects('libraryMovieItem', withField(movie, 'title', null));
    accepts('libraryMovieItem', withField(movie, 'movie_id', null));
    accepts('libraryEdition', withField(edition, 'physical_copy', null));
    rejects('libraryEdition', withField(edition, 'duration_seconds', null));
    rejects('libraryEdition', withField(edition, 'duration_seconds', 1.5), /must be integer/);
  });

  test('nested objects are closed and $refs are enforced', () => {
    rejects(
      'libraryEdition',
      withField(edition, 'compatibility', { playable: true, extra: 1 }),
      /\/compatibility/,
    );
    rejects(
      'libraryEdition',
      withField(edition, 'compatibility', { reason: null }),
      /required property 'playable'/,
    );
    rejects('libraryEdition', withField(edition, 'physical_copy', { binder: 'A' }), /\/physical_copy/);
    rejects(
      'libraryEdition',
      withField(edition, 'audio_tracks', [{ index: 0, codec: 'aac' }]),
      /audio_tracks\/0/,
    );
    rejects('libraryEdition', withField(edition, 'playback_status_code', 'weird'));
    rejects(
      'libraryResponse',
      { ...library, items: [withField(movie, 'badge', 'meh')] },
      /\/items\/0\/badge/,
    );
    accepts('libraryEdition', withField(edition, 'capabilities', {}));
    rejects('libraryEdition', withField(edition, 'capabilities', 'hevc'));
  });

  test('every badge value is accepted', () => {
    for (const badge of BADGE_VALUES) accepts('libraryMovieItem', { ...movie, badge });
  });
});

describe('string enums', () => {
  test('playbackPrediction', () => {
    for (const v of PLAYBACK_PREDICTIONS) accepts('playbackPrediction', v);
    assert.deepEqual(
      [...PLAYBACK_PREDICTIONS],
      ['direct', 'remux', 'adaptive', 'transcode', 'strict_incompatible'],
    );
    rejects('playbackPrediction', 'maybe', /must be equal to one of/);
    rejects('playbackPrediction', 1, /must be string/);
  });

  test('playbackStatusCode', () => {
    for (const v of PLAYBACK_STATUS_CODES) accepts('playbackStatusCode', v);
    assert.equal(PLAYBACK_STATUS_CODES.length, 6);
    rejects('playbackStatusCode', 'direct', /must be equal to one of/);
    rejects('playbackStatusCode', null, /must be string/);
  });
});

describe('prewarm', () => {
  test('accepts each of its six shapes', () => {
    assert.deepEqual(
      prewarmShapes.map((s) => s.status),
      ['ready', 'not_needed', 'not_ready', 'building', 'cancelled', 'not_building'],
    );
    for (const shape of prewarmShapes) accepts('prewarm', shape);
  });

  test('rejects mixes, missing fields, extra fields and unknown statuses', () => {
    const bad: unknown[] = [
      { status: 'ready', reason: 'x' },
      { status: 'building' },
      { status: 'building', reason: 'x' },
      { status: 'not_needed', message: 'x' },
      { status: 'not_ready' },
      { status: 'cancelled', message: 'x' },
      { status: 'not_building', message: 'x', reason: 'y' },
      { status: 'not_building', message: 3 },
      { status: 'warming' },
      { reason: 'x' },
      {},
      'ready',
    ];
    for (const value of bad) rejects('prewarm', value, /oneOf|must be object/);
  });
});

describe('apiError', () => {
  test('accepts extra members but still types the known ones', () => {
    accepts('apiError', {
      error: 'x',
      editionAudio: 'truehd',
      adaptiveAvailable: true,
      videoTranscodeAvailable: false,
    });
    accepts('apiError', { error: 'x', details: { nested: [1, 2] }, retry_after: 3 });
    rejects('apiError', { error: 1 }, /must be string/);
    rejects('apiError', { message: 'no code' }, /required property 'error'/);
  });

  test('is() narrows', () => {
    const value: unknown = { error: 'x' };
    assert.ok(validator.is('apiError', value));
    assert.equal(validator.is('apiError', {}), false);
  });
});

describe('version bump guard', () => {
  test('unchanged schemas keep their recorded hash; a new version is appended', () => {
    const recorded = parseVersions(readFileSync(join(dir, ARTIFACTS.versions), 'utf8'));
    assert.deepEqual(checkVersionGuard(recorded, '1.1.0', CONTRACT_HASH), {
      ok: true,
      versions: recorded,
      added: false,
    });
    const next = checkVersionGuard(recorded, '1.1.1', 'a'.repeat(64));
    assert.ok(next.ok && next.added);
    assert.deepEqual(Object.keys(next.versions), ['1.0.3', '1.1.0', '1.1.1']);
    assert.deepEqual(Object.keys(recorded), ['1.0.3', '1.1.0'], 'input not mutated');
  });

  test('a schema tweak without a version bump is rejected', () => {
    const map = schemas();
    map.physicalCopyInfo = { ...map.physicalCopyInfo, description: 'Binder and slot of a disc (tweaked).' };
    assertSchemasValid(map, '1.1.0');
    const bundle = buildBundle(map, '1.1.0');
    assert.notEqual(bundle.hash, CONTRACT_HASH);
    const guard = checkVersionGuard({ '1.1.0': CONTRACT_HASH }, '1.1.0', bundle.hash);
    assert.equal(guard.ok, false);
    if (!guard.ok) {
      assert.match(
        guard.error,
        /^schemas changed without a version bump: bump contract\/package\.json version \(and the \$ids\)/,
      );
    }
  });

  test('the same tweak with a bumped version (and $ids) passes', () => {
    const map = schemas();
    const bumped = {} as SchemaMap;
    for (const name of SCHEMA_NAMES) {
      bumped[name] = JSON.parse(rewriteSchemaVersion(JSON.stringify(map[name]), '1.1.0', '1.1.1'));
    }
    bumped.physicalCopyInfo = { ...bumped.physicalCopyInfo, description: 'tweaked' };
    assertSchemasValid(bumped, '1.1.1');
    const bundle = buildBundle(bumped, '1.1.1');
    const guard = checkVersionGuard({ '1.1.0': CONTRACT_HASH }, '1.1.1', bundle.hash);
    assert.ok(guard.ok && guard.added);
  });
});

describe('stale detection on a temp copy of the contract folder', () => {
  const tmpRoots: string[] = [];
  after(() => {
    for (const t of tmpRoots) rmSync(t, { recursive: true, force: true });
  });
  const copy = (): string => {
    const root = mkdtempSync(join(tmpdir(), 'reelshelf-contract-'));
    tmpRoots.push(root);
    const target = join(root, 'contract');
    for (const rel of ['package.json', 'schemas', 'src/generated', ARTIFACTS.bundle, ARTIFACTS.versions]) {
      cpSync(join(dir, rel), join(target, rel), { recursive: true });
    }
    return target;
  };

  test('a fresh copy passes', async () => {
    assert.equal((await checkContract(copy())).ok, true);
  });

  test('a schema edit makes every artifact stale and the build refuses without a bump', async () => {
    const target = copy();
    const file = join(target, 'schemas/physicalCopyInfo.schema.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Binder name.', 'Binder label.'));
    const result = await checkContract(target);
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.stale.sort(),
      [ARTIFACTS.bundle, ARTIFACTS.types, ARTIFACTS.version, ARTIFACTS.versions].sort(),
    );
    assert.ok(result.problems.some((p) => p.startsWith('schemas changed without a version bump')));
    await assert.rejects(buildContract(target), (err: Error) => {
      assert.ok(err instanceof ContractError);
      assert.match(err.message, /schemas changed without a version bump/);
      return true;
    });
    // bump, rebuild: fresh again, and versions.json keeps the old entry
    bumpContractVersion(target, '1.1.1');
    const built = await buildContract(target);
    assert.equal(built.artifacts.version, '1.1.1');
    assert.deepEqual((await checkContract(target)).ok, true);
    const versions = parseVersions(readFileSync(join(target, ARTIFACTS.versions), 'utf8'));
    assert.deepEqual(Object.keys(versions), ['1.0.3', '1.1.0', '1.1.1']);
    assert.equal(versions['1.1.0'], CONTRACT_HASH);
    assert.match(readFileSync(join(target, ARTIFACTS.version), 'utf8'), /CONTRACT_VERSION = '1\.1\.1'/);
    // a second build changes no byte
    assert.deepEqual((await buildContract(target)).written, []);
  });

  test('reformatted bundle, hand-edited types and a tampered hash are detected', async () => {
    const target = copy();
    const bundleFile = join(target, ARTIFACTS.bundle);
    const bundle = JSON.parse(readFileSync(bundleFile, 'utf8'));
    writeFileSync(bundleFile, JSON.stringify(bundle, null, 4));
    writeFileSync(
      join(target, ARTIFACTS.types),
      `${readFileSync(join(target, ARTIFACTS.types), 'utf8')}// edit\n`,
    );
    let result = await checkContract(target);
    assert.deepEqual(result.stale.sort(), [ARTIFACTS.bundle, ARTIFACTS.types].sort());
    assert.deepEqual(result.problems, []);

    writeFileSync(bundleFile, renderBundleJson({ ...bundle, hash: 'f'.repeat(64) }));
    result = await checkContract(target);
    assert.ok(result.stale.includes(ARTIFACTS.bundle));
    assert.ok(result.problems.some((p) => /hash.*does not match/.test(p)));
  });

  test('a $id left at the old version fails the build clearly', async () => {
    const target = copy();
    const pkgFile = join(target, 'package.json');
    writeFileSync(pkgFile, readFileSync(pkgFile, 'utf8').replace('"version": "1.1.0"', '"version": "1.1.1"'));
    await assert.rejects(
      checkContract(target),
      /expected "https:\/\/reelshelf\.dev\/contract\/1\.1\.1\/apiError\.json"/,
    );
  });
});
