// Where `team cancel` leaves its request for a live orchestrator, before signalling it.
export const CANCEL_REQUEST_FILE = 'cancel-request.json';
