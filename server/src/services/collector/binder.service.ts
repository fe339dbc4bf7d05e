import type { BinderSlotCopy, BinderSummary, BinderView } from '@reelshelf/contract';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import { artworkUrl } from '../../domain/artwork-url.ts';
import { DEFAULT_BINDER_CAPACITY, layOutBinder, type LaidSlot } from '../../domain/binders.ts';
import type { CertificationFilter } from '../../domain/people/visibility.ts';
import { AppError } from '../../errors.ts';
import type { BinderRepository, CopyPlaceRow } from '../../repositories/binder.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';

// The shapes of the API (contract/src/api.ts), one definition: the pages draw the same views.
export type { BinderSummary, BinderView };
export type SlotCopy = BinderSlotCopy;

export interface CopyPlace {
  id: number;
  binder: string;
  slot: string;
}

type BinderReads = Pick<BinderRepository, 'list' | 'withSlots'>;
type BinderWrites = Pick<
  BinderRepository,
  'byName' | 'create' | 'update' | 'lockCopies' | 'holder' | 'place' | 'nameTaken' | 'list'
>;

export interface BinderDeps {
  reads: BinderReads;
  /** Moves, swaps and renames: one transaction each, one at a time cluster-wide. */
  store: UnitOfWork<{ binders: BinderWrites }>;
  clock: Clock;
}

/**
 * Binders as their owner sees them (issue 27 item 1, docs/collector.md): pages of slots, moves,
 * swaps and renames. Reads go through the viewer's visibility filter: a disc whose film the viewer
 * may not see leaves its slot empty to them. Writes are the admin's (http/route-access.ts).
 */
export class BinderService {
  constructor(private readonly deps: BinderDeps) {}

  async list(filter: CertificationFilter | null): Promise<{ items: BinderSummary[] }> {
    return { items: await this.deps.reads.list(filter) };
  }

  async get(name: string, filter: CertificationFilter | null): Promise<BinderView> {
    return (await this.page(name, filter)).view;
  }

  /**
   * The binder and the poster URLs (the artwork route's, versioned) of the films it shows, by movie
   * id: what `/binders/{name}` draws.
   */
  async page(
    name: string,
    filter: CertificationFilter | null,
  ): Promise<{ view: BinderView; posters: Map<number, string> }> {
    const found = await this.deps.reads.withSlots(name, filter);
    if (found === undefined) throw noBinder(name);
    const { binder, slots: rows } = found;
    const posters = new Map<number, string>();
    const held: LaidSlot<SlotCopy>[] = rows.map((r) => {
      if (r.visible !== 1) return { slot: r.slot, copy: null };
      const poster = r.artwork === null ? null : artworkUrl(r.artwork, 'poster');
      if (poster !== null) posters.set(r.movie_id, poster);
      return {
        slot: r.slot,
        copy: {
          id: r.id,
          movie_id: r.movie_id,
          title: r.title,
          format: r.format,
          edition: r.edition,
          on_loan: r.on_loan === 1,
        },
      };
    });
    return {
      view: {
        name: binder.name,
        slots_per_page: binder.slots_per_page,
        pages: layOutBinder(held, binder.slots_per_page),
      },
      posters,
    };
  }

  /** Renames the binder and/or sets its slots per page; 409 `binder_exists` when the name is taken. */
  async update(name: string, changes: { name?: string; slots_per_page?: number }): Promise<BinderSummary> {
    const newName = changes.name?.trim();
    if (newName === '') throw new AppError('validation_failed', { message: 'A binder needs a name.' });
    return this.deps.store.transaction(async ({ binders }) => {
      const binder = await binders.byName(name);
      if (binder === undefined) throw noBinder(name);
      if (newName !== undefined && (await binders.nameTaken(newName, binder.id))) throw nameTaken(newName);
      await binders.update(binder.id, {
        ...(newName === undefined ? {} : { name: newName }),
        ...(changes.slots_per_page === undefined ? {} : { slots_per_page: changes.slots_per_page }),
      });
      const after = (await binders.list(null)).find((b) => b.name === (newName ?? binder.name));
      if (after === undefined) throw noBinder(name);
      return after;
    });
  }

  /**
   * Puts the copy in the binder's slot (a binder of that name is created when there is none). A slot
   * held by another copy is a 409 `slot_taken` naming it, and nothing changes (the transaction,
   * with any binder it created, rolls back).
   */
  async move(copyId: number, binderName: string, slot: string): Promise<CopyPlace> {
    const name = binderName.trim();
    const at = slot.trim();
    if (name === '' || at === '') {
      throw new AppError('validation_failed', { message: 'A move names a binder and a slot.' });
    }
    return this.deps.store.transaction(async ({ binders }) => {
      const [copy] = await binders.lockCopies([copyId]);
      if (copy === undefined) throw noCopy(copyId);
      const target =
        (await binders.byName(name)) ??
        (await binders.create(name, DEFAULT_BINDER_CAPACITY, isoNow(this.deps.clock)));
      const holder = await binders.holder(target.id, at);
      if (holder !== undefined && holder.id !== copy.id) throw slotTaken(target.name, at, holder);
      await binders.place(copy.id, target, at);
      return { id: copy.id, binder: target.name, slot: at };
    });
  }

  /** Swaps the places of two copies in one transaction (both rows locked first, in id order). */
  async swap(a: number, b: number): Promise<{ items: CopyPlace[] }> {
    if (a === b) throw new AppError('validation_failed', { message: 'A swap needs two different copies.' });
    return this.deps.store.transaction(async ({ binders }) => {
      const rows = await binders.lockCopies([a, b]);
      const first = rows.find((r) => r.id === a);
      const second = rows.find((r) => r.id === b);
      if (first === undefined) throw noCopy(a);
      if (second === undefined) throw noCopy(b);
      // (binder_id, slot) is unique and not deferrable: free the first place before filling it.
      const placeOf = (r: CopyPlaceRow) =>
        r.binder_id === null ? null : { id: r.binder_id, name: r.binder ?? '' };
      await binders.place(first.id, null, null);
      await binders.place(second.id, placeOf(first), first.slot);
      await binders.place(first.id, placeOf(second), second.slot);
      return {
        items: [
          { id: first.id, binder: second.binder ?? '', slot: second.slot ?? '' },
          { id: second.id, binder: first.binder ?? '', slot: first.slot ?? '' },
        ],
      };
    });
  }
}

function noBinder(name: string): AppError {
  return new AppError('not_found', { message: `There is no binder named ${name}.` });
}

function noCopy(id: number): AppError {
  return new AppError('not_found', { message: `No physical copy with id ${id}.` });
}

function nameTaken(name: string): AppError {
  return new AppError('binder_exists', {
    message: `There is already a binder named ${name}.`,
    hint: 'Choose another name, or move its discs first.',
  });
}

function slotTaken(
  binder: string,
  slot: string,
  holder: { id: number | null; title: string | null },
): AppError {
  const what = holder.id === null ? 'another disc' : `${holder.title ?? 'a disc'} (copy ${holder.id})`;
  return new AppError('slot_taken', {
    message: `Binder ${binder} slot ${slot} already holds ${what}.`,
    hint:
      holder.id === null
        ? 'Pick a free slot.'
        : `Pick a free slot, or swap the two discs (POST /api/physical-copies/swap).`,
    extra: holder.id === null ? {} : { holder: { copy_id: holder.id, title: holder.title } },
  });
}
