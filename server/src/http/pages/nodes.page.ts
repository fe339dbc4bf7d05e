import type { NodeView } from '@reelshelf/contract';
import { type Html, html } from './html.ts';

/** "scan 1, artifact 2 · conversions 1/2": what a node is doing, in a line. */
function loadLine(load: NodeView['load']): string {
  const jobs = Object.entries(load.jobs)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return `${jobs === '' ? 'no jobs' : jobs} · conversions ${load.conversions.in_use}/${load.conversions.limit}`;
}

/**
 * The people page's Nodes section (admins): the server processes sharing this library's database,
 * their role, machine, load and last heartbeat (docs/cluster.md "Nodes").
 */
export function nodesSection(nodes: NodeView[]): Html {
  return html`<h2 id="nodes">Nodes</h2>
    <table class="nodes">
      <thead>
        <tr>
          <th scope="col">Node</th>
          <th scope="col">Role</th>
          <th scope="col">Host (pid)</th>
          <th scope="col">Load</th>
          <th scope="col">Last heartbeat</th>
        </tr>
      </thead>
      <tbody>
        ${nodes.map(
          (n) =>
            html`<tr>
              <th scope="row">${n.id}${n.self ? ' (this one)' : ''}</th>
              <td>${n.role}</td>
              <td>${n.host ?? ''} (${n.pid === null ? '' : String(n.pid)})</td>
              <td>${loadLine(n.load)}</td>
              <td>${n.heartbeat_at} (${String(Math.round(n.heartbeat_age_ms / 100) / 10)} s ago)</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}
