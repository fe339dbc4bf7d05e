// The layer and cycle rules over server/src (docs/architecture.md), checked by
// server/test/unit/architecture.test.ts through dependency-cruiser's JS API (by hand:
// `npx depcruise server/src --config .dependency-cruiser.cjs`). Layers, top to bottom; a layer may import any layer below it:
//   http/ (routes, pages), cli/, main.ts, server.ts   — the edges and the composition root
//   services/                                         — rules, one use case each
//   repositories/, adapters/, providers/, jobs/, db/  — every I/O: database, files, processes, HTTP
//   domain/                                           — pure decisions
// errors.ts and config.ts are shared by all and import no layer.
const TOP = '^server/src/(http|cli)/|^server/src/(main|server)\\.ts$';
const SERVICES = '^server/src/services/';
const INFRASTRUCTURE = '^server/src/(repositories|adapters|providers|jobs|db)/';
const DOMAIN = '^server/src/domain/';

// The capability folders of services/ and which others each may import (docs/architecture.md). A
// new capability (people, a Jellyfin API, DLNA, thumbnails) adds its line here.
const CAPABILITIES = {
  system: [],
  // people: who asks, and what they may see (the visibility rule every list applies).
  people: [],
  library: ['system', 'people'],
  metadata: ['library', 'system', 'people'],
  scan: ['library', 'metadata', 'system', 'people'],
  import: ['library', 'metadata', 'system', 'people'],
  playback: ['library', 'system', 'people'],
  // jellyfin: the Jellyfin-compatible facade's use cases, over the library and its people.
  jellyfin: ['library', 'playback', 'trickplay', 'system', 'people'],
  // dlna: the UPnP MediaServer's use cases (content directory, media, SSDP), for its one person.
  dlna: ['library', 'playback', 'system', 'people'],
  // trickplay: making and keeping seek thumbnails (the job, its rows and files, the reader surfaces serve from).
  trickplay: ['library', 'playback', 'system', 'people'],
  // collector: binders and their slots, the wish list (issue 27), over the library and its people
  // (metadata: a wish named by its TMDb id is titled from TMDb).
  collector: ['library', 'metadata', 'system', 'people'],
};
const CAPABILITY = `^server/src/services/(${Object.keys(CAPABILITIES).join('|')})/`;

/** One rule per capability: it imports only the capabilities declared for it. */
const capabilityRules = Object.entries(CAPABILITIES).map(([name, allowed]) => {
  const others = Object.keys(CAPABILITIES).filter((c) => c !== name && !allowed.includes(c));
  return {
    name: `capability-direction-${name}`,
    severity: 'error',
    comment: `services/${name}/ may use ${allowed.length === 0 ? 'no other capability' : allowed.join(', ')} (and domain, infrastructure); not ${others.join(', ')}.`,
    from: { path: `^server/src/services/${name}/` },
    to: { path: `^server/src/services/(${others.join('|')})/` },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...capabilityRules,
    {
      name: 'services-not-in-folders',
      severity: 'error',
      comment:
        'Every service lives in a capability folder; services/index.ts (the composition root) is the only file at the top.',
      from: { path: '^server/src/services/[^/]+$', pathNot: '^server/src/services/index\\.ts$' },
      to: { path: '^server/src/' },
    },
    {
      name: 'capabilities-below-composition-root',
      severity: 'error',
      comment:
        'A capability never imports the composition root: it gets what it needs through its constructor.',
      from: { path: CAPABILITY },
      to: { path: '^server/src/services/index\\.ts$' },
    },
    {
      name: 'services-get-repositories',
      severity: 'error',
      comment:
        'A service is handed its repositories (through its constructor, built by services/index.ts): it imports their types only, so it cannot `new` one. Unit tests hand in fakes (server/test/fakes).',
      from: { path: CAPABILITY },
      to: { path: '^server/src/repositories/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-not-on-the-database',
      severity: 'error',
      comment:
        'A service reaches the database only through repositories (and a UnitOfWork of them) handed in: it imports nothing of db/, not even a type (row types come from the repositories). services/index.ts, the composition root, builds them on the database.',
      from: { path: CAPABILITY },
      to: { path: '^server/src/db/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: one of the two should get what it needs passed in.',
      from: { path: '^server/src/' },
      to: { circular: true },
    },
    {
      name: 'domain-stays-pure',
      severity: 'error',
      comment:
        'domain/ imports only domain/ (and the contract): no service, repository, adapter, error or config.',
      from: { path: DOMAIN },
      to: { path: '^server/src/', pathNot: DOMAIN },
    },
    {
      name: 'infrastructure-below-services',
      severity: 'error',
      comment: 'Repositories, adapters, providers, jobs and db serve the services; they never call up.',
      from: { path: INFRASTRUCTURE },
      to: { path: `${SERVICES}|${TOP}` },
    },
    {
      name: 'services-below-http',
      severity: 'error',
      comment: 'Services know nothing of HTTP, the CLI or the composition root.',
      from: { path: SERVICES },
      to: { path: TOP },
    },
    {
      name: 'routes-through-services',
      severity: 'error',
      comment:
        'Routes stay thin: data is read and written by services, never by a route on the database or the job runner.',
      from: { path: '^server/src/http/' },
      to: { path: '^server/src/(repositories|db|jobs)/' },
    },
    {
      name: 'no-fs-or-process-in-rules',
      severity: 'error',
      comment:
        'Files and processes are reached through adapters (ESLint no-restricted-imports says the same).',
      from: { path: `${SERVICES}|${DOMAIN}` },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|child_process)$' },
    },
    {
      name: 'http-serves-checked-files',
      severity: 'error',
      comment:
        'http/ sends bytes from files a service got from an adapter that checked where they lie (DataStore, MediaPathService over FileSystemAdapter); it opens no path itself.',
      from: { path: '^server/src/http/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|child_process)$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle of types is still a cycle of knowledge.
    tsPreCompilationDeps: true,
  },
};
