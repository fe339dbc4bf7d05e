import type { NodeView } from '@reelshelf/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ROLES } from '../../domain/people/access.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import type { ApiKeyView, CreatedKey } from '../../services/people/api-key.service.ts';
import type { UserView } from '../../services/people/user.service.ts';
import { principalOf } from '../principal.ts';
import type { SessionCookies } from '../plugins/session.ts';
import { type Html, html, raw } from './html.ts';
import { dlnaSection } from './dlna.page.ts';
import { nodesSection } from './nodes.page.ts';
import type { DlnaStatus } from '../../services/dlna/dlna-services.ts';
import { csrfInput, formField as field, positiveId } from './forms.ts';

/** What the people pages need of the page renderer (Pages in pages.routes.ts). */
export interface PageRenderer {
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    options: { status?: number; title: string; current?: string; body: Html },
  ): FastifyReply;
  csrf(request: FastifyRequest): string;
}

type PeopleServices = Pick<Services, 'users' | 'sessions' | 'keys' | 'dlna' | 'nodes'>;

/** An AppError a person can act on (4xx) as a sentence; anything else is rethrown. */
function refusal(err: unknown): { message: string; status: number } {
  if (!(err instanceof AppError) || err.status >= 500) throw err;
  return { message: err.hint === undefined ? err.message : `${err.message} ${err.hint}`, status: err.status };
}

/** "Who's watching?": the household's profiles; a click (and a PIN where set) switches the session. */
function whoPage(people: UserView[], current: number, csrf: string, error: string | null): Html {
  return html`<h1>Who’s watching?</h1>
    ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
    <ul class="profiles">
      ${people.map(
        (p) =>
          html`<li class="profile">
            <form method="post" action="/who/switch" class="stacked">
              ${csrfInput(csrf)}
              <input type="hidden" name="user" value="${p.id}" />
              <p class="profile-name">
                <strong>${p.name}</strong>
                <span class="help">${p.role}${p.id === current ? ' · now' : ''}</span>
              </p>
              ${
                p.role === 'admin'
                  ? html`<p class="help">Signs in with a password.</p>`
                  : html`${
                        p.has_pin
                          ? html`<label for="pin-${p.id}">PIN</label>
                              <input
                                id="pin-${p.id}"
                                name="pin"
                                type="password"
                                inputmode="numeric"
                                pattern="[0-9]{4}"
                                maxlength="4"
                                autocomplete="off"
                              />`
                          : null
                      }
                      <button type="submit" ${p.id === current ? raw('disabled') : null}>
                        Switch to ${p.name}
                      </button>`
              }
            </form>
          </li>`,
      )}
    </ul>`;
}

function roleSelect(name: string, selected: string): Html {
  return html`<select name="${name}">
    ${ROLES.map((r) => html`<option value="${r}" ${r === selected ? raw('selected') : null}>${r}</option>`)}
  </select>`;
}

interface PeoplePageData {
  people: UserView[];
  keys: ApiKeyView[];
  csrf: string;
  error: string | null;
  created: CreatedKey | null;
  notice: string | null;
  dlna: DlnaStatus;
  nodes: NodeView[];
}

/** The admin's page: people (add, change, remove, sign out everywhere), keys (create, revoke), DLNA, nodes. */
function peoplePage(d: PeoplePageData): Html {
  return html`<h1>People</h1>
    ${d.error === null ? null : html`<p class="error" role="alert">${d.error}</p>`}
    ${d.notice === null ? null : html`<p class="notice" role="status">${d.notice}</p>`}
    ${
      d.created === null
        ? null
        : html`<div class="new-key" role="status">
            <p>
              The key <strong>${d.created.name}</strong> (${d.created.scope}, for ${d.created.owner}) is shown
              this once; copy it now:
            </p>
            <p><code class="key" id="new-key">${d.created.key}</code></p>
          </div>`
    }
    <table class="people">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Role, limit</th>
          <th scope="col">Change</th>
          <th scope="col">Other</th>
        </tr>
      </thead>
      <tbody>
        ${d.people.map(
          (p) =>
            html`<tr>
              <th scope="row">${p.name}</th>
              <td>
                ${p.role}${p.max_certification === null ? '' : ` · up to ${p.max_certification}`}${
                  p.role !== 'admin' && !p.allow_unrated ? ' · no unrated' : ''
                }${p.has_pin ? ' · PIN' : ''}
              </td>
              <td>
                <form method="post" action="/people/users/${p.id}" class="inline">
                  ${csrfInput(d.csrf)} ${roleSelect('role', p.role)}
                  <input
                    name="max_certification"
                    value="${p.max_certification ?? ''}"
                    placeholder="limit (PG)"
                    size="6"
                    aria-label="Maximum certification of ${p.name}"
                  />
                  <input type="hidden" name="allow_unrated_shown" value="1" />
                  <label
                    ><input
                      type="checkbox"
                      name="allow_unrated"
                      value="1"
                      ${p.allow_unrated ? raw('checked') : null}
                    />
                    unrated</label
                  >
                  <input
                    name="password"
                    type="password"
                    placeholder="new password"
                    autocomplete="new-password"
                    aria-label="New password of ${p.name}"
                  />
                  <button type="submit">Save</button>
                </form>
              </td>
              <td>
                <form method="post" action="/people/users/${p.id}/sign-out" class="inline">
                  ${csrfInput(d.csrf)}<button type="submit" class="button-secondary">
                    Sign out everywhere
                  </button>
                </form>
                <form method="post" action="/people/users/${p.id}/remove" class="inline">
                  ${csrfInput(d.csrf)}<button type="submit" class="button-secondary">Remove ${p.name}</button>
                </form>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Add a person</h2>
    <form method="post" action="/people/users" class="stacked">
      ${csrfInput(d.csrf)}
      <div class="field">
        <label for="new-name">Name</label><input id="new-name" name="name" required maxlength="64" />
      </div>
      <div class="field">
        <label for="new-password">Password (10 characters or more)</label>
        <input
          id="new-password"
          name="password"
          type="password"
          required
          minlength="10"
          autocomplete="new-password"
        />
      </div>
      <div class="field"><label for="new-role">Role</label>${roleSelect('role', 'member')}</div>
      <div class="field">
        <label for="new-limit">Maximum certification (a child needs one)</label>
        <input id="new-limit" name="max_certification" placeholder="PG" maxlength="20" />
      </div>
      <button type="submit">Add</button>
    </form>
    <h2>Keys</h2>
    <table class="keys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Owner</th>
          <th scope="col">Scope</th>
          <th scope="col">Last used</th>
          <th scope="col"></th>
        </tr>
      </thead>
      <tbody>
        ${d.keys.map(
          (k) =>
            html`<tr>
              <th scope="row">${k.name}</th>
              <td>${k.owner}</td>
              <td>${k.scope}</td>
              <td>
                ${k.last_used_at === null ? 'never' : `${k.last_used_at} from ${k.last_used_address ?? '?'}`}
              </td>
              <td>
                ${
                  k.revoked_at !== null
                    ? html`revoked ${k.revoked_at}`
                    : html`<form method="post" action="/people/keys/${k.id}/revoke" class="inline">
                        ${csrfInput(d.csrf)}<button type="submit" class="button-secondary">Revoke</button>
                      </form>`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Create a key</h2>
    <form method="post" action="/people/keys" class="stacked">
      ${csrfInput(d.csrf)}
      <div class="field">
        <label for="key-name">Name (the device or script)</label
        ><input id="key-name" name="name" required maxlength="64" />
      </div>
      <div class="field">
        <label for="key-scope">Scope</label>
        <select id="key-scope" name="scope">
          <option value="playback">playback (read and play)</option>
          <option value="read">read (GET only)</option>
          <option value="admin">admin (an admin's only)</option>
        </select>
      </div>
      <div class="field">
        <label for="key-user">For</label>
        <select id="key-user" name="user">
          ${d.people.map((p) => html`<option value="${p.id}">${p.name}</option>`)}
        </select>
      </div>
      <button type="submit">Create key</button>
    </form>
    ${dlnaSection(d.dlna)} ${nodesSection(d.nodes)}`;
}

/** /who (any signed-in person) and /people (admins), as plain forms with the session's CSRF field. */
export function registerPeoplePages(
  app: FastifyInstance,
  pages: PageRenderer,
  services: PeopleServices,
  cookies: SessionCookies,
): void {
  const who = async (
    request: FastifyRequest,
    reply: FastifyReply,
    error: { message: string; status: number } | null,
  ) =>
    pages.page(request, reply, {
      status: error?.status ?? 200,
      title: 'Who’s watching?',
      current: 'who',
      body: whoPage(
        await services.users.list(),
        principalOf(request).userId,
        pages.csrf(request),
        error?.message ?? null,
      ),
    });

  app.get('/who', (request, reply) => who(request, reply, null));

  app.post('/who/switch', async (request, reply) => {
    const id = positiveId(field(request.body, 'user'));
    const pin = field(request.body, 'pin');
    try {
      if (id === null) throw new AppError('not_found', { message: 'There is no such person.' });
      // The session is the same; its CSRF token too (it is bound to the session, not the person).
      if (cookies.authenticatedBy(request) === null) {
        throw new AppError('forbidden', { message: 'Only a signed-in browser switches person.' });
      }
      await services.sessions.switchTo(principalOf(request), id, pin === '' ? null : pin, request.ip);
    } catch (err) {
      const refused = refusal(err);
      if (err instanceof AppError) for (const [h, v] of Object.entries(err.headers)) reply.header(h, v);
      return who(request, reply, refused);
    }
    return reply.redirect('/library', 303);
  });

  const people = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; error?: string; created?: CreatedKey; notice?: string } = {},
  ) => {
    const caller = principalOf(request);
    return pages.page(request, reply, {
      status: extra.status ?? 200,
      title: 'People',
      current: 'people',
      body: peoplePage({
        people: await services.users.list(),
        keys: await services.keys.list({ userId: caller.userId, role: caller.role }),
        csrf: pages.csrf(request),
        error: extra.error ?? null,
        created: extra.created ?? null,
        notice: extra.notice ?? null,
        dlna: await services.dlna.status(),
        nodes: await services.nodes.nodes(true),
      }),
    });
  };

  /** Runs a form's action; a refusal shows the page again with the reason (and its status). */
  const act = async (
    request: FastifyRequest,
    reply: FastifyReply,
    action: () => Promise<{ created?: CreatedKey; notice?: string } | void>,
  ) => {
    try {
      const result = await action();
      if (result === undefined) return reply.redirect('/people', 303);
      return people(request, reply, result);
    } catch (err) {
      const refused = refusal(err);
      return people(request, reply, { status: refused.status, error: refused.message });
    }
  };

  const idOf = (request: FastifyRequest<{ Params: { id: string } }>) => {
    const id = positiveId(request.params.id);
    if (id === null) throw new AppError('not_found', { message: 'There is no such entry.' });
    return id;
  };

  app.get('/people', (request, reply) => people(request, reply));

  app.post('/people/users', (request, reply) =>
    act(request, reply, async () => {
      const max = field(request.body, 'max_certification').trim();
      const created = await services.users.create({
        name: field(request.body, 'name'),
        password: field(request.body, 'password'),
        role: field(request.body, 'role'),
        ...(max === '' ? {} : { max_certification: max }),
      });
      return { notice: `${created.name} was added.` };
    }),
  );

  app.post<{ Params: { id: string } }>('/people/users/:id', (request, reply) =>
    act(request, reply, async () => {
      const max = field(request.body, 'max_certification').trim();
      const password = field(request.body, 'password');
      const updated = await services.users.update(idOf(request), {
        role: field(request.body, 'role'),
        max_certification: max === '' ? null : max,
        ...(field(request.body, 'allow_unrated_shown') === ''
          ? {}
          : { allow_unrated: field(request.body, 'allow_unrated') === '1' }),
        ...(password === '' ? {} : { password }),
      });
      return {
        notice: `${updated.name} was saved${password === '' ? '' : ' (signed out everywhere: new password)'}.`,
      };
    }),
  );

  app.post<{ Params: { id: string } }>('/people/users/:id/remove', (request, reply) =>
    act(request, reply, async () => {
      await services.users.remove(idOf(request));
    }),
  );

  app.post<{ Params: { id: string } }>('/people/users/:id/sign-out', (request, reply) =>
    act(request, reply, async () => {
      const id = idOf(request);
      const person = await services.users.get(id);
      const revoked = await services.sessions.signOutEverywhere(id);
      return { notice: `${person.name} was signed out of ${revoked} session(s).` };
    }),
  );

  app.post('/people/keys', (request, reply) =>
    act(request, reply, async () => {
      const caller = principalOf(request);
      const user = positiveId(field(request.body, 'user'));
      const created = await services.keys.create(
        { userId: caller.userId, role: caller.role },
        {
          name: field(request.body, 'name'),
          scope: field(request.body, 'scope'),
          ...(user === null ? {} : { user }),
        },
      );
      return { created };
    }),
  );

  app.post<{ Params: { id: string } }>('/people/keys/:id/revoke', (request, reply) =>
    act(request, reply, async () => {
      const caller = principalOf(request);
      await services.keys.revoke({ userId: caller.userId, role: caller.role }, idOf(request));
    }),
  );
}
