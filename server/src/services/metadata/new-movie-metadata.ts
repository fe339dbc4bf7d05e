import type { ArtworkService } from './artwork.service.ts';
import type { EnrichmentBatch, EnrichmentService } from './enrichment.service.ts';

/** What the follow-up needs of enrichment, artwork and the job runner. */
export interface NewMovieMetadataDeps {
  enrichment: Pick<EnrichmentService, 'enabled' | 'queue' | 'enrich'>;
  artwork: Pick<ArtworkService, 'start'>;
  jobs: { wait(jobId: number): Promise<unknown> };
}

/**
 * The one rule for a movie the library did not have (from a scan, an import or a scanned disc): it is
 * enriched first (TMDb details, OMDb ratings) and its artwork fetched after, because the TMDb images to
 * download are what enrichment names. The scan, import and barcode services take this through their
 * constructors.
 */
export class NewMovieMetadata {
  constructor(private readonly deps: NewMovieMetadataDeps) {}

  /**
   * Queues enrichment as a background job and fetches artwork once it ended; resolves with the
   * enrichment job's id (null when no provider is configured) as soon as it is queued.
   * `artworkWithoutEnrichment`: fetch artwork even when nothing enriches. A scanned movie may have a
   * poster beside its files; an imported one has no files or TMDb images before enrichment, so the
   * import leaves it to a later artwork fetch.
   */
  async queue(movieIds: number[], options: { artworkWithoutEnrichment: boolean }): Promise<number | null> {
    const jobId = await this.deps.enrichment.queue(movieIds);
    if (jobId !== null || options.artworkWithoutEnrichment) {
      // Artwork is not started once the server is closing: that refusal is nobody's error.
      void (async () => {
        if (jobId !== null) await this.deps.jobs.wait(jobId);
        await this.deps.artwork.start(movieIds);
      })().catch(() => undefined);
    }
    return jobId;
  }

  /**
   * Enriches one movie now (the person who scanned the disc is looking at it), then starts its artwork
   * fetch; resolves with enrichment's warnings.
   */
  async now(movieId: number): Promise<string[]> {
    const batch: EnrichmentBatch = { ratingsStopped: false, warnings: [] };
    if (this.deps.enrichment.enabled) await this.deps.enrichment.enrich(movieId, batch);
    await this.deps.artwork.start([movieId]);
    return batch.warnings;
  }
}
