import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckedFile } from '../../../../src/adapters/file-system.ts';
import { KeyframeIndexService } from '../../../../src/services/playback/keyframe-index.service.ts';
import { InMemoryKeyframeIndexes, InMemoryMediaFiles } from '../../../fakes/playback-repositories.ts';

describe('KeyframeIndexService with in-memory repositories', () => {
  function build() {
    const files = new InMemoryMediaFiles();
    files.add({ id: 1, root_path: '/media', relative_path: 'Film.mkv', fingerprint: 'fp-a' });
    const records = new InMemoryKeyframeIndexes();
    const reads: string[] = [];
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const service = new KeyframeIndexService(
      files,
      records,
      {
        read: async (file: CheckedFile) => {
          reads.push(file.path);
          await gate;
          return { times: [0, 2.5, 5], source: 'ffprobe_packets' as const };
        },
      },
      { openInsideRoot: async (root, relative) => ({ path: `${root}/${relative}` }) as CheckedFile },
      { now: () => new Date('2030-01-01T00:00:00Z') },
    );
    return { service, files, records, reads, letGo };
  }

  it('reads a file once (two players at once share the read), keeps it, and reads again when the content changed', async () => {
    const t = build();
    const both = Promise.all([t.service.keyframesOf(1), t.service.keyframesOf(1)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    t.letGo();
    assert.deepEqual(await both, [{ times: [0, 2.5, 5] }, { times: [0, 2.5, 5] }]);
    assert.equal(t.reads.length, 1);
    assert.equal(t.records.rows.get(1)?.source_key, 'fp-a');
    assert.deepEqual(await t.service.keyframesOf(1), { times: [0, 2.5, 5] });
    assert.equal(t.reads.length, 1, 'the kept index is used');
    const f = t.files.files.get(1);
    if (f !== undefined) f.fingerprint = 'fp-b';
    await t.service.keyframesOf(1);
    assert.equal(t.reads.length, 2, 'new content, read again');
    assert.equal(t.records.rows.get(1)?.source_key, 'fp-b');
    assert.equal(await t.service.keyframesOf(404), null, 'an unknown file has none');
  });
});
