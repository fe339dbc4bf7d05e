import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ArtifactPlanError,
  buildArtifactArgs,
  buildRemuxFromHlsArgs,
  FINISHED_MOVFLAGS,
  GROWING_MOVFLAGS,
} from '../../../src/domain/ffmpeg/artifact-command.ts';
import type { Capabilities } from '../../../src/domain/media/capabilities.ts';
import type { PlaybackPlan } from '../../../src/domain/playback/decision-types.ts';
import { audioCaps, caps, encode, plan, subCaps, valueOf, valuesOf, videoCaps } from './fixtures.ts';

const SOURCE = '/media/Movies/Heat (1995)/Heat (1995).mkv';
const OUTPUT = '/data/artifacts/abc.mp4.part';

function build(p: PlaybackPlan, c: Capabilities = caps(), source = SOURCE): string[] {
  return buildArtifactArgs({ source, output: OUTPUT, plan: p, capabilities: c });
}

const hevc10Hdr = () =>
  videoCaps({ codec: 'hevc', profile: 'Main 10', bit_depth: 10, pix_fmt: 'yuv420p10le', hdr: 'hdr10' });

describe('buildArtifactArgs: the growing fragmented MP4', () => {
  it('remux MKV → MP4 (copy/copy) is exactly this argv', () => {
    assert.deepEqual(build(plan()), [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-nostats',
      '-progress',
      'pipe:1',
      '-y',
      '-analyzeduration',
      '100M',
      '-probesize',
      '100M',
      '-i',
      SOURCE,
      '-map',
      '0:V:0',
      '-map',
      '0:a:0',
      '-map_metadata',
      '-1',
      '-map_chapters',
      '-1',
      '-c:v',
      'copy',
      '-c:a',
      'copy',
      '-metadata:s:a:0',
      'language=eng',
      '-disposition:a:0',
      'default',
      '-max_muxing_queue_size',
      '1024',
      '-flush_packets',
      '1',
      '-movflags',
      '+frag_keyframe+empty_moov+delay_moov+default_base_moof+dash',
      '-frag_duration',
      '2000000',
      '-f',
      'mp4',
      OUTPUT,
    ]);
  });

  it('every shape is fragmented while written, reports progress and ends with -f mp4 <output>', () => {
    const shapes = [
      plan(),
      plan({ video: encode(), audio: { codec: 'aac', channels: 2, bitrate: 256_000 } }),
      plan({ audio: 'none', audioTrack: null }),
    ];
    for (const shape of shapes) {
      const args = build(shape);
      assert.equal(valueOf(args, '-movflags'), GROWING_MOVFLAGS);
      assert.equal(valueOf(args, '-progress'), 'pipe:1');
      assert.ok(args.includes('-nostats') && args.includes('-nostdin') && args.includes('-y'));
      assert.equal(valueOf(args, '-max_muxing_queue_size'), '1024');
      assert.equal(valueOf(args, '-flush_packets'), '1');
      assert.deepEqual(args.slice(-3), ['-f', 'mp4', OUTPUT]);
      assert.equal(args.filter((a) => a === '-i').length, 1);
    }
  });

  it('maps the picture with 0:V:0 (never cover art) and the planned audio track', () => {
    const c = caps({ audio: [audioCaps(0, 'aac'), audioCaps(1, 'ac3', { language: 'ger' })] });
    const args = build(plan({ audioTrack: 1 }), c);
    assert.deepEqual(valuesOf(args, '-map'), ['0:V:0', '0:a:1']);
    assert.equal(valueOf(args, '-metadata:s:a:0'), 'language=ger');
  });

  it('an unknown audio language is written as und', () => {
    const args = build(plan(), caps({ audio: [audioCaps(0, 'aac', { language: null })] }));
    assert.equal(valueOf(args, '-metadata:s:a:0'), 'language=und');
  });

  it('HEVC copy is tagged hvc1 whatever the plan says, except dvh1', () => {
    const c = caps({ video: videoCaps({ codec: 'hevc' }) });
    for (const tag of [null, 'hvc1', 'hev1']) {
      assert.equal(valueOf(build(plan({ videoTag: tag }), c), '-tag:v'), 'hvc1', String(tag));
    }
    const dv = build(plan({ videoTag: 'dvh1' }), c);
    assert.equal(valueOf(dv, '-tag:v'), 'dvh1');
    assert.equal(valueOf(dv, '-strict'), 'unofficial', 'dvcC is written only under -strict unofficial');
  });

  it('H.264 copy keeps the default tag; other plan tags pass through', () => {
    assert.equal(valueOf(build(plan()), '-tag:v'), undefined);
    const av1 = caps({ video: videoCaps({ codec: 'av1' }) });
    assert.equal(valueOf(build(plan({ videoTag: 'dav1' }), av1), '-tag:v'), 'dav1');
  });

  it('Dolby Vision strips use filter_units on HEVC (62 = RPU, 63 = enhancement layer)', () => {
    const c = caps({ video: videoCaps({ codec: 'hevc' }) });
    assert.equal(
      valueOf(build(plan({ videoStrip: 'dolby_vision' }), c), '-bsf:v'),
      'filter_units=remove_types=62|63',
    );
    assert.equal(
      valueOf(build(plan({ videoStrip: 'dolby_vision_el', videoTag: 'dvh1' }), c), '-bsf:v'),
      'filter_units=remove_types=63',
    );
    assert.equal(valueOf(build(plan()), '-bsf:v'), undefined);
  });

  it('adaptive: video copied, DTS 5.1 → E-AC3 5.1', () => {
    const c = caps({ audio: [audioCaps(0, 'dts', { channels: 6, channel_layout: '5.1(side)' })] });
    const args = build(plan({ audio: { codec: 'eac3', channels: 6, bitrate: 640_000 } }), c);
    assert.equal(valueOf(args, '-c:v'), 'copy');
    assert.equal(valueOf(args, '-c:a'), 'eac3');
    assert.equal(valueOf(args, '-ac'), '6');
    assert.equal(valueOf(args, '-b:a'), '640000');
    assert.equal(valueOf(args, '-ar'), undefined);
    assert.equal(valueOf(args, '-strict'), undefined, 'E-AC3 needs no -strict');
    assert.equal(valueOf(args, '-filter_complex'), undefined);
  });

  it('adaptive: DTS 5.1 → AAC 2.0', () => {
    const c = caps({ audio: [audioCaps(0, 'dts', { channels: 6 })] });
    const args = build(plan({ audio: { codec: 'aac', channels: 2, bitrate: 256_000 } }), c);
    assert.deepEqual(args.slice(args.indexOf('-c:a'), args.indexOf('-c:a') + 10), [
      '-c:a',
      'aac',
      '-ac',
      '2',
      '-b:a',
      '256000',
      '-metadata:s:a:0',
      'language=eng',
      '-disposition:a:0',
      'default',
    ]);
  });

  it('resamples to 48 kHz where the target needs it', () => {
    const rows: [number | null, string, string | undefined][] = [
      [48_000, 'eac3', undefined],
      [44_100, 'ac3', undefined],
      [96_000, 'eac3', '48000'],
      [96_000, 'aac', '48000'],
      [22_050, 'eac3', '48000'],
      [22_050, 'aac', undefined],
      [null, 'aac', '48000'],
    ];
    for (const [rate, codec, expected] of rows) {
      const c = caps({ audio: [audioCaps(0, 'truehd', { sample_rate: rate })] });
      const args = build(plan({ audio: { codec, channels: 2, bitrate: 256_000 } }), c);
      assert.equal(valueOf(args, '-ar'), expected, `${rate} → ${codec}`);
    }
  });

  it('copying FLAC, Opus, TrueHD or DTS into MP4 needs -strict experimental; AAC/AC3 do not', () => {
    for (const codec of ['flac', 'opus', 'truehd', 'dts']) {
      const args = build(plan(), caps({ audio: [audioCaps(0, codec)] }));
      assert.equal(valueOf(args, '-strict'), 'experimental', codec);
    }
    for (const codec of ['aac', 'ac3', 'eac3', 'mp3']) {
      assert.equal(
        valueOf(build(plan(), caps({ audio: [audioCaps(0, codec)] })), '-strict'),
        undefined,
        codec,
      );
    }
    const dv = caps({ video: videoCaps({ codec: 'hevc' }), audio: [audioCaps(0, 'truehd')] });
    assert.equal(valueOf(build(plan({ videoTag: 'dvh1' }), dv), '-strict'), 'experimental');
  });

  it('lossless targets get no bitrate', () => {
    const args = build(plan({ audio: { codec: 'flac', channels: 2, bitrate: 0 } }), caps());
    assert.equal(valueOf(args, '-c:a'), 'flac');
    assert.equal(valueOf(args, '-b:a'), undefined);
    assert.equal(valueOf(args, '-strict'), 'experimental');
  });

  it("audio 'none' and a file without audio map no audio", () => {
    for (const p of [plan({ audio: 'none', audioTrack: 0 }), plan({ audio: 'copy', audioTrack: null })]) {
      const args = build(p);
      assert.deepEqual(valuesOf(args, '-map'), ['0:V:0']);
      assert.equal(valueOf(args, '-c:a'), undefined);
      assert.equal(valueOf(args, '-metadata:s:a:0'), undefined);
    }
  });

  it('an audio-only source maps no picture', () => {
    const args = build(plan(), caps({ video: null }));
    assert.deepEqual(valuesOf(args, '-map'), ['0:a:0']);
    assert.equal(valueOf(args, '-c:v'), undefined);
  });

  it('transcode: HEVC 10-bit HDR10 → H.264 8-bit, tone-mapped with zscale + tonemap, scaled, capped', () => {
    const c = caps({ video: hevc10Hdr(), audio: [audioCaps(0, 'ac3', { channels: 6 })] });
    const video = encode({ toneMap: true, maxWidth: 1280, maxHeight: 720, maxBitrateBps: 4_000_000 });
    const args = build(plan({ video, audio: { codec: 'aac', channels: 2, bitrate: 256_000 } }), c);
    assert.equal(
      valueOf(args, '-filter_complex'),
      '[0:V:0]scale=w=trunc(iw*min(1\\,min(1280/iw\\,720/ih))/2)*2:h=trunc(ih*min(1\\,min(1280/iw\\,720/ih))/2)*2,' +
        'zscale=tin=smpte2084:pin=bt2020:min=bt2020nc:t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,' +
        'tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p[vout]',
    );
    assert.deepEqual(valuesOf(args, '-map'), ['[vout]', '0:a:0']);
    const at = args.indexOf('-c:v');
    assert.deepEqual(args.slice(at, at + 6), ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21']);
    assert.equal(valueOf(args, '-pix_fmt'), 'yuv420p');
    assert.equal(valueOf(args, '-color_trc'), 'bt709');
    assert.equal(valueOf(args, '-color_primaries'), 'bt709');
    assert.equal(valueOf(args, '-colorspace'), 'bt709');
    assert.equal(valueOf(args, '-maxrate'), '4000000');
    assert.equal(valueOf(args, '-bufsize'), '8000000');
    assert.equal(valueOf(args, '-force_key_frames'), 'expr:gte(t,n_forced*2)');
    assert.equal(valueOf(args, '-tag:v'), undefined);
  });

  it('tone-mapping an HLG source linearises with arib-std-b67', () => {
    const c = caps({ video: videoCaps({ codec: 'hevc', hdr: 'hlg', bit_depth: 10 }) });
    const args = build(plan({ video: encode({ toneMap: true }) }), c);
    assert.match(valueOf(args, '-filter_complex') ?? '', /zscale=tin=arib-std-b67:/);
  });

  it('HEVC encode keeping HDR10: libx265 10-bit, hvc1, BT.2020 PQ tags', () => {
    const c = caps({ video: hevc10Hdr() });
    const video = encode({ codec: 'hevc', tag: 'hvc1', bitDepth: 10, hdr: 'hdr10' });
    const args = build(plan({ video, videoTag: 'hvc1' }), c);
    const at = args.indexOf('-c:v');
    assert.deepEqual(args.slice(at, at + 8), [
      '-c:v',
      'libx265',
      '-preset',
      'fast',
      '-crf',
      '23',
      '-tag:v',
      'hvc1',
    ]);
    assert.equal(
      valueOf(args, '-x265-params'),
      'log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc',
    );
    assert.equal(valueOf(args, '-pix_fmt'), 'yuv420p10le');
    assert.equal(valueOf(args, '-color_trc'), 'smpte2084');
    assert.equal(valueOf(args, '-colorspace'), 'bt2020nc');
    assert.equal(valueOf(args, '-filter_complex'), '[0:V:0]format=yuv420p10le[vout]');
  });

  it('SDR HEVC encode without tag in the plan is still hvc1, with no colour overrides', () => {
    const args = build(plan({ video: encode({ codec: 'hevc' }) }));
    assert.equal(valueOf(args, '-tag:v'), 'hvc1');
    assert.equal(valueOf(args, '-x265-params'), 'log-level=error');
    assert.equal(valueOf(args, '-color_trc'), undefined);
  });

  it('MPEG-2 interlaced → H.264 deinterlaced with yadif first', () => {
    const c = caps({
      video: videoCaps({ codec: 'mpeg2video', interlaced: true, width: 720, height: 576 }),
      audio: [audioCaps(0, 'ac3')],
    });
    const args = build(plan({ video: encode({ deinterlace: true }) }), c);
    assert.equal(valueOf(args, '-filter_complex'), '[0:V:0]yadif,format=yuv420p[vout]');
    assert.equal(valueOf(args, '-c:v'), 'libx264');
    assert.equal(valueOf(args, '-c:a'), 'copy');
  });

  it('scaling keeps the aspect ratio with -2 when only one bound is given', () => {
    const graph = (over: Parameters<typeof encode>[0]) =>
      valueOf(build(plan({ video: encode(over) })), '-filter_complex');
    assert.equal(graph({ maxHeight: 720 }), '[0:V:0]scale=w=-2:h=min(ih\\,720),format=yuv420p[vout]');
    assert.equal(graph({ maxWidth: 1280 }), '[0:V:0]scale=w=min(iw\\,1280):h=-2,format=yuv420p[vout]');
  });

  it('burn-in of an image subtitle overlays it (fitted by scale2ref) after the picture filters', () => {
    const c = caps({ subtitles: [subCaps(0, 'srt'), subCaps(1, 'pgs', { language: 'ger' })] });
    const video = encode({ burnSubtitle: 1, deinterlace: true });
    const args = build(plan({ video, subtitles: { mode: 'burn_in', track: 1 } }), c);
    assert.equal(
      valueOf(args, '-filter_complex'),
      '[0:V:0]yadif[base];[0:s:1][base]scale2ref[sub][ref];' +
        '[ref][sub]overlay=eof_action=pass:repeatlast=0,format=yuv420p[vout]',
    );
    assert.deepEqual(valuesOf(args, '-map'), ['[vout]', '0:a:0']);
    assert.equal(valueOf(args, '-c:s'), undefined);
  });

  it('burn-in of an image subtitle without other filters passes the picture through null', () => {
    const c = caps({ subtitles: [subCaps(0, 'vobsub')] });
    const args = build(
      plan({ video: encode({ burnSubtitle: 0 }), subtitles: { mode: 'burn_in', track: 0 } }),
      c,
    );
    assert.match(valueOf(args, '-filter_complex') ?? '', /^\[0:V:0\]null\[base\];\[0:s:0\]\[base\]scale2ref/);
  });

  it('burn-in of a text subtitle uses subtitles=…:si=N with the path escaped for both filter levels', () => {
    const source = "/media/it's: [odd], ok;\\x.mkv";
    const c = caps({ subtitles: [subCaps(0, 'pgs'), subCaps(1, 'ass')] });
    const video = encode({ burnSubtitle: 1, maxHeight: 720 });
    const args = build(plan({ video, subtitles: { mode: 'burn_in', track: 1 } }), c, source);
    assert.equal(
      valueOf(args, '-filter_complex'),
      "[0:V:0]scale=w=-2:h=min(ih\\,720),subtitles='filename=/media/it\\'\\''s\\:\\ [odd],\\ ok;\\\\x.mkv:si=1'," +
        'format=yuv420p[vout]',
    );
    assert.equal(valueOf(args, '-i'), source);
  });

  it('the burned track comes from the video plan when the subtitle plan does not say burn_in', () => {
    const c = caps({ subtitles: [subCaps(0, 'srt')] });
    const args = build(plan({ video: encode({ burnSubtitle: 0 }) }), c);
    assert.match(valueOf(args, '-filter_complex') ?? '', /subtitles='filename=.*:si=0'/);
  });

  it('a text subtitle converted to mov_text is mapped, tagged with its language and default', () => {
    const c = caps({ subtitles: [subCaps(0, 'pgs'), subCaps(1, 'srt', { language: 'fre' })] });
    const args = build(plan({ subtitles: { mode: 'convert', track: 1, codec: 'mov_text' } }), c);
    assert.deepEqual(valuesOf(args, '-map'), ['0:V:0', '0:a:0', '0:s:1']);
    const at = args.indexOf('-c:s');
    assert.deepEqual(args.slice(at, at + 6), [
      '-c:s',
      'mov_text',
      '-metadata:s:s:0',
      'language=fre',
      '-disposition:s:0',
      'default',
    ]);
  });

  it('a copied forced subtitle keeps the forced flag', () => {
    const c = caps({ subtitles: [subCaps(0, 'mov_text', { forced: true })] });
    const args = build(plan({ subtitles: { mode: 'copy', track: 0 } }), c);
    assert.equal(valueOf(args, '-c:s'), 'copy');
    assert.equal(valueOf(args, '-disposition:s:0'), 'default+forced');
  });

  it('a relative path is given to ffmpeg as a file: URL', () => {
    const args = buildArtifactArgs({
      source: 'a:b.mkv',
      output: 'out.mp4',
      plan: plan(),
      capabilities: caps(),
    });
    assert.equal(valueOf(args, '-i'), 'file:a:b.mkv');
    assert.equal(args.at(-1), 'file:out.mp4');
  });

  it('rejects plans that do not fit the source', () => {
    const rows: [string, PlaybackPlan, Capabilities][] = [
      [
        'burn-in on a copied picture',
        plan({ subtitles: { mode: 'burn_in', track: 0 } }),
        caps({ subtitles: [subCaps(0, 'srt')] }),
      ],
      ['a missing audio track', plan({ audioTrack: 3 }), caps()],
      ['a missing subtitle track', plan({ subtitles: { mode: 'copy', track: 0 } }), caps()],
      [
        'an image subtitle as text',
        plan({ subtitles: { mode: 'convert', track: 0, codec: 'mov_text' } }),
        caps({ subtitles: [subCaps(0, 'pgs')] }),
      ],
      ['a Matroska artifact', plan({ container: 'mkv' }), caps()],
      ['an unknown video encoder', plan({ video: encode({ codec: 'theora' }) }), caps()],
      ['nothing to keep', plan({ audio: 'none' }), caps({ video: null })],
    ];
    for (const [label, p, c] of rows) {
      assert.throws(() => build(p, c), ArtifactPlanError, label);
    }
  });
});

describe('buildRemuxFromHlsArgs: the finished file of a prewarm', () => {
  it('a plain MP4 with its index in front, not fragments (VLC 3.0 cannot seek in a fragmented MP4)', () => {
    const args = buildRemuxFromHlsArgs({
      video: '/data/hls/k/v.m3u8',
      audio: '/data/hls/k/a0.m3u8',
      audioCodec: 'aac',
      output: '/data/artifacts/k.remux.mp4',
    });
    assert.equal(valueOf(args, '-movflags'), FINISHED_MOVFLAGS);
    assert.equal(FINISHED_MOVFLAGS, '+faststart');
    assert.deepEqual(valuesOf(args, '-map'), ['0:v:0', '1:a:0']);
    assert.equal(valueOf(args, '-bsf:a'), 'aac_adtstoasc');
    assert.equal(args.at(-1), '/data/artifacts/k.remux.mp4');
  });
});
