/**
 * The DLNA MediaServer's services, built together (the composition root calls buildDlna): who it is,
 * the control dispatch over the three handlers, GENA subscriptions, icons and the recent TVs, and the
 * status the admin API and page show.
 */
import type { Clock } from '../../adapters/clock.ts';
import type { DlnaServiceName } from '../../domain/dlna/paths.ts';
import { ConnectionManagerService } from './connection-manager.service.ts';
import { contentDirectoryPlaceholder } from './content-directory.placeholder.ts';
import { DlnaControlService } from './dlna-control.service.ts';
import { DlnaIcons } from './dlna-icons.ts';
import type { DlnaMediaService } from './dlna-media.service.ts';
import { DlnaIdentity, type DlnaPeople } from './dlna-identity.ts';
import type { DlnaServiceHandler } from './dlna-ports.ts';
import { EventSubscriptions } from './event-subscriptions.ts';
import { MediaReceiverRegistrarService } from './media-receiver-registrar.service.ts';
import { type RecentTv, RecentTvs } from './recent-tvs.ts';

/** GET /api/dlna (admins) and the people page's DLNA section. */
export interface DlnaStatus {
  enabled: boolean;
  /** REELSHELF_DLNA's name, null when off. */
  person: string | null;
  /** Whether that person exists now (false when off). */
  personFound: boolean;
  /** What to do when on but the person is missing; null otherwise. */
  hint: string | null;
  friendlyName: string;
  udn: string;
  recentTvs: RecentTv[];
}

export interface DlnaDeps {
  person: string | null;
  friendlyName: string;
  udn: string;
  people: DlnaPeople;
  clock: Clock;
  /** reelshelf's version, the description's modelNumber. */
  modelNumber: string;
  /** The ContentDirectory handler over the DLNA person's view; none = every action 501 (tests of the control route). */
  contentDirectory?: (identity: DlnaIdentity) => DlnaServiceHandler;
  /** How files play on TVs and the /dlna/media answers (services/dlna/dlna-wiring.ts builds it). */
  media: DlnaMediaService;
}

export class DlnaServices {
  readonly identity: DlnaIdentity;
  readonly control: DlnaControlService;
  readonly subscriptions: EventSubscriptions;
  readonly icons = new DlnaIcons();
  readonly recentTvs: RecentTvs;
  readonly modelNumber: string;
  readonly media: DlnaMediaService;

  constructor(deps: DlnaDeps) {
    this.media = deps.media;
    this.identity = new DlnaIdentity(deps);
    this.recentTvs = new RecentTvs(deps.clock);
    this.subscriptions = new EventSubscriptions(deps.clock);
    this.modelNumber = deps.modelNumber;
    const handlers: Record<DlnaServiceName, DlnaServiceHandler> = {
      ContentDirectory: deps.contentDirectory?.(this.identity) ?? contentDirectoryPlaceholder,
      ConnectionManager: new ConnectionManagerService(),
      X_MS_MediaReceiverRegistrar: new MediaReceiverRegistrarService(),
    };
    this.control = new DlnaControlService(handlers, this.recentTvs);
  }

  async status(): Promise<DlnaStatus> {
    const resolved = await this.identity.viewer();
    return {
      enabled: this.identity.enabled,
      person: this.identity.personName,
      personFound: resolved.viewer !== null,
      hint: resolved.viewer === null && resolved.reason === 'person_not_found' ? resolved.hint : null,
      friendlyName: this.identity.friendlyName,
      udn: this.identity.udn,
      recentTvs: this.recentTvs.list(),
    };
  }
}
