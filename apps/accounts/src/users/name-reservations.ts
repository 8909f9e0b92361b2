/**
 * The streams that reserve a user's username and email (one holder each, brand-wide, any case):
 * written by user creation, changes and deletion, read by the operator's reservation tools.
 */
import { Streams } from '@burrow/contracts';
import { nameKey } from '@burrow/eventsourcing';

export const usernameReservation = (username: string) => Streams.reservation('username', nameKey(username));
export const emailReservation = (email: string) => Streams.reservation('email', nameKey(email));
