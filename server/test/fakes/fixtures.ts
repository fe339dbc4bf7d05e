/**
 * Fixture data for the provider fakes, in each service's own wire format (reference metadata.md).
 * Ids and titles are the real ones; counts, ratings and paths are illustrative.
 */

/** Credentials the fakes accept. None is a real key. */
export const FAKE_KEYS = {
  /** 32 hex: sent as `api_key`. */
  tmdbV3ApiKey: '5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0',
  /** JWT-like: sent as `Authorization: Bearer`. */
  tmdbReadToken: 'eyJhbGciOiJIUzI1NiJ9.eyJhdWQiOiJyZWVsc2hlbGYtZmFrZSJ9.fAkeSiGnAtUrE_secret',
  omdbApiKey: 'omdbsecret42',
  upcUserKey: 'upcsecretkey77',
} as const;

/** Barcodes (valid check digits) and what they are. */
export const BARCODES = {
  /** "Inception (Blu-ray) [Blu-ray]" → TMDb 27205, IMDb tt1375666. */
  inceptionBluRay: '883929106646',
  /** "Dune (4K Ultra HD + Blu-ray + Digital)" → TMDb 438631. */
  dune4k: '883929748198',
  /** "Alien (Special Edition) [DVD]" → TMDb 348. */
  alienDvd: '024543074212',
  /** Valid UPC-A, unknown to the UPC service. */
  unknown: '036000291452',
  /** Fails the check digit (UPCitemdb answers INVALID_UPC). */
  badCheckDigit: '883929106647',
} as const;

/** A UPCitemdb `items[]` entry. */
export interface UpcItem {
  ean: string;
  title: string;
  upc?: string;
  gtin?: string;
  elid?: string;
  asin?: string;
  description: string;
  brand: string;
  model: string;
  color: string;
  size: string;
  dimension: string;
  weight: string;
  category: string;
  currency: string;
  lowest_recorded_price?: number;
  highest_recorded_price?: number;
  images: string[];
  offers: Record<string, unknown>[];
}

function upcItem(code12: string, fields: Partial<UpcItem> & { title: string }): UpcItem {
  return {
    ean: `0${code12}`,
    upc: code12,
    gtin: '',
    elid: '',
    description: '',
    brand: '',
    model: '',
    color: '',
    size: '',
    dimension: '',
    weight: '',
    category: 'Media > DVDs & Videos',
    currency: '',
    images: [],
    offers: [],
    ...fields,
  };
}

export const UPC_PRODUCTS: Record<string, UpcItem> = {
  [BARCODES.inceptionBluRay]: upcItem(BARCODES.inceptionBluRay, {
    title: 'Inception (Blu-ray) [Blu-ray]',
    asin: 'B002ZG97YA',
    description: 'Dom Cobb is a skilled thief, the absolute best in the dangerous art of extraction.',
    brand: 'Warner Home Video',
    lowest_recorded_price: 3.99,
    highest_recorded_price: 44.99,
    images: ['https://images.example.invalid/inception.jpg'],
    offers: [
      {
        merchant: 'Newegg.com',
        domain: 'newegg.com',
        title: 'Inception Blu-ray',
        currency: '',
        list_price: '',
        price: 9.99,
        shipping: 'Free Shipping',
        condition: 'New',
        availability: 'Out of Stock',
        link: 'https://www.upcitemdb.com/norob/alink/?id=fake',
        updated_t: 1479243029,
      },
    ],
  }),
  [BARCODES.dune4k]: upcItem(BARCODES.dune4k, {
    title: 'Dune (4K Ultra HD + Blu-ray + Digital)',
    description: 'Paul Atreides, a brilliant and gifted young man born into a great destiny.',
    brand: 'Warner Bros.',
    images: ['https://images.example.invalid/dune-4k.jpg', 'not a url'],
  }),
  [BARCODES.alienDvd]: upcItem(BARCODES.alienDvd, {
    title: 'Alien (Special Edition) [DVD]',
    description: 'In deep space, the crew of the commercial starship Nostromo is awakened.',
    brand: '20th Century Fox',
    category: 'Media > DVDs & Videos',
  }),
};

// ---------------------------------------------------------------------------------------------
// TMDb

export type TmdbRawMovie = Record<string, unknown> & { id: number; title: string };

function cast(id: number, name: string, character: string, order: number, profile: string | null) {
  return {
    adult: false,
    gender: 2,
    id,
    known_for_department: 'Acting',
    name,
    original_name: name,
    popularity: 10.5,
    profile_path: profile,
    cast_id: order + 1,
    character,
    credit_id: `credit${id}c${order}`,
    order,
  };
}

function crew(id: number, name: string, job: string, department: string) {
  return {
    adult: false,
    gender: 2,
    id,
    known_for_department: department,
    name,
    original_name: name,
    popularity: 5.1,
    profile_path: null,
    credit_id: `credit${id}${job.replace(/\W/g, '')}`,
    department,
    job,
  };
}

function image(file_path: string, iso_639_1: string | null, width: number, height: number) {
  return {
    aspect_ratio: width / height,
    height,
    iso_639_1,
    file_path,
    vote_average: 5.4,
    vote_count: 12,
    width,
  };
}

function releases(country: string, dates: [string, number, string][]) {
  return {
    iso_3166_1: country,
    release_dates: dates.map(([date, type, certification]) => ({
      certification,
      descriptors: [],
      iso_639_1: '',
      note: type === 5 ? 'Blu-ray' : '',
      release_date: `${date}T00:00:00.000Z`,
      type,
    })),
  };
}

export const TMDB_MOVIES: TmdbRawMovie[] = [
  {
    adult: false,
    backdrop_path: '/inception-backdrop.jpg',
    belongs_to_collection: null,
    budget: 160000000,
    genres: [
      { id: 28, name: 'Action' },
      { id: 878, name: 'Science Fiction' },
      { id: 12, name: 'Adventure' },
    ],
    homepage: 'https://www.warnerbros.com/movies/inception',
    id: 27205,
    imdb_id: 'tt1375666',
    origin_country: ['US', 'GB'],
    original_language: 'en',
    original_title: 'Inception',
    overview: 'Cobb, a skilled thief who commits corporate espionage by infiltrating the subconscious…',
    popularity: 83.9,
    poster_path: '/inception-poster.jpg',
    production_companies: [
      { id: 923, logo_path: '/legendary.png', name: 'Legendary Pictures', origin_country: 'US' },
      { id: 9996, logo_path: null, name: 'Syncopy', origin_country: 'GB' },
      { id: 174, logo_path: '/wb.png', name: 'Warner Bros. Pictures', origin_country: 'US' },
    ],
    production_countries: [{ iso_3166_1: 'US', name: 'United States of America' }],
    release_date: '2010-07-15',
    revenue: 825532764,
    runtime: 148,
    spoken_languages: [{ english_name: 'English', iso_639_1: 'en', name: 'English' }],
    status: 'Released',
    tagline: 'Your mind is the scene of the crime.',
    title: 'Inception',
    video: false,
    vote_average: 8.4,
    vote_count: 36000,
    credits: {
      cast: [
        cast(24045, 'Joseph Gordon-Levitt', 'Arthur', 1, '/jgl.jpg'),
        cast(6193, 'Leonardo DiCaprio', 'Dom Cobb', 0, '/leo.jpg'),
        cast(27578, 'Elliot Page', 'Ariadne', 2, null),
        cast(2524, 'Tom Hardy', 'Eames', 3, '/hardy.jpg'),
      ],
      crew: [
        crew(525, 'Christopher Nolan', 'Director', 'Directing'),
        crew(525, 'Christopher Nolan', 'Screenplay', 'Writing'),
        crew(556, 'Emma Thomas', 'Producer', 'Production'),
        crew(947, 'Hans Zimmer', 'Original Music Composer', 'Sound'),
      ],
    },
    images: {
      backdrops: [
        image('/inception-backdrop.jpg', null, 32, 18),
        image('/inception-backdrop-en.jpg', 'en', 32, 18),
      ],
      logos: [image('/inception-logo.png', 'en', 32, 10)],
      posters: [
        image('/inception-poster.jpg', 'en', 20, 30),
        image('/inception-poster-fr.jpg', 'fr', 20, 30),
        image('/inception-poster-textless.jpg', null, 20, 30),
      ],
    },
    release_dates: {
      results: [
        releases('US', [
          ['2010-07-15', 3, 'PG-13'],
          ['2010-12-07', 5, 'PG-13'],
        ]),
        releases('GB', [['2010-07-16', 3, '12A']]),
      ],
    },
    external_ids: {
      imdb_id: 'tt1375666',
      wikidata_id: 'Q25188',
      facebook_id: 'inceptionmovie',
      instagram_id: null,
      twitter_id: null,
    },
  },
  {
    adult: false,
    backdrop_path: '/dune-backdrop.jpg',
    belongs_to_collection: {
      id: 726871,
      name: 'Dune Collection',
      poster_path: '/dune-collection-poster.jpg',
      backdrop_path: null,
    },
    genres: [
      { id: 878, name: 'Science Fiction' },
      { id: 12, name: 'Adventure' },
    ],
    id: 438631,
    imdb_id: 'tt1160419',
    original_language: 'en',
    original_title: 'Dune',
    overview:
      'Paul Atreides, a brilliant and gifted young man born into a great destiny beyond his understanding…',
    popularity: 120.4,
    poster_path: '/dune-poster.jpg',
    production_companies: [
      { id: 923, logo_path: '/legendary.png', name: 'Legendary Pictures', origin_country: 'US' },
    ],
    release_date: '2021-09-15',
    runtime: 155,
    status: 'Released',
    tagline: 'Beyond fear, destiny awaits.',
    title: 'Dune',
    video: false,
    vote_average: 7.8,
    vote_count: 12000,
    credits: {
      cast: [
        cast(1190668, 'Timothée Chalamet', 'Paul Atreides', 0, '/chalamet.jpg'),
        cast(933238, 'Rebecca Ferguson', 'Lady Jessica Atreides', 1, null),
      ],
      crew: [crew(137427, 'Denis Villeneuve', 'Director', 'Directing')],
    },
    images: {
      backdrops: [image('/dune-backdrop.jpg', null, 32, 18)],
      logos: [],
      posters: [image('/dune-poster.jpg', 'en', 20, 30)],
    },
    release_dates: {
      results: [
        releases('US', [
          ['2021-10-22', 3, 'PG-13'],
          ['2022-01-11', 5, 'PG-13'],
        ]),
      ],
    },
    external_ids: {
      imdb_id: 'tt1160419',
      wikidata_id: 'Q28042320',
      facebook_id: null,
      instagram_id: null,
      twitter_id: null,
    },
  },
  {
    adult: false,
    backdrop_path: '/alien-backdrop.jpg',
    belongs_to_collection: {
      id: 8091,
      name: 'Alien Collection',
      poster_path: '/alien-collection-poster.jpg',
      backdrop_path: '/alien-collection-backdrop.jpg',
    },
    genres: [
      { id: 27, name: 'Horror' },
      { id: 878, name: 'Science Fiction' },
    ],
    id: 348,
    imdb_id: 'tt0078748',
    original_language: 'en',
    original_title: 'Alien',
    overview: 'During its return to the earth, commercial spaceship Nostromo intercepts a distress signal…',
    popularity: 60.2,
    poster_path: '/alien-poster.jpg',
    production_companies: [
      { id: 401, logo_path: null, name: 'Brandywine Productions', origin_country: 'US' },
    ],
    release_date: '1979-05-25',
    runtime: 117,
    status: 'Released',
    tagline: 'In space no one can hear you scream.',
    title: 'Alien',
    video: false,
    vote_average: 8.1,
    vote_count: 15000,
    credits: {
      cast: [cast(10205, 'Sigourney Weaver', 'Ellen Ripley', 0, '/weaver.jpg')],
      crew: [crew(578, 'Ridley Scott', 'Director', 'Directing')],
    },
    images: {
      backdrops: [image('/alien-backdrop.jpg', null, 32, 18)],
      logos: [],
      posters: [image('/alien-poster.jpg', 'en', 20, 30)],
    },
    release_dates: { results: [releases('US', [['1979-05-25', 3, 'R']])] },
    external_ids: {
      imdb_id: 'tt0078748',
      wikidata_id: 'Q103569',
      facebook_id: null,
      instagram_id: null,
      twitter_id: null,
    },
  },
  {
    adult: false,
    backdrop_path: null,
    belongs_to_collection: null,
    genres: [{ id: 878, name: 'Science Fiction' }],
    id: 603,
    imdb_id: 'tt0133093',
    original_language: 'en',
    original_title: 'The Matrix',
    overview: 'Set in the 22nd century, The Matrix tells the story of a computer hacker…',
    popularity: 80.1,
    poster_path: null,
    production_companies: [],
    release_date: '1999-03-31',
    runtime: 0,
    status: 'Released',
    tagline: '',
    title: 'The Matrix',
    video: false,
    vote_average: 8.2,
    vote_count: 26000,
    credits: { cast: [], crew: [] },
    images: { backdrops: [], logos: [], posters: [] },
    release_dates: { results: [] },
    external_ids: {
      imdb_id: 'tt0133093',
      wikidata_id: null,
      facebook_id: null,
      instagram_id: null,
      twitter_id: null,
    },
  },
];

/** A `/find` hit that is a TV show, not a movie. */
export const TMDB_TV = [
  {
    id: 1396,
    name: 'Breaking Bad',
    original_name: 'Breaking Bad',
    first_air_date: '2008-01-20',
    imdb_id: 'tt0903747',
    media_type: 'tv',
  },
];

/** Image files the fake image server serves: file path → size and colour. */
export const TMDB_IMAGE_FILES: Record<
  string,
  { width: number; height: number; rgb: [number, number, number] }
> = {
  '/inception-poster.jpg': { width: 20, height: 30, rgb: [30, 60, 120] },
  '/inception-backdrop.jpg': { width: 32, height: 18, rgb: [120, 90, 40] },
  '/dune-poster.jpg': { width: 20, height: 30, rgb: [200, 150, 60] },
  '/dune-backdrop.jpg': { width: 32, height: 18, rgb: [180, 120, 50] },
  '/alien-poster.jpg': { width: 20, height: 30, rgb: [10, 10, 10] },
  '/alien-backdrop.jpg': { width: 32, height: 18, rgb: [20, 40, 20] },
  '/poster1.jpg': { width: 20, height: 30, rgb: [90, 90, 90] },
};

// ---------------------------------------------------------------------------------------------
// OMDb

export type OmdbRecord = Record<string, unknown> & { imdbID: string; Title: string };

function omdb(
  imdbID: string,
  Title: string,
  Year: string,
  imdbRating: string,
  rt: string | null,
  Metascore: string,
): OmdbRecord {
  const ratings = [{ Source: 'Internet Movie Database', Value: `${imdbRating}/10` }];
  if (rt !== null) ratings.push({ Source: 'Rotten Tomatoes', Value: rt });
  if (Metascore !== 'N/A') ratings.push({ Source: 'Metacritic', Value: `${Metascore}/100` });
  return {
    Title,
    Year,
    Rated: 'PG-13',
    Released: 'N/A',
    Runtime: 'N/A',
    Genre: 'N/A',
    Director: 'N/A',
    Writer: 'N/A',
    Actors: 'N/A',
    Plot: 'N/A',
    Language: 'English',
    Country: 'United States',
    Awards: 'N/A',
    Poster: 'N/A',
    Ratings: ratings,
    Metascore,
    imdbRating,
    imdbVotes: '2,512,000',
    imdbID,
    Type: 'movie',
    DVD: 'N/A',
    BoxOffice: '$292,587,330',
    Production: 'N/A',
    Website: 'N/A',
    Response: 'True',
  };
}

export const OMDB_MOVIES: OmdbRecord[] = [
  omdb('tt1375666', 'Inception', '2010', '8.8', '87%', '74'),
  omdb('tt1160419', 'Dune', '2021', '8.0', '83%', '74'),
  omdb('tt0078748', 'Alien', '1979', '8.5', '98%', '89'),
  // No ratings yet: everything "N/A".
  { ...omdb('tt0133093', 'The Matrix', '1999', 'N/A', null, 'N/A'), Ratings: [], imdbVotes: 'N/A' },
];
