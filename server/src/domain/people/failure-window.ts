/**
 * The failures of one key (an address, an account) in a fixed window, as every node counts them
 * (services/people/sign-in-guard.ts, docs/cluster.md): the rules of the next count after a failure,
 * and of two copies meeting (a node hears another's count).
 */
export interface FailureWindow {
  count: number;
  startedMs: number;
  /** The addresses that failed on the key in the window (account keys), at most `MAX_ADDRESSES`. */
  addresses: string[];
}

/** Addresses remembered per window: enough to tell "many addresses" (the guard's limit is 1000). */
export const MAX_ADDRESSES = 1000;

/** Whether a window started at `startedMs` still counts at `nowMs`. */
export function windowLive(startedMs: number, nowMs: number, windowMs: number): boolean {
  return nowMs - startedMs < windowMs && startedMs <= nowMs;
}

/**
 * The window after one more failure: the same window one higher (the address added), or a new
 * window of one when there was none or it ended.
 */
export function afterFailure(
  current: FailureWindow | null,
  nowMs: number,
  windowMs: number,
  address: string | null,
): FailureWindow {
  if (current === null || !windowLive(current.startedMs, nowMs, windowMs)) {
    return { count: 1, startedMs: nowMs, addresses: address === null ? [] : [address] };
  }
  const addresses =
    address === null || current.addresses.includes(address) || current.addresses.length >= MAX_ADDRESSES
      ? current.addresses
      : [...current.addresses, address];
  return { count: current.count + 1, startedMs: current.startedMs, addresses };
}

/**
 * A node's copy after hearing another node's count of the key: the later window wins; of the same
 * window, the higher count (messages may arrive out of order), with the heard address added.
 */
export function mergeHeard(
  mine: FailureWindow | null,
  heard: { count: number; startedMs: number; address: string | null },
): FailureWindow {
  const withAddress = (list: string[]) =>
    heard.address === null || list.includes(heard.address) || list.length >= MAX_ADDRESSES
      ? list
      : [...list, heard.address];
  if (mine === null || heard.startedMs > mine.startedMs) {
    return { count: heard.count, startedMs: heard.startedMs, addresses: withAddress([]) };
  }
  if (heard.startedMs < mine.startedMs) return mine;
  return {
    count: Math.max(mine.count, heard.count),
    startedMs: mine.startedMs,
    addresses: withAddress(mine.addresses),
  };
}
