import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tvFamilyOf, type TvFamily } from '../../../src/domain/dlna/tv-family.ts';

describe('tvFamilyOf: which TV asked', () => {
  const cases: [userAgent: string, avClientInfo: string | null, family: TvFamily][] = [
    // Samsung (players.md §2.3; xupnpd's samsung.lua, Jellyfin's profile).
    ['SEC_HHP_[TV] Samsung Q7 Series (55)/1.0 DLNADOC/1.50', null, 'samsung'],
    ['SEC_HHP_[TV]UE40D7000/1.0', null, 'samsung'],
    ['SEC_HHP_ Family TV/1.0', null, 'samsung'],
    ['SamsungWiselinkPro/1.0', null, 'samsung'],
    ['DLNADOC/1.50 SEC_HHP_[TV] UE55NU7400/1.0 UPnP/1.0', null, 'samsung'],
    ['Linux/4.1.10 UPnP/1.0 Samsung SmartTV DLNADOC/1.50', null, 'samsung'],
    // LG (webOS, NetCast).
    [
      'Linux/3.10.19-32.afro.4 UPnP/1.0 LGE_DLNA_SDK/1.6.0 [TV][LG]42LA690S-ZA/04.02.00 DLNADOC/1.50',
      null,
      'lg',
    ],
    ['LG-TV/1.0 UPnP/1.0', null, 'lg'],
    ['Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 webOS.TV-2022', null, 'lg'],
    ['UPnP/1.0 DLNADOC/1.50 webOS/5.0 LG', null, 'lg'],
    ['NetCast/4.0 UPnP/1.0', null, 'lg'],
    // Sony Bravia: by X-AV-Client-Info first, by name in the User-Agent otherwise.
    ['UPnP/1.0', 'av=5.0; cn="Sony Corporation"; mn="BRAVIA KDL-40EX720"; mv="1.7";', 'sony'],
    ['Linux/2.6 UPnP/1.0 Portable SDK', 'av=5.0; cn="Sony Corporation"; mn="KD-55XH9005"; mv="2.0";', 'sony'],
    ['BRAVIA/1.0 UPnP/1.0', null, 'sony'],
    ['SonyDTV115 UPnP/1.0 Sony TV', null, 'sony'],
    // Everyone else: generic.
    ['VLC/3.0.24 LibVLC/3.0.24', null, 'generic'],
    [
      'Kodi/20.2 (X11; Linux x86_64) Debian/12 App_Bitness/64 Version/20.2-(20.2.0)-Git:20230629',
      null,
      'generic',
    ],
    ['Xbox/2.0.17763.3228 UPnP/1.0 Xbox/2.0.17763.3228', null, 'generic'],
    ['Microsoft-Windows/10.0 UPnP/1.0 Windows-Media-Player-DMS/12.0 DLNADOC/1.50', null, 'generic'],
    ['Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0', null, 'generic'],
    ['', null, 'generic'],
    // Words that merely contain the letters are not LG or Samsung.
    ['GLOBAL-Renderer/1.0 (PLGAYER)', null, 'generic'],
    ['ALGOL/1.0', null, 'generic'],
    ['Samsung Internet Browser/1.0', null, 'generic'],
    // An X-AV-Client-Info from someone else does not make a Sony.
    ['VLC/3.0.24', 'av=5.0; cn="Other Corp"; mn="Box"', 'generic'],
  ];
  for (const [userAgent, avClientInfo, family] of cases) {
    it(`${JSON.stringify(userAgent)}${avClientInfo === null ? '' : ` + ${avClientInfo}`} → ${family}`, () => {
      assert.equal(tvFamilyOf(userAgent, avClientInfo), family);
    });
  }
});
