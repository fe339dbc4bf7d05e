import type { Access } from '../domain/people/access.ts';

/**
 * Who may call each route (issue 22), in one table: `<METHOD> <url>` as registered → Access.
 * A route missing here is `admin` (closed until someone opens it), and
 * server/test/unit/http/route-access.test.ts fails on any registered route this table does not
 * name, so a new route is classified on purpose. HEAD follows GET.
 */
export const ROUTE_ACCESS: Readonly<Record<string, Access>> = {
  // Anyone.
  'GET /api/health': 'public',
  'GET /api/contract': 'public',
  'GET /sign-in': 'public',
  'POST /sign-in': 'public',
  'GET /assets/*': 'public',
  // Signing in checks its own credentials (rate-limited per address and per name).
  'POST /api/sessions': 'public',
  // Stream URLs carry their own signed playback token (or a bearer) and check it themselves.
  'GET /stream/media_file/:id': 'public',
  'GET /stream/media_file/:id/master.m3u8': 'public',
  'GET /stream/media_file/:id/hls/:rendition/index.m3u8': 'public',
  'GET /stream/media_file/:id/hls/:rendition/:segment': 'public',
  'GET /stream/media_file/:id/subtitles/:track': 'public',
  'GET /stream/media_file/:id/trickplay/:generation/:sheet': 'public',
  'GET /stream/media_file/:id/trickplay/:generation/roku/:sheet': 'public',
  'GET /stream/media_file/:id/trickplay/tiles.m3u8': 'public',
  'GET /stream/media_file/:id/trickplay.bif': 'public',
  // DLNA media (http/dlna/media.routes.ts): TVs have no credentials; each URL carries a token signed
  // for the DLNA person, the file (or film) and the TV family, checked with the person's visibility on
  // every request, and only LAN peers are answered.
  'GET /dlna/media/:family/:fileId/:name': 'public',
  'GET /dlna/media/:family/:fileId/conversion.ts': 'public',
  'GET /dlna/media/:family/:fileId/subtitles/:name': 'public',
  'GET /dlna/media/:family/art/:movieId/:name': 'public',
  // The Jellyfin facade's server rating and sign-in (http/jellyfin/; paths lower-cased on arrival).
  'GET /jellyfin/system/info/public': 'public',
  'POST /jellyfin/users/authenticatebyname': 'public',
  // Jellyfin images (issue 23, port+discovery+images part): a right tag is its own credential; with a
  // token the route checks it and the person's visibility itself (http/jellyfin/images.routes.ts).
  'GET /jellyfin/items/:itemid/images/:type': 'public',
  'GET /jellyfin/items/:itemid/images/:type/:index': 'public',
  // The DLNA MediaServer (http/dlna/dlna.routes.ts): DLNA has no sign-in, so TVs send no credential;
  // instead these answer LAN addresses only (domain/dlna/lan-address.ts) and serve only the view of
  // the person REELSHELF_DLNA names. Off, they answer 404.
  'GET /dlna/description.xml': 'public',
  'GET /dlna/ContentDirectory.xml': 'public',
  'GET /dlna/ConnectionManager.xml': 'public',
  'GET /dlna/X_MS_MediaReceiverRegistrar.xml': 'public',
  'GET /dlna/icon-48.png': 'public',
  'GET /dlna/icon-48.jpg': 'public',
  'GET /dlna/icon-120.png': 'public',
  'GET /dlna/icon-120.jpg': 'public',
  'POST /dlna/control/:service': 'public',
  'SUBSCRIBE /dlna/events/:service': 'public',
  'UNSUBSCRIBE /dlna/events/:service': 'public',

  // Any signed-in person.
  'POST /sign-out': 'signed-in',
  'GET /api/me': 'signed-in',

  // A person's own account, not with a read or playback key: sessions, PIN, keys, switching.
  'DELETE /api/sessions/current': 'account',
  'DELETE /api/sessions': 'account',
  'POST /api/sessions/switch': 'account',
  'PUT /api/me/pin': 'account',
  'DELETE /api/me/pin': 'account',
  'POST /api/keys': 'account',
  'GET /api/keys': 'account',
  'DELETE /api/keys/:id': 'account',
  'GET /who': 'account',
  'POST /who/switch': 'account',

  // Reading the library, as the person may see it.
  'GET /': 'read',
  'GET /library': 'read',
  'GET /movie/:id': 'read',
  'GET /api/movies': 'read',
  'GET /api/movies/:id': 'read',
  'GET /api/collections': 'read',
  'GET /api/devices': 'read',
  // Binders (issue 27): each slot through the person's visibility; moves, swaps, renames are admins'.
  'GET /api/binders': 'read',
  'GET /api/binders/:name': 'read',
  'GET /binders': 'read',
  'GET /binders/:name': 'read',
  'PATCH /api/binders/:name': 'admin',
  'PATCH /api/physical-copies/:id': 'admin',
  'POST /api/physical-copies/swap': 'admin',
  'POST /binders/:name/rename': 'admin',
  'POST /binders/:name/move': 'admin',
  // Stats (issue 27 item 6): counts through the person's visibility; another person's year: admins (the service checks).
  'GET /stats': 'read',
  'GET /stats/year': 'read',
  'GET /api/stats': 'read',
  'GET /api/stats/year': 'read',
  // Loans (issue 27): the list through the person's visibility; lends and returns are admins'.
  'GET /api/loans': 'read',
  'POST /api/physical-copies/:id/loan': 'admin',
  'DELETE /api/physical-copies/:id/loan': 'admin',
  'GET /loans': 'read',
  'POST /loans/lend': 'admin',
  'POST /loans/return': 'admin',
  // Rip queue and upgrades (issue 27): reads through the person's visibility.
  'GET /api/rip-queue': 'read',
  'GET /api/upgrades': 'read',
  'GET /rip-queue': 'read',
  'GET /upgrades': 'read',
  'GET /artwork/:movieId/:kind': 'read',
  // The Jellyfin facade's browsing (its token: a device session of the person).
  'GET /jellyfin/userviews': 'read',
  'GET /jellyfin/users/:userid/views': 'read',
  'GET /jellyfin/items': 'read',
  'GET /jellyfin/users/:userid/items': 'read',
  'GET /jellyfin/items/:itemid': 'read',
  'GET /jellyfin/users/:userid/items/:itemid': 'read',
  // The Jellyfin facade's browse lists and favourites (issue 23 §3, §5; http/jellyfin/items.routes.ts).
  'GET /jellyfin/items/latest': 'read',
  'GET /jellyfin/users/:userid/items/latest': 'read',
  'GET /jellyfin/useritems/resume': 'read',
  'GET /jellyfin/users/:userid/items/resume': 'read',
  'GET /jellyfin/genres': 'read',
  'GET /jellyfin/persons': 'read',
  'GET /jellyfin/items/filters': 'read',
  'GET /jellyfin/items/filters2': 'read',
  'GET /jellyfin/items/:itemid/similar': 'read',
  'GET /jellyfin/items/:itemid/localtrailers': 'read',
  'GET /jellyfin/users/:userid/items/:itemid/localtrailers': 'read',
  'GET /jellyfin/items/:itemid/specialfeatures': 'read',
  'GET /jellyfin/users/:userid/items/:itemid/specialfeatures': 'read',
  'GET /jellyfin/items/:itemid/thememedia': 'read',
  'GET /jellyfin/items/:itemid/themesongs': 'read',
  'GET /jellyfin/items/:itemid/themevideos': 'read',
  // A favourite is the person's own state, written like their progress.
  'POST /jellyfin/userfavoriteitems/:itemid': 'playback',
  'DELETE /jellyfin/userfavoriteitems/:itemid': 'playback',
  'POST /jellyfin/users/:userid/favoriteitems/:itemid': 'playback',
  'DELETE /jellyfin/users/:userid/favoriteitems/:itemid': 'playback',

  // The Jellyfin facade's playback (issue 23 item 4, http/jellyfin/playback.routes.ts): PlaybackInfo,
  // the static stream, HLS and subtitle files; the media routes also take the token as ApiKey.
  'GET /jellyfin/items/:itemid/playbackinfo': 'playback',
  'POST /jellyfin/items/:itemid/playbackinfo': 'playback',
  'GET /jellyfin/users/:userid/items/:itemid/playbackinfo': 'playback',
  'POST /jellyfin/users/:userid/items/:itemid/playbackinfo': 'playback',
  'GET /jellyfin/videos/:itemid/stream': 'playback',
  'GET /jellyfin/videos/:itemid/stream.:container': 'playback',
  'GET /jellyfin/videos/:itemid/master.m3u8': 'playback',
  'GET /jellyfin/videos/:itemid/hls/:rendition/index.m3u8': 'playback',
  'GET /jellyfin/videos/:itemid/hls/:rendition/:segment': 'playback',
  'GET /jellyfin/videos/:itemid/:mediasourceid/subtitles/:index/stream.:format': 'playback',
  'GET /jellyfin/videos/:itemid/:mediasourceid/subtitles/:index/:startticks/stream.:format': 'playback',
  // Seek thumbnails (http/jellyfin/trickplay.routes.ts): the sheets and their image playlist.
  'GET /jellyfin/videos/:itemid/trickplay/:width/:file': 'playback',

  // Playing, and the person's own state.
  'GET /api/media-file/:id/playback': 'playback',
  // Its sheet URLs carry playback tokens: only for who may play.
  'GET /api/media-file/:id/trickplay': 'playback',
  'GET /api/media-file/:id/prewarm-tv': 'playback',
  'POST /api/media-file/:id/prewarm-tv': 'playback',
  'DELETE /api/media-file/:id/prewarm-tv': 'playback',
  'PUT /api/media-file/:id/progress': 'playback',
  'GET /api/me/history': 'playback',
  'GET /api/me/continue': 'playback',
  'GET /history': 'playback',

  // Jellyfin facade — progress, played, sessions, sign-out and the calls the apps make on the way
  // (http/jellyfin/sessions.routes.ts, stubs.routes.ts). Login-screen calls come before sign-in.
  'GET /jellyfin/users/public': 'public',
  'GET /jellyfin/quickconnect/enabled': 'public',
  'GET /jellyfin/branding/configuration': 'public',
  'GET /jellyfin/branding/css': 'public',
  'GET /jellyfin/branding/css.css': 'public',
  'GET /jellyfin/system/ping': 'public',
  'POST /jellyfin/system/ping': 'public',
  'GET /jellyfin/system/info': 'signed-in',
  'GET /jellyfin/users/me': 'signed-in',
  'GET /jellyfin/users/:userid': 'signed-in',
  'GET /jellyfin/displaypreferences/:id': 'signed-in',
  'POST /jellyfin/displaypreferences/:id': 'signed-in',
  'GET /jellyfin/localization/countries': 'signed-in',
  'GET /jellyfin/localization/cultures': 'signed-in',
  'GET /jellyfin/localization/options': 'signed-in',
  'GET /jellyfin/localization/parentalratings': 'signed-in',
  'GET /jellyfin/playback/bitratetest': 'playback',
  'GET /jellyfin/mediasegments/:itemid': 'read',
  'POST /jellyfin/sessions/capabilities': 'signed-in',
  'POST /jellyfin/sessions/capabilities/full': 'signed-in',
  'GET /jellyfin/sessions': 'signed-in',
  'POST /jellyfin/sessions/logout': 'signed-in',
  'POST /jellyfin/sessions/playing': 'playback',
  'POST /jellyfin/sessions/playing/progress': 'playback',
  'POST /jellyfin/sessions/playing/stopped': 'playback',
  'POST /jellyfin/sessions/playing/ping': 'playback',
  'POST /jellyfin/playingitems/:itemid': 'playback',
  'POST /jellyfin/playingitems/:itemid/progress': 'playback',
  'DELETE /jellyfin/playingitems/:itemid': 'playback',
  'POST /jellyfin/users/:userid/playingitems/:itemid': 'playback',
  'POST /jellyfin/users/:userid/playingitems/:itemid/progress': 'playback',
  'DELETE /jellyfin/users/:userid/playingitems/:itemid': 'playback',
  'POST /jellyfin/userplayeditems/:itemid': 'playback',
  'DELETE /jellyfin/userplayeditems/:itemid': 'playback',
  'POST /jellyfin/users/:userid/playeditems/:itemid': 'playback',
  'DELETE /jellyfin/users/:userid/playeditems/:itemid': 'playback',

  // Adding to the collection.
  'GET /api/barcode/:code': 'collect',
  'POST /api/barcode/:code': 'collect',
  'POST /api/import': 'collect',
  'GET /import': 'collect',
  // The wish list (issue 27): a wish carries no rating, so everyone reads it; collectors change it.
  'GET /api/wishes': 'read',
  'POST /api/wishes': 'collect',
  'DELETE /api/wishes/:id': 'collect',
  'GET /wishes': 'read',
  'POST /wishes': 'collect',
  'POST /wishes/:id/remove': 'collect',
  // A person's own watched films for Letterboxd (their history, their content limit).
  'GET /api/export/letterboxd': 'read',

  // The household's people (admins).
  'GET /api/users': 'admin',
  'POST /api/users': 'admin',
  'GET /api/users/:id': 'admin',
  'PATCH /api/users/:id': 'admin',
  'DELETE /api/users/:id': 'admin',
  'DELETE /api/users/:id/pin': 'admin',
  'GET /people': 'admin',
  'POST /people/users': 'admin',
  'POST /people/users/:id': 'admin',
  'POST /people/users/:id/remove': 'admin',
  'POST /people/users/:id/sign-out': 'admin',
  'POST /people/keys': 'admin',
  'POST /people/keys/:id/revoke': 'admin',
  // Making (or remaking) a file's seek thumbnails: a background job on the server's CPU.
  'POST /api/media-file/:id/trickplay': 'admin',
  // Whether DLNA is on, for whom, and which TVs asked lately.
  'GET /api/dlna': 'admin',
  // What plays now, and stopping a play: admins only (listed to say so on purpose).
  'GET /api/sessions/active': 'admin',
  'DELETE /api/sessions/active/:id': 'admin',
  'GET /now-playing': 'admin',
  'POST /now-playing/:id/stop': 'admin',
};

/** The access a registered route needs (its method and URL pattern as Fastify stores them). */
export function routeAccess(method: string, url: string): Access {
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return ROUTE_ACCESS[`${verb} ${url}`] ?? 'admin';
}
