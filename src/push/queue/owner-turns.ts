interface ReadyLane {
  lane: string;
  /** When it became ready, across owners: the oldest goes first between owners with as many in flight. */
  since: number;
}

/**
 * Lanes ready to hand out a delivery, grouped by the owner (principal) whose webhooks they are, and the
 * deliveries each owner has in flight. The next lane handed out is one of the owner with the fewest in
 * flight, so the slots are shared between owners: one whose webhooks never answer holds at most the
 * slots no other owner asked for, and another owner's notification takes the next slot that frees.
 * Between owners with as many in flight, and within one owner, the lane ready first goes first (with a
 * single owner this is the order lanes became ready in, as before owners were told apart).
 */
export class OwnerTurns {
  private readonly ready = new Map<string, ReadyLane[]>();
  private readonly busy = new Map<string, number>();
  private readyCount = 0;
  private sequence = 0;

  push(owner: string, lane: string): void {
    let lanes = this.ready.get(owner);
    if (!lanes) {
      lanes = [];
      this.ready.set(owner, lanes);
    }
    lanes.push({ lane, since: this.sequence++ });
    this.readyCount += 1;
  }

  /** The next ready lane by the rule above; its owner counts one more in flight until `ended`. */
  shift(): string | undefined {
    let chosen: { owner: string; lanes: ReadyLane[]; busy: number } | undefined;
    for (const [owner, lanes] of this.ready) {
      const busy = this.inFlight(owner);
      if (!chosen || busy < chosen.busy || (busy === chosen.busy && lanes[0]!.since < chosen.lanes[0]!.since)) chosen = { owner, lanes, busy };
    }
    if (!chosen) return undefined;
    const { lane } = chosen.lanes.shift()!;
    if (chosen.lanes.length === 0) this.ready.delete(chosen.owner);
    this.readyCount -= 1;
    this.busy.set(chosen.owner, chosen.busy + 1);
    return lane;
  }

  /** A delivery of the owner's taken by `shift` is no longer in flight (done, or put back to wait). */
  ended(owner: string): void {
    const busy = this.inFlight(owner) - 1;
    if (busy > 0) this.busy.set(owner, busy);
    else this.busy.delete(owner);
  }

  inFlight(owner: string): number {
    return this.busy.get(owner) ?? 0;
  }

  /**
   * Whether a ready lane's owner has fewer deliveries in flight than the busiest owner: the next slot that
   * frees goes to it. While none does, what waits unread (a stream's later entries) may hold one that should.
   */
  someoneUnderServedWaits(): boolean {
    const busiest = Math.max(0, ...this.busy.values());
    for (const owner of this.ready.keys()) if (this.inFlight(owner) < busiest) return true;
    return false;
  }

  size(): number {
    return this.readyCount;
  }

  /** Forgets every ready lane (deliveries in flight are still counted until `ended`). */
  clear(): void {
    this.ready.clear();
    this.readyCount = 0;
  }
}
