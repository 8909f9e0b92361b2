/**
 * Which due deliveries an accounts process starts, so that one partner's slow receivers cannot
 * hold another's deliveries back. Each attempt takes a slot for as long as it runs (at most the
 * delivery timeout); the slots are capped three ways: in all (`BURROW_WEBHOOK_CONCURRENCY`), per
 * partner (`..._PER_PARTNER`) and per endpoint (`..._PER_ENDPOINT`). A partner whose endpoints
 * accept and never answer fills its own slots only, never the others'. When slots are scarce the
 * next one goes round-robin: to the partner with the fewest attempts in flight, then the one
 * served least recently; within a partner, to the endpoint with the fewest in flight, each in due
 * order. Per process: replicas each have their own slots (and leases keep them from sending the
 * same attempt).
 */

export interface SlotLimits {
  total: number;
  perPartner: number;
  perEndpoint: number;
}

export interface DueDelivery {
  id: string;
  endpointId: string;
  partnerId: string;
  /** unix milliseconds */
  due: number;
}

/** Partners remembered for round-robin order, at most (then forgotten: all equal again). */
const SERVED_LIMIT = 10_000;

export class DeliverySlots {
  private readonly byPartner = new Map<string, number>();
  private readonly byEndpoint = new Map<string, number>();
  private held = 0;
  /** when each partner last got a slot (a counter), for round-robin */
  private readonly served = new Map<string, number>();
  private turn = 0;

  constructor(readonly limits: SlotLimits) {}

  /** Slots not taken. */
  get free(): number {
    return Math.max(this.limits.total - this.held, 0);
  }

  /** The partners and endpoints whose slots are all taken: their deliveries cannot start now. */
  full(): { partners: string[]; endpoints: string[] } {
    const at = (counts: Map<string, number>, cap: number) =>
      [...counts].filter(([, n]) => n >= cap).map(([key]) => key);
    return {
      partners: at(this.byPartner, this.limits.perPartner),
      endpoints: at(this.byEndpoint, this.limits.perEndpoint),
    };
  }

  /**
   * Takes slots for the deliveries to start now, chosen from `due` (in due order) as the class
   * comment says; the caller starts them and gives each slot back with `release`.
   */
  take(due: DueDelivery[]): DueDelivery[] {
    const waiting = new Map<string, DueDelivery[]>();
    for (const d of due) {
      const list = waiting.get(d.partnerId);
      if (list) list.push(d);
      else waiting.set(d.partnerId, [d]);
    }
    const taken: DueDelivery[] = [];
    while (this.held < this.limits.total) {
      let best: { delivery: DueDelivery; rank: number[] } | null = null;
      for (const [partnerId, list] of waiting) {
        const inFlight = this.byPartner.get(partnerId) ?? 0;
        if (inFlight >= this.limits.perPartner) continue;
        const delivery = this.nextOf(list);
        if (!delivery) continue;
        const rank = [inFlight, this.served.get(partnerId) ?? -1, delivery.due];
        if (!best || lessThan(rank, best.rank)) best = { delivery, rank };
      }
      if (!best) break;
      const { delivery } = best;
      const list = waiting.get(delivery.partnerId)!;
      list.splice(list.indexOf(delivery), 1);
      this.occupy(delivery);
      taken.push(delivery);
    }
    return taken;
  }

  /** Gives back the slot of a delivery `take` returned, once its attempt has ended. */
  release(delivery: DueDelivery): void {
    this.held -= 1;
    decrement(this.byPartner, delivery.partnerId);
    decrement(this.byEndpoint, delivery.endpointId);
  }

  /** A partner's next delivery: of the endpoint with the fewest in flight (below its cap), the first due. */
  private nextOf(list: DueDelivery[]): DueDelivery | null {
    let next: DueDelivery | null = null;
    let fewest = Infinity;
    for (const d of list) {
      const inFlight = this.byEndpoint.get(d.endpointId) ?? 0;
      if (inFlight < this.limits.perEndpoint && inFlight < fewest) {
        next = d;
        fewest = inFlight;
      }
    }
    return next;
  }

  private occupy(delivery: DueDelivery): void {
    this.held += 1;
    this.byPartner.set(delivery.partnerId, (this.byPartner.get(delivery.partnerId) ?? 0) + 1);
    this.byEndpoint.set(delivery.endpointId, (this.byEndpoint.get(delivery.endpointId) ?? 0) + 1);
    if (this.served.size >= SERVED_LIMIT && !this.served.has(delivery.partnerId)) this.served.clear();
    this.served.set(delivery.partnerId, (this.turn += 1));
  }
}

function lessThan(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
