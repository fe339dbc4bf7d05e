/**
 * A change of state the nodes share besides the listing (migration 0016's triggers: ready artifacts,
 * playback-token stops, stop requests of plays, failed sign-ins): `topic` names it, `data` is the
 * row as the trigger sent it. `{ topic: '*' }` when messages may have been missed (the listener
 * reconnected): whoever keeps a copy reads it again (docs/cluster.md "Shared node state").
 */
export type StateMessage = { topic: string; data: Record<string, unknown> } | { topic: '*' };

/** How a service follows them (the change feed's `subscribeState`); returns the unsubscribe. */
export type SubscribeState = (listener: (message: StateMessage) => void) => () => void;
