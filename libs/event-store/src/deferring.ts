import type { AppendResult, EventStore, StreamWrite } from './port.js';

/**
 * A store's view whose appends take effect without waiting for their own flush to disk (the store
 * makes them durable with its next sync): every call but `append` is the store's own.
 */
export function withAppend(store: EventStore, append: EventStore['append']): EventStore {
  return {
    append,
    readStream: (stream, options) => store.readStream(stream, options),
    streamRevision: (stream) => store.streamRevision(stream),
    subscribeToAll: (options, handlers) => store.subscribeToAll(options, handlers),
    headPosition: () => store.headPosition(),
    storeId: () => store.storeId(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

/** `withAppend` for a store whose appends are writes (one, or several streams' all or nothing): the view has both. */
export function withWrites(
  store: EventStore,
  appendWrites: (writes: StreamWrite[]) => Promise<AppendResult[]>,
): EventStore {
  return {
    ...withAppend(store, async (stream, events, expected) => (await appendWrites([{ stream, events, expected }]))[0]),
    appendAtomically: appendWrites,
  };
}
