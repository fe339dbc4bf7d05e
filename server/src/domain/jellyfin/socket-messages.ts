/**
 * The messages of Jellyfin's session socket (`/socket`; SessionWebSocketListener.cs,
 * WebSocketConnection.cs): JSON `{MessageType, Data?, MessageId}`, PascalCase. The server says
 * `ForceKeepAlive` (Data: its timeout in seconds) when a socket opens, answers each `KeepAlive`
 * with one, and sends `Playstate` commands ({Command: "Stop"}) to control a play.
 */

/** Jellyfin's WebSocketLostTimeout: a socket silent this long is dropped. */
export const SOCKET_LOST_SECONDS = 60;
/** …and one silent for 75 % of it is asked for a keep-alive (ForceKeepAliveFactor). */
export const SOCKET_NUDGE_SECONDS = SOCKET_LOST_SECONDS * 0.75;

export function forceKeepAliveMessage(messageId: string): string {
  return JSON.stringify({ MessageType: 'ForceKeepAlive', Data: SOCKET_LOST_SECONDS, MessageId: messageId });
}

export function keepAliveMessage(messageId: string): string {
  return JSON.stringify({ MessageType: 'KeepAlive', MessageId: messageId });
}

/** A PlaystateRequest (Stop, Pause, Unpause…) as Jellyfin sends it to a session. */
export function playstateMessage(command: 'Stop', messageId: string): string {
  return JSON.stringify({ MessageType: 'Playstate', Data: { Command: command }, MessageId: messageId });
}

/** The `MessageType` of a client's message, or null for what is not one. */
export function inboundMessageType(text: string): string | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const type = (parsed as { MessageType?: unknown }).MessageType;
    return typeof type === 'string' ? type : null;
  } catch {
    return null;
  }
}
