// A reelshelf listing item as a Jellyfin Movie (domain/jellyfin/dto.ts), and its shapes checked
// against @jellyfin/sdk's generated models (sdk-shapes.check.ts, compiled here by the TypeScript API).
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { LibraryEdition, LibraryMovieItem } from '@reelshelf/contract';
import {
  discLocation,
  movieDto,
  type MovieFacts,
  type UserDataDto,
} from '../../../src/domain/jellyfin/dto.ts';
import { ImageTags } from '../../../src/domain/jellyfin/image-tags.ts';
import { JellyfinIds } from '../../../src/domain/jellyfin/ids.ts';
import { toWireJson } from '../../../src/domain/jellyfin/wire.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * The SDK's .d.ts files import their neighbours without extensions, which the project's NodeNext
 * resolution cannot follow (with skipLibCheck every nested model silently becomes `any`). The check
 * file is therefore compiled with bundler resolution, where they resolve; `extra` adds a file.
 */
function sdkDiagnostics(extra?: { name: string; text: string }): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const roots = [join(HERE, 'sdk-shapes.check.ts')];
  if (extra !== undefined) {
    const path = join(HERE, extra.name);
    roots.push(path);
    const { getSourceFile, fileExists } = host;
    host.fileExists = (name) => name === path || fileExists(name);
    host.getSourceFile = (name, version, ...rest) =>
      name === path ? ts.createSourceFile(name, extra.text, version) : getSourceFile(name, version, ...rest);
  }
  const program = ts.createProgram(roots, options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

const ids = new JellyfinIds('dto test secret');
const tags = new ImageTags('dto test secret');
const context = { ids, tags: tags.forPerson(7), parentId: ids.encode('folder', 1) };

function edition(id: number, label: string, extra: Partial<LibraryEdition> = {}): LibraryEdition {
  return {
    media_file_id: id,
    label,
    stream_url: `/stream/media_file/${id}?token=t`,
    integrity_flagged: false,
    capabilities: {},
    compatibility: { playable: true },
    playback_prediction: 'direct',
    is_playable: true,
    needs_adaptive_audio: false,
    has_adaptive_fallback: false,
    playback_status_code: 'direct_play',
    playback_status_primary_text: 'Plays directly',
    display_label: label,
    duration_seconds: 6000,
    ...extra,
  };
}

function movie(extra: Partial<LibraryMovieItem> = {}): LibraryMovieItem {
  return {
    movie_id: 12,
    title: 'The Matrix',
    editions: [edition(31, 'Theatrical'), edition(32, "Director's Cut", { duration_seconds: 7200 })],
    default_edition_index: 0,
    badge: 'playable',
    overview: 'A hacker learns the truth.',
    year: 1999,
    poster_url: '/artwork/12/poster?v=aaaa1111',
    backdrop_url: '/artwork/12/backdrop?v=bbbb2222',
    physical_copies: [],
    ...extra,
  };
}

const facts: MovieFacts = {
  genres: ['Action', 'Science Fiction'],
  certification: 'R',
  communityRating: 8.7,
  criticRating: 88,
  people: [
    { personId: 7, name: 'Keanu Reeves', kind: 'Actor', role: 'Neo' },
    { personId: 9, name: 'Lana Wachowski', kind: 'Director', role: null },
  ],
  studios: [{ id: 3, name: 'Village Roadshow' }],
  releasedOn: '1999-03-31',
  addedAt: '2024-05-01 10:00:00',
  isFavorite: false,
  lastPlayedAt: null,
  files: new Map([
    [31, { container: 'mkv', sizeBytes: 123_456 }],
    [32, { container: 'mp4', sizeBytes: 654_321 }],
  ]),
};

describe('jellyfin: a library item as a Movie', () => {
  it('one Movie, one MediaSource per edition named by its label', () => {
    const dto = movieDto(movie(), facts, context);
    assert.ok(dto !== null);
    assert.equal(dto.Type, 'Movie');
    assert.equal(dto.Id, ids.encode('movie', 12));
    assert.equal(dto.ServerId, ids.serverId);
    assert.equal(dto.ParentId, context.parentId);
    assert.equal(dto.Name, 'The Matrix');
    assert.equal(dto.SortName, 'matrix');
    assert.equal(dto.ProductionYear, 1999);
    assert.equal(dto.PremiereDate, '1999-03-31T00:00:00.0000000Z');
    assert.equal(dto.DateCreated, '2024-05-01T10:00:00.0000000Z');
    assert.equal(dto.OfficialRating, 'R');
    assert.equal(dto.CommunityRating, 8.7);
    assert.deepEqual(dto.Genres, ['Action', 'Science Fiction']);
    assert.equal(dto.RunTimeTicks, 6000 * 10_000_000, 'the default edition');
    assert.equal(dto.IsPlaceHolder, null);
    assert.equal(dto.LocationType, 'FileSystem');
    const sources = dto.MediaSources ?? [];
    assert.deepEqual(
      sources.map((s) => [s.Id, s.Name, s.Container, s.Size, s.RunTimeTicks]),
      [
        [ids.encode('media-source', 31), 'Theatrical', 'mkv', 123_456, 60_000_000_000],
        [ids.encode('media-source', 32), "Director's Cut", 'mp4', 654_321, 72_000_000_000],
      ],
    );
  });

  it('image tags from the artwork version, never URLs; none at all without artwork', () => {
    const dto = movieDto(movie(), facts, context);
    assert.deepEqual(dto?.ImageTags, {
      Primary: tags.tag(dto?.Id ?? '', 'Primary', '/artwork/12/poster?v=aaaa1111', 7),
    });
    assert.deepEqual(dto?.BackdropImageTags, [
      tags.tag(dto?.Id ?? '', 'Backdrop', '/artwork/12/backdrop?v=bbbb2222', 7),
    ]);
    const newPoster = movieDto(movie({ poster_url: '/artwork/12/poster?v=cccc3333' }), facts, context);
    assert.notEqual(newPoster?.ImageTags?.Primary, dto?.ImageTags?.Primary, 'new artwork, new tag');
    const bare = movieDto(movie({ poster_url: null, backdrop_url: null }), facts, context);
    assert.equal(bare?.ImageTags, null);
    assert.deepEqual(bare?.BackdropImageTags, []);
    assert.ok(!toWireJson(bare).includes('"ImageTags"'), 'Infuse fails on ImageTags: {}');
    assert.ok(!toWireJson(dto).includes('/artwork/'));
  });

  it("UserData is the person's own state: resume, played, percentage", () => {
    const cases: [Partial<LibraryEdition>[], Partial<UserDataDto>][] = [
      [[{}, {}], { PlaybackPositionTicks: 0, PlayedPercentage: null, Played: false, PlayCount: 0 }],
      [
        [{ resume_position_seconds: 1500 }, {}],
        { PlaybackPositionTicks: 15_000_000_000, PlayedPercentage: 25, Played: false },
      ],
      [
        [{}, { resume_position_seconds: 3600 }],
        { PlaybackPositionTicks: 36_000_000_000, PlayedPercentage: 50 },
      ],
      [[{ watched: true }, {}], { Played: true, PlayCount: 1, PlaybackPositionTicks: 0 }],
    ];
    for (const [states, expected] of cases) {
      const item = movie({
        editions: [
          edition(31, 'Theatrical', states[0]),
          edition(32, 'Cut', { duration_seconds: 7200, ...states[1] }),
        ],
      });
      const data = movieDto(item, facts, context)?.UserData;
      assert.ok(data !== undefined);
      assert.equal(data.Key, ids.encode('movie', 12));
      assert.equal(data.ItemId, ids.encode('movie', 12));
      for (const [key, value] of Object.entries(expected))
        assert.equal(data[key as keyof UserDataDto], value, `${JSON.stringify(states)} ${key}`);
    }
  });

  it('a disc-only film is a placeholder saying where the disc is', () => {
    const dto = movieDto(
      movie({
        editions: [],
        badge: 'on_disc',
        poster_url: null,
        physical_copies: [{ binder: 'A', slot: '12', format: 'Blu-ray' }],
      }),
      facts,
      context,
    );
    assert.ok(dto !== null);
    assert.equal(dto.IsPlaceHolder, true);
    assert.equal(dto.LocationType, 'Virtual');
    assert.equal(dto.MediaSources, null, 'Infuse fails on MediaSources: []');
    assert.equal(dto.RunTimeTicks, null);
    assert.equal(dto.Overview, 'On disc: Blu-ray, binder A, slot 12.\n\nA hacker learns the truth.');
    const wire = JSON.parse(toWireJson(dto)) as Record<string, unknown>;
    assert.equal('MediaSources' in wire, false);
  });

  it('disc locations read as a person looks for them', () => {
    const cases: [Parameters<typeof discLocation>[0], string][] = [
      [{ binder: 'A', slot: '12', format: 'Blu-ray' }, 'Blu-ray, binder A, slot 12'],
      [{ binder: 'Binder 3', slot: '4', format: null }, 'Binder 3, slot 4'],
      [{ binder: '', slot: '', format: 'DVD' }, 'DVD'],
      [{ binder: ' ', slot: '' }, 'location not recorded'],
    ];
    for (const [copy, text] of cases) assert.equal(discLocation(copy), text);
  });

  it('a file matched to no movie is an item with its file id; nothing at all is no item', () => {
    const lone = movieDto(
      movie({ movie_id: null, title: 'holiday.mkv', editions: [edition(77, 'holiday.mkv')] }),
      facts,
      context,
    );
    assert.equal(lone?.Id, ids.encode('media-source', 77));
    assert.equal(
      lone?.MediaSources?.[0]?.Id,
      lone?.Id,
      "Jellyfin's one-version convention: source id = item id",
    );
    assert.equal(movieDto(movie({ movie_id: null, editions: [] }), facts, context), null);
  });
});

describe("jellyfin: the DTOs are the SDK's models", () => {
  it('MovieDto, MediaSourceDto and UserDataDto are assignable to BaseItemDto, MediaSourceInfo, UserItemDataDto', () => {
    assert.deepEqual(sdkDiagnostics(), []);
  });

  it('the check has teeth: a wrong enum value deep inside is refused', () => {
    const wrong = [
      "import type { BaseItemDto } from '@jellyfin/sdk/lib/generated-client/models/base-item-dto.js';",
      "export const bad: BaseItemDto = { Type: 'Film', UserData: { Key: 'k', PlaybackPositionTicks: 'x' } };",
    ].join('\n');
    const problems = sdkDiagnostics({ name: 'wrong.check.ts', text: wrong });
    assert.equal(problems.length >= 1, true, 'no diagnostic: the SDK types resolved to any');
    assert.match(problems.join('\n'), /Film/);
  });
});
