import type { PhysicalCopyInfo } from '@reelshelf/contract';
import type { LibraryFileRow } from '../repositories/library.repository.ts';
import type { EditionPresenter, PresentedEdition } from './library.service.ts';

/**
 * Until a file is analysed nothing is predicted to play (INTERFACE.md): status `unknown`,
 * prediction `strict_incompatible`.
 */
export class UnanalyzedEditionPresenter implements EditionPresenter {
  present(file: LibraryFileRow, copy: PhysicalCopyInfo | null, device: string): PresentedEdition {
    const missing = file.status === 'missing';
    const code = missing ? 'file_missing' : 'not_analyzed';
    const detail = missing ? 'File not found at its recorded path.' : 'The file has not been analysed yet.';
    return {
      facts: { fileStatus: missing ? 'missing' : 'present', analysis: 'not_analyzed' },
      rank: 1000,
      edition: {
        media_file_id: file.id,
        label: file.edition_label ?? 'Default',
        stream_url: `/stream/media_file/${file.id}?device=${encodeURIComponent(device)}`,
        integrity_flagged: false,
        capabilities: {},
        compatibility: {
          playable: false,
          reason: detail,
          incompatibility: { type: 'unknown', code, detail, hint: 'Run a library scan.' },
        },
        playback_prediction: 'strict_incompatible',
        is_playable: false,
        needs_adaptive_audio: false,
        has_adaptive_fallback: false,
        playback_status_code: 'unknown',
        playback_status_primary_text: missing ? 'File missing' : 'Not analyzed yet',
        display_label: file.edition_label ?? 'Default',
        physical_copy: copy,
        watched: file.watched === 1,
        resume_position_seconds: file.position_seconds ?? 0,
      },
    };
  }
}
