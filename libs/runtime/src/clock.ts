/** Time as services see it: unix seconds, injectable so tests can fix "now". */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };
