/**
 * The three services' descriptions (SCPDs, UDA 1.0 §2.3): every action with its arguments and every
 * state variable, in one table per service. The same table renders the SCPD a TV reads and tells the
 * control route which actions exist and which input arguments they need (401 / 402 before any
 * handler runs), so what is announced and what is answered cannot drift apart.
 * ContentDirectory:1 (CDS §2.5), ConnectionManager:1 (CM §2.4), Microsoft's
 * X_MS_MediaReceiverRegistrar:1 (what Xbox and Windows Media Player ask before browsing).
 */
import type { DlnaServiceName } from './paths.ts';
import { element } from './xml.ts';

export interface ScpdArgument {
  name: string;
  direction: 'in' | 'out';
  relatedStateVariable: string;
}

export interface ScpdAction {
  name: string;
  arguments: readonly ScpdArgument[];
}

export interface ScpdStateVariable {
  name: string;
  dataType: 'string' | 'ui4' | 'i4' | 'int' | 'bin.base64';
  sendEvents: boolean;
  allowedValues?: readonly string[];
}

export interface Scpd {
  actions: readonly ScpdAction[];
  stateVariables: readonly ScpdStateVariable[];
}

const input = (name: string, relatedStateVariable: string): ScpdArgument => ({
  name,
  direction: 'in',
  relatedStateVariable,
});
const output = (name: string, relatedStateVariable: string): ScpdArgument => ({
  name,
  direction: 'out',
  relatedStateVariable,
});
const variable = (
  name: string,
  dataType: ScpdStateVariable['dataType'],
  sendEvents = false,
  allowedValues?: readonly string[],
): ScpdStateVariable => ({ name, dataType, sendEvents, ...(allowedValues ? { allowedValues } : {}) });

const LISTING_OUTPUTS = [
  output('Result', 'A_ARG_TYPE_Result'),
  output('NumberReturned', 'A_ARG_TYPE_Count'),
  output('TotalMatches', 'A_ARG_TYPE_Count'),
  output('UpdateID', 'A_ARG_TYPE_UpdateID'),
];

const CONTENT_DIRECTORY: Scpd = {
  actions: [
    { name: 'GetSearchCapabilities', arguments: [output('SearchCaps', 'SearchCapabilities')] },
    { name: 'GetSortCapabilities', arguments: [output('SortCaps', 'SortCapabilities')] },
    { name: 'GetSystemUpdateID', arguments: [output('Id', 'SystemUpdateID')] },
    {
      name: 'Browse',
      arguments: [
        input('ObjectID', 'A_ARG_TYPE_ObjectID'),
        input('BrowseFlag', 'A_ARG_TYPE_BrowseFlag'),
        input('Filter', 'A_ARG_TYPE_Filter'),
        input('StartingIndex', 'A_ARG_TYPE_Index'),
        input('RequestedCount', 'A_ARG_TYPE_Count'),
        input('SortCriteria', 'A_ARG_TYPE_SortCriteria'),
        ...LISTING_OUTPUTS,
      ],
    },
    {
      name: 'Search',
      arguments: [
        input('ContainerID', 'A_ARG_TYPE_ObjectID'),
        input('SearchCriteria', 'A_ARG_TYPE_SearchCriteria'),
        input('Filter', 'A_ARG_TYPE_Filter'),
        input('StartingIndex', 'A_ARG_TYPE_Index'),
        input('RequestedCount', 'A_ARG_TYPE_Count'),
        input('SortCriteria', 'A_ARG_TYPE_SortCriteria'),
        ...LISTING_OUTPUTS,
      ],
    },
    // Samsung's (players.md §2.3): without it some models show no video folder.
    { name: 'X_GetFeatureList', arguments: [output('FeatureList', 'A_ARG_TYPE_Featurelist')] },
  ],
  stateVariables: [
    variable('SearchCapabilities', 'string'),
    variable('SortCapabilities', 'string'),
    variable('SystemUpdateID', 'ui4', true),
    variable('ContainerUpdateIDs', 'string', true),
    variable('A_ARG_TYPE_ObjectID', 'string'),
    variable('A_ARG_TYPE_Result', 'string'),
    variable('A_ARG_TYPE_SearchCriteria', 'string'),
    variable('A_ARG_TYPE_BrowseFlag', 'string', false, ['BrowseMetadata', 'BrowseDirectChildren']),
    variable('A_ARG_TYPE_Filter', 'string'),
    variable('A_ARG_TYPE_SortCriteria', 'string'),
    variable('A_ARG_TYPE_Index', 'ui4'),
    variable('A_ARG_TYPE_Count', 'ui4'),
    variable('A_ARG_TYPE_UpdateID', 'ui4'),
    variable('A_ARG_TYPE_Featurelist', 'string'),
  ],
};

const CONNECTION_MANAGER: Scpd = {
  actions: [
    {
      name: 'GetProtocolInfo',
      arguments: [output('Source', 'SourceProtocolInfo'), output('Sink', 'SinkProtocolInfo')],
    },
    {
      name: 'GetCurrentConnectionIDs',
      arguments: [output('ConnectionIDs', 'CurrentConnectionIDs')],
    },
    {
      name: 'GetCurrentConnectionInfo',
      arguments: [
        input('ConnectionID', 'A_ARG_TYPE_ConnectionID'),
        output('RcsID', 'A_ARG_TYPE_RcsID'),
        output('AVTransportID', 'A_ARG_TYPE_AVTransportID'),
        output('ProtocolInfo', 'A_ARG_TYPE_ProtocolInfo'),
        output('PeerConnectionManager', 'A_ARG_TYPE_ConnectionManager'),
        output('PeerConnectionID', 'A_ARG_TYPE_ConnectionID'),
        output('Direction', 'A_ARG_TYPE_Direction'),
        output('Status', 'A_ARG_TYPE_ConnectionStatus'),
      ],
    },
  ],
  stateVariables: [
    variable('SourceProtocolInfo', 'string', true),
    variable('SinkProtocolInfo', 'string', true),
    variable('CurrentConnectionIDs', 'string', true),
    variable('A_ARG_TYPE_ConnectionStatus', 'string', false, [
      'OK',
      'ContentFormatMismatch',
      'InsufficientBandwidth',
      'UnreliableChannel',
      'Unknown',
    ]),
    variable('A_ARG_TYPE_ConnectionManager', 'string'),
    variable('A_ARG_TYPE_Direction', 'string', false, ['Input', 'Output']),
    variable('A_ARG_TYPE_ProtocolInfo', 'string'),
    variable('A_ARG_TYPE_ConnectionID', 'i4'),
    variable('A_ARG_TYPE_AVTransportID', 'i4'),
    variable('A_ARG_TYPE_RcsID', 'i4'),
  ],
};

const MEDIA_RECEIVER_REGISTRAR: Scpd = {
  actions: [
    {
      name: 'IsAuthorized',
      arguments: [input('DeviceID', 'A_ARG_TYPE_DeviceID'), output('Result', 'A_ARG_TYPE_Result')],
    },
    {
      name: 'IsValidated',
      arguments: [input('DeviceID', 'A_ARG_TYPE_DeviceID'), output('Result', 'A_ARG_TYPE_Result')],
    },
    {
      name: 'RegisterDevice',
      arguments: [
        input('RegistrationReqMsg', 'A_ARG_TYPE_RegistrationReqMsg'),
        output('RegistrationRespMsg', 'A_ARG_TYPE_RegistrationRespMsg'),
      ],
    },
  ],
  stateVariables: [
    variable('A_ARG_TYPE_DeviceID', 'string'),
    variable('A_ARG_TYPE_Result', 'int'),
    variable('A_ARG_TYPE_RegistrationReqMsg', 'bin.base64'),
    variable('A_ARG_TYPE_RegistrationRespMsg', 'bin.base64'),
    variable('AuthorizationGrantedUpdateID', 'ui4', true),
    variable('AuthorizationDeniedUpdateID', 'ui4', true),
    variable('ValidationSucceededUpdateID', 'ui4', true),
    variable('ValidationRevokedUpdateID', 'ui4', true),
  ],
};

export const SCPDS: Readonly<Record<DlnaServiceName, Scpd>> = {
  ContentDirectory: CONTENT_DIRECTORY,
  ConnectionManager: CONNECTION_MANAGER,
  X_MS_MediaReceiverRegistrar: MEDIA_RECEIVER_REGISTRAR,
};

/** The action of a service by name, or null when the SCPD does not list it (→ 401 Invalid Action). */
export function scpdAction(service: DlnaServiceName, action: string): ScpdAction | null {
  return SCPDS[service].actions.find((a) => a.name === action) ?? null;
}

/** The input arguments an action needs, in the SCPD's order. */
export function inputArguments(action: ScpdAction): string[] {
  return action.arguments.filter((a) => a.direction === 'in').map((a) => a.name);
}

/** The SCPD document of a service (`urn:schemas-upnp-org:service-1-0`). */
export function renderScpd(service: DlnaServiceName): string {
  const scpd = SCPDS[service];
  const actions = scpd.actions
    .map(
      (action) =>
        `<action>${element('name', action.name)}<argumentList>` +
        action.arguments
          .map(
            (arg) =>
              `<argument>${element('name', arg.name)}${element('direction', arg.direction)}` +
              `${element('relatedStateVariable', arg.relatedStateVariable)}</argument>`,
          )
          .join('') +
        '</argumentList></action>',
    )
    .join('');
  const variables = scpd.stateVariables
    .map(
      (v) =>
        `<stateVariable sendEvents="${v.sendEvents ? 'yes' : 'no'}">${element('name', v.name)}` +
        element('dataType', v.dataType) +
        (v.allowedValues === undefined
          ? ''
          : `<allowedValueList>${v.allowedValues.map((value) => element('allowedValue', value)).join('')}</allowedValueList>`) +
        '</stateVariable>',
    )
    .join('');
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<scpd xmlns="urn:schemas-upnp-org:service-1-0"><specVersion><major>1</major><minor>0</minor></specVersion>' +
    `<actionList>${actions}</actionList><serviceStateTable>${variables}</serviceStateTable></scpd>`
  );
}
