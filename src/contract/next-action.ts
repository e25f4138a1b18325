/**
 * `nextAction` of a JobSummary, from the spec's type/status table.
 *
 * @module
 */
import type { JobStatus, NextAction } from './types.ts';
import { isRetryableStage } from './machine.ts';

/** Where a person can reach support when retrying will not help. */
export const SUPPORT_MAILTO = 'mailto:support@multicam.invalid';

/** What {@link nextAction} needs to know about a job. */
export interface NextActionInput {
  status: JobStatus;
  failedAtStatus: string | null;
  failurePermanent: boolean;
  reviewUrl: string | null;
  outputUrl: string | null;
}

/**
 * The client's next step for a job.
 *
 * @example
 * nextAction({ status: 'mapping', failedAtStatus: null, failurePermanent: false, reviewUrl, outputUrl: null });
 * // { type: 'map_speakers', url: reviewUrl, message: '…' }
 */
export function nextAction(input: NextActionInput): NextAction {
  switch (input.status) {
    case 'created':
    case 'uploading':
      return {
        type: 'upload_files',
        url: null,
        message: 'Upload every file to its upload URL, then call startProcessing.',
      };
    case 'syncing':
    case 'diarizing':
    case 'rendering':
      return {
        type: 'wait',
        url: null,
        message: 'The job is being processed; wait for a webhook or check again later.',
      };
    case 'mapping':
      return {
        type: 'map_speakers',
        url: input.reviewUrl,
        message: 'Confirm who is on which camera at the review link, or call submitSpeakerMapping.',
      };
    case 'ready':
      return {
        type: 'review_or_render',
        url: input.reviewUrl,
        message: 'Review the cuts at the review link, or call startRender.',
      };
    case 'complete':
    case 'approved':
      return { type: 'download', url: input.outputUrl, message: 'Download the rendered video from the URL.' };
    case 'failed':
      if (input.failurePermanent || !isRetryableStage(input.failedAtStatus)) {
        return {
          type: 'contact_support',
          url: SUPPORT_MAILTO,
          message: 'Retrying will not help (a file could not be read); start a new job or contact support.',
        };
      }
      return {
        type: 'retry',
        url: null,
        message:
          input.failedAtStatus === 'diarizing'
            ? 'Call retryJob. If no speech was found, pass diarizeSourceIds naming sources with clean audio of every speaker.'
            : 'Call retryJob; no new diarizeSourceIds are needed.',
      };
  }
}
