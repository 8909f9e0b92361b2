/**
 * The vocabulary every service's contracts use: a named event (`Event<'UserCreated', {...}>`), a
 * named command, and the decider (the write side of one aggregate: pure functions, no I/O).
 * Event type strings equal their TypeScript type names and are past tense; commands are
 * imperative and carry one intent each.
 */
export interface Event<Type extends string = string, Data extends object = object> {
  type: Type;
  data: Data;
}

export type Command<Type extends string = string, Data extends object = object> = { type: Type } & Data;

/** `decide` throws DomainError to refuse a command; `evolve` folds one event into the state. */
export interface Decider<State, Cmd, Evt extends { type: string }> {
  initialState: State;
  decide(command: Cmd, state: State): Evt[];
  evolve(state: State, event: Evt): State;
}

export const fold = <S, E extends { type: string }>(
  d: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>,
  events: E[],
): S => events.reduce(d.evolve, d.initialState);

/**
 * Several commands against one aggregate, decided in order on the evolving state, so one request
 * that changes several things (one user POST) is one append of several events.
 */
export function decideAll<S, C, E extends { type: string }>(decider: Decider<S, C, E>, commands: C[], state: S): E[] {
  const events: E[] = [];
  let current = state;
  for (const command of commands) {
    const decided = decider.decide(command, current);
    for (const e of decided) current = decider.evolve(current, e);
    events.push(...decided);
  }
  return events;
}
