import type { OmdbClient, TmdbClient, TmdbMovieSummary, UpcItemDbClient } from '../../providers/index.ts';
import type {
  MovieCandidate,
  MovieDetails,
  MovieMetadataPort,
  RatingsPort,
  UpcLookupPort,
} from './provider-ports.ts';

function candidate(m: TmdbMovieSummary): MovieCandidate {
  return {
    tmdb_id: m.id,
    title: m.title,
    original_title: m.originalTitle,
    year: m.year,
    poster_path: m.posterPath,
    overview: m.overview,
  };
}

/** UPCitemdb behind the barcode service's port. */
export function upcPort(client: UpcItemDbClient): UpcLookupPort {
  return {
    async lookup(upc) {
      const found = await client.lookup(upc);
      if (!found.found) return { found: false };
      const p = found.product;
      return {
        found: true,
        product: { title: p.title, category: p.category, brand: p.brand, images: p.images },
      };
    },
  };
}

/** TMDb behind the barcode and enrichment services' port. */
export function tmdbPort(client: TmdbClient): MovieMetadataPort {
  return {
    async searchMovie(query, year) {
      const page = await client.searchMovie(query, year);
      if (page.results.length > 0 || year === null || year === undefined) return page.results.map(candidate);
      // A disc's year is often the release on disc, not in cinemas: retry without it.
      return (await client.searchMovie(query, null)).results.map(candidate);
    },
    async movieDetails(tmdbId): Promise<MovieDetails> {
      const d = await client.movieDetails(tmdbId);
      return {
        tmdbId: d.id,
        title: d.title,
        originalTitle: d.originalTitle,
        year: d.year,
        overview: d.overview,
        tagline: d.tagline,
        runtimeMinutes: d.runtime,
        genres: d.genres.map((g) => g.name),
        imdbId: d.imdbId ?? d.externalIds.imdbId,
        posterPath: d.posterPath,
        backdropPath: d.backdropPath,
        collection: d.collection === null ? null : { id: d.collection.id, name: d.collection.name },
        studios: d.productionCompanies.map((c) => ({ tmdbId: c.id, name: c.name })),
        cast: d.credits.cast.map((c) => ({
          tmdbId: c.id,
          name: c.name,
          character: c.character,
          order: c.order,
          profilePath: c.profilePath,
        })),
        crew: d.credits.crew.map((c) => ({
          tmdbId: c.id,
          name: c.name,
          job: c.job,
          department: c.department,
        })),
        releases: d.releaseDates.map((r) => ({
          country: r.country,
          type: r.type,
          certification: r.certification,
        })),
      };
    },
    async findByImdbId(imdbId) {
      return (await client.findByImdbId(imdbId)).movies[0]?.id ?? null;
    },
  };
}

/** OMDb behind the enrichment service's ratings port. */
export function omdbPort(client: OmdbClient): RatingsPort {
  return {
    async ratings(imdbId) {
      const found = await client.ratings(imdbId);
      if (!found.found) return null;
      return found.ratings.map((r) => ({ source: r.source, value: r.value }));
    },
  };
}
