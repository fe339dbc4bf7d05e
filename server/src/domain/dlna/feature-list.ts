/**
 * Samsung's `X_GetFeatureList` answer (players.md §2.3): the `samsung.com_BASICVIEW` feature names the
 * container the TV lists videos from. Without it some models show no video folder at all.
 */
import { element } from './xml.ts';

export const FEATURE_LIST_NAMESPACE = 'urn:schemas-upnp-org:av:avs';

/** The `FeatureList` value (sent escaped inside the SOAP answer, as `Result` is). */
export function samsungFeatureList(videoContainerId: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<Features xmlns="${FEATURE_LIST_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
    ` xsi:schemaLocation="${FEATURE_LIST_NAMESPACE} http://www.upnp.org/schemas/av/avs.xsd">` +
    '<Feature name="samsung.com_BASICVIEW" version="1">' +
    element('container', null, { id: videoContainerId, type: 'object.item.videoItem' }) +
    '</Feature></Features>'
  );
}
