// The channel every request (cancel, resume, the writer inbox) is announced on; the payload is the run id.
export const RUN_CHANNEL = 'teamline_run';
