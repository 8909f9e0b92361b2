/**
 * The previews of one blob (stream `preview-<sha256>`): nothing decided, taken on by a previewer
 * (a claim, so replicas do not all decode the same image), or decided (the preview blobs, or why
 * there are none). A claim left without a result (the previewer died: a crash, or an image that
 * kills the decoder) may be taken again once stale; after `maxAttempts` such claims the image is
 * given up, so an image that crashes the process cannot make it crash at every start. Reaping the
 * blob discards it all; content uploaded again starts afresh.
 */
import type { Command, Decider, PreviewEvent, PreviewsGenerated } from '@burrow/contracts';

export interface PreviewState {
  status: 'none' | 'started' | 'decided';
  /** claims since the previews were last discarded */
  attempts: number;
  /** when the last claim was made (unix seconds) */
  startedAt: number | null;
}

export type StartPreviews = Command<
  'StartPreviews',
  { blob: string; at: number; claimSeconds: number; maxAttempts: number }
>;
export type RecordPreviews = Command<
  'RecordPreviews',
  { blob: string; at: number } & ({ previews: PreviewsGenerated['data']['previews'] } | { reason: string })
>;
/**
 * `recorded`: the read models hold a decision for the blob (a commit that knew it is no image
 * decides it there, with nothing on this stream), so the discard is recorded even on an empty stream.
 */
export type DiscardPreviews = Command<'DiscardPreviews', { blob: string; at: number; recorded?: boolean }>;
export type PreviewCommand = StartPreviews | RecordPreviews | DiscardPreviews;

/** Whether a claim made at `startedAt` still holds at `at`. */
export const claimHolds = (state: PreviewState, at: number, claimSeconds: number) =>
  state.status === 'started' && state.startedAt !== null && at - state.startedAt < claimSeconds;

export const previewDecider: Decider<PreviewState, PreviewCommand, PreviewEvent> = {
  initialState: { status: 'none', attempts: 0, startedAt: null },
  decide(command, state) {
    const { blob, at } = command;
    switch (command.type) {
      case 'StartPreviews':
        if (state.status === 'decided' || claimHolds(state, at, command.claimSeconds)) return [];
        if (state.attempts >= command.maxAttempts) {
          return [
            {
              type: 'PreviewsFailed',
              data: { blob, reason: `the previewer stopped ${state.attempts} times on this image`, at },
            },
          ];
        }
        return [{ type: 'PreviewsStarted', data: { blob, attempt: state.attempts + 1, at } }];
      case 'RecordPreviews':
        if (state.status === 'decided') return [];
        return 'previews' in command
          ? [{ type: 'PreviewsGenerated', data: { blob, previews: command.previews, at } }]
          : [{ type: 'PreviewsFailed', data: { blob, reason: command.reason, at } }];
      case 'DiscardPreviews':
        return state.status === 'none' && state.attempts === 0 && !command.recorded
          ? []
          : [{ type: 'PreviewsDiscarded', data: { blob, at } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'PreviewsStarted':
        return { status: 'started', attempts: event.data.attempt, startedAt: event.data.at };
      case 'PreviewsGenerated':
      case 'PreviewsFailed':
        return { ...state, status: 'decided' };
      case 'PreviewsDiscarded':
        return previewDecider.initialState;
      default:
        return state;
    }
  },
};
