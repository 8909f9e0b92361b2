/**
 * A decider is the write side of one aggregate: pure functions, no I/O.
 * `decide` throws DomainError to refuse a command; `evolve` folds one event into the state.
 */
export interface Decider<State, Command, Event extends { type: string }> {
  initialState: State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

export const fold = <S, E extends { type: string }>(d: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>, events: E[]): S =>
  events.reduce(d.evolve, d.initialState);
