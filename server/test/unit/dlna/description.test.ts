import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { iconOf, isDlnaUdn, renderDeviceDescription } from '../../../src/domain/dlna/description.ts';
import { DLNA_SERVICES, type DlnaServiceName } from '../../../src/domain/dlna/paths.ts';
import { inputArguments, renderScpd, scpdAction, SCPDS } from '../../../src/domain/dlna/scpd.ts';

// Read back as a TV would: every list an array, values as text.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) =>
    ['icon', 'service', 'action', 'argument', 'stateVariable', 'allowedValue'].includes(name),
});
type Node = Record<string, unknown>;
const UDN = 'uuid:0f8fad5b-d9cb-469f-a165-70867728950e';

function read(xml: string): Node {
  assert.equal(XMLValidator.validate(xml), true, 'well-formed');
  assert.ok(xml.startsWith('<?xml version="1.0" encoding="utf-8"?>'));
  return parser.parse(xml) as Node;
}

describe('renderDeviceDescription', () => {
  const doc = read(
    renderDeviceDescription({ friendlyName: 'Films & <more>', udn: UDN, modelNumber: '1.0.3' }),
  );
  const root = doc.root as Node;
  const device = root.device as Node;
  it('is a DLNA 1.50 MediaServer:1 in the UPnP device namespace', () => {
    assert.equal(root['@xmlns'], 'urn:schemas-upnp-org:device-1-0');
    assert.equal(root['@xmlns:dlna'], 'urn:schemas-dlna-org:device-1-0');
    assert.deepEqual(root.specVersion, { major: '1', minor: '0' });
    assert.equal(device.deviceType, 'urn:schemas-upnp-org:device:MediaServer:1');
    assert.equal(device['dlna:X_DLNADOC'], 'DMS-1.50');
    assert.equal(device.friendlyName, 'Films & <more>', 'escaped once, read back as written');
    assert.equal(device.manufacturer, 'reelshelf');
    assert.equal(device.modelName, 'reelshelf');
    assert.equal(device.modelNumber, '1.0.3');
    assert.equal(device.UDN, UDN);
  });
  it('lists 48 and 120 px icons in PNG and JPEG, each at a path the icon route knows', () => {
    const icons = (device.iconList as Node).icon as Node[];
    assert.deepEqual(
      icons.map((i) => [i.mimetype, i.width, i.height, i.depth, i.url]),
      [
        ['image/png', '48', '48', '24', '/dlna/icon-48.png'],
        ['image/jpeg', '48', '48', '24', '/dlna/icon-48.jpg'],
        ['image/png', '120', '120', '24', '/dlna/icon-120.png'],
        ['image/jpeg', '120', '120', '24', '/dlna/icon-120.jpg'],
      ],
    );
    for (const icon of icons) assert.notEqual(iconOf(String(icon.url)), null);
    assert.deepEqual(iconOf('/dlna/icon-120.jpg'), { size: 120, type: 'jpeg' });
    assert.equal(iconOf('/dlna/icon-240.png'), null);
  });
  it('lists the three services with their SCPD, control and event URLs', () => {
    const services = (device.serviceList as Node).service as Node[];
    assert.deepEqual(
      services.map((s) => [s.serviceType, s.serviceId, s.SCPDURL, s.controlURL, s.eventSubURL]),
      [
        [
          'urn:schemas-upnp-org:service:ContentDirectory:1',
          'urn:upnp-org:serviceId:ContentDirectory',
          '/dlna/ContentDirectory.xml',
          '/dlna/control/ContentDirectory',
          '/dlna/events/ContentDirectory',
        ],
        [
          'urn:schemas-upnp-org:service:ConnectionManager:1',
          'urn:upnp-org:serviceId:ConnectionManager',
          '/dlna/ConnectionManager.xml',
          '/dlna/control/ConnectionManager',
          '/dlna/events/ConnectionManager',
        ],
        [
          'urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1',
          'urn:microsoft.com:serviceId:X_MS_MediaReceiverRegistrar',
          '/dlna/X_MS_MediaReceiverRegistrar.xml',
          '/dlna/control/X_MS_MediaReceiverRegistrar',
          '/dlna/events/X_MS_MediaReceiverRegistrar',
        ],
      ],
    );
  });
});

describe('isDlnaUdn', () => {
  const cases: [string, boolean][] = [
    [UDN, true],
    [UDN.toUpperCase(), false],
    [UDN.slice(5), false],
    ['uuid:0f8fad5b-d9cb-169f-a165-70867728950e', false],
    [`${UDN}\n`, false],
    ['', false],
  ];
  for (const [text, expected] of cases)
    it(JSON.stringify(text), () => assert.equal(isDlnaUdn(text), expected));
});

describe('renderScpd', () => {
  const expected: Record<DlnaServiceName, Record<string, [string[], string[]]>> = {
    ContentDirectory: {
      GetSearchCapabilities: [[], ['SearchCaps']],
      GetSortCapabilities: [[], ['SortCaps']],
      GetSystemUpdateID: [[], ['Id']],
      Browse: [
        ['ObjectID', 'BrowseFlag', 'Filter', 'StartingIndex', 'RequestedCount', 'SortCriteria'],
        ['Result', 'NumberReturned', 'TotalMatches', 'UpdateID'],
      ],
      Search: [
        ['ContainerID', 'SearchCriteria', 'Filter', 'StartingIndex', 'RequestedCount', 'SortCriteria'],
        ['Result', 'NumberReturned', 'TotalMatches', 'UpdateID'],
      ],
      X_GetFeatureList: [[], ['FeatureList']],
    },
    ConnectionManager: {
      GetProtocolInfo: [[], ['Source', 'Sink']],
      GetCurrentConnectionIDs: [[], ['ConnectionIDs']],
      GetCurrentConnectionInfo: [
        ['ConnectionID'],
        [
          'RcsID',
          'AVTransportID',
          'ProtocolInfo',
          'PeerConnectionManager',
          'PeerConnectionID',
          'Direction',
          'Status',
        ],
      ],
    },
    X_MS_MediaReceiverRegistrar: {
      IsAuthorized: [['DeviceID'], ['Result']],
      IsValidated: [['DeviceID'], ['Result']],
      RegisterDevice: [['RegistrationReqMsg'], ['RegistrationRespMsg']],
    },
  };
  for (const service of DLNA_SERVICES) {
    it(`${service}: every action with its arguments, each bound to a declared state variable`, () => {
      const scpd = read(renderScpd(service)).scpd as Node;
      assert.equal(scpd['@xmlns'], 'urn:schemas-upnp-org:service-1-0');
      const variables = ((scpd.serviceStateTable as Node).stateVariable as Node[]).map((v) => String(v.name));
      assert.equal(new Set(variables).size, variables.length, 'no state variable twice');
      const actions = (scpd.actionList as Node).action as Node[];
      const seen: Record<string, [string[], string[]]> = {};
      for (const action of actions) {
        const args = (action.argumentList as Node).argument as Node[];
        for (const arg of args) {
          assert.ok(
            variables.includes(String(arg.relatedStateVariable)),
            `${String(arg.relatedStateVariable)} declared`,
          );
        }
        const names = (direction: string) =>
          args.filter((a) => a.direction === direction).map((a) => String(a.name));
        seen[String(action.name)] = [names('in'), names('out')];
      }
      assert.deepEqual(seen, expected[service]);
    });
  }
  it('CDS: SystemUpdateID is evented, BrowseFlag lists its two values', () => {
    const variables = ((read(renderScpd('ContentDirectory')).scpd as Node).serviceStateTable as Node)
      .stateVariable as Node[];
    const byName = new Map(variables.map((v) => [String(v.name), v]));
    assert.equal(byName.get('SystemUpdateID')?.['@sendEvents'], 'yes');
    assert.equal(byName.get('SystemUpdateID')?.dataType, 'ui4');
    assert.deepEqual((byName.get('A_ARG_TYPE_BrowseFlag')?.allowedValueList as Node).allowedValue, [
      'BrowseMetadata',
      'BrowseDirectChildren',
    ]);
  });
  it('scpdAction and inputArguments: what the control route checks before a handler runs', () => {
    assert.equal(scpdAction('ContentDirectory', 'Delete'), null);
    assert.equal(scpdAction('ConnectionManager', 'Browse'), null, 'actions belong to their service');
    const browse = scpdAction('ContentDirectory', 'Browse');
    assert.ok(browse);
    assert.deepEqual(inputArguments(browse), expected.ContentDirectory.Browse?.[0]);
    assert.equal(SCPDS.X_MS_MediaReceiverRegistrar.actions.length, 3);
  });
});
