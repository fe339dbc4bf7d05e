import { AppError } from '../errors.ts';

/** Device kinds a client may name (INTERFACE.md "Devices and playback"); `web` when absent. */
export const KNOWN_DEVICES = ['web', 'safari', 'tv', 'androidtv', 'roku', 'full'] as const;

/** Resolves the `device` query parameter to a known device id, or refuses it with the list. */
export class DeviceService {
  constructor(private readonly known: readonly string[] = KNOWN_DEVICES) {}

  resolve(device: string | undefined): string {
    if (device === undefined || device === '') return 'web';
    if (this.known.includes(device)) return device;
    throw new AppError('unknown_device', {
      message: `Unknown device "${device.slice(0, 64)}".`,
      hint: `Use one of: ${this.known.join(', ')}.`,
      extra: { known_devices: [...this.known] },
    });
  }
}
