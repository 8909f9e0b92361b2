/**
 * An in-process message bus with NATS semantics: subjects, request/reply, queue groups (one
 * member of a group gets each message, round robin) and plain subscribers (every one gets it).
 * Messages cross as strings, so no object is ever shared by reference between services.
 */
export type BusHandler = (message: string, reply?: (response: string) => void) => void;

interface Group {
  members: BusHandler[];
  next: number;
}

export class NoRespondersError extends Error {
  constructor(readonly subject: string) {
    super(`no responders for ${subject}`);
    this.name = 'NoRespondersError';
  }
}

export class InProcessBus {
  private readonly subjects = new Map<string, { groups: Map<string, Group>; plain: BusHandler[] }>();

  subscribe(subject: string, handler: BusHandler, queue?: string): () => void {
    let entry = this.subjects.get(subject);
    if (!entry) {
      entry = { groups: new Map(), plain: [] };
      this.subjects.set(subject, entry);
    }
    if (queue) {
      let group = entry.groups.get(queue);
      if (!group) {
        group = { members: [], next: 0 };
        entry.groups.set(queue, group);
      }
      group.members.push(handler);
      return () => {
        group.members = group.members.filter((h) => h !== handler);
      };
    }
    entry.plain.push(handler);
    return () => {
      entry.plain = entry.plain.filter((h) => h !== handler);
    };
  }

  /** Delivers to every plain subscriber and one member of each queue group; returns the count. */
  publish(subject: string, message: string, reply?: (response: string) => void): number {
    const entry = this.subjects.get(subject);
    if (!entry) return 0;
    const targets: BusHandler[] = [...entry.plain];
    for (const group of entry.groups.values()) {
      if (group.members.length === 0) continue;
      targets.push(group.members[group.next++ % group.members.length]);
    }
    // Deliver asynchronously, as a network transport would.
    for (const target of targets) queueMicrotask(() => target(message, reply));
    return targets.length;
  }

  request(subject: string, message: string, onReply: (response: string) => void): void {
    let answered = false;
    const delivered = this.publish(subject, message, (response) => {
      if (answered) return;
      answered = true;
      onReply(response);
    });
    if (delivered === 0) throw new NoRespondersError(subject);
  }
}
