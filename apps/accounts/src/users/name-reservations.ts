/**
 * The streams that reserve a user's login names (one holder each, brand-wide, any case): written
 * by user creation, changes and deletion, read by the operator's reservation tools.
 *
 * Usernames and email addresses are ONE login namespace across all partners: a login tries both
 * (user-login.handlers.ts), so a username equal to another user's email would take over that
 * user's email logins. Only a name with an `@` can be both (an email always has one), so
 * `email-<key>` is the namespace's stream for such names: an email takes it, and so does a
 * username with an `@` (besides its `username-<key>`, which keeps usernames unique among
 * themselves). Two writes claiming one such name, as a username in one and an email in the other,
 * meet on that one stream: exactly one wins.
 *
 * Usernames made before this rule hold only `username-<key>`. An email is therefore also refused
 * while `username-<key>` of its name has another holder (`reserveEmail`); that is a read, not a
 * claim: such holders are never made any more, only released, so no race can pass it.
 */
import { conflict, Streams } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { nameKey, releaseName, reservationHolder, reserveName } from '@burrow/eventsourcing';

export const usernameReservation = (username: string) => Streams.reservation('username', nameKey(username));
export const emailReservation = (email: string) => Streams.reservation('email', nameKey(email));

/** A name without `@` can never be an email address (contracts' EMAIL_PATTERN). */
export const mayBeEmail = (name: string) => name.includes('@');

/** Whether `name` is one of `held` (the same login name, any case). */
export const sameLoginName = (name: string, ...held: string[]) => held.some((h) => nameKey(h) === nameKey(name));

/**
 * Takes `email` for `owner` (a no-op if it holds it already); 409 naming `email` when another
 * user has it as an email, as a username (new usernames hold its email stream), or as a username
 * made before one namespace held both.
 */
export async function reserveEmail(store: EventStore, email: string, owner: string): Promise<void> {
  const asUsername = await reservationHolder(store, usernameReservation(email));
  if (asUsername !== null && asUsername !== owner) throw conflict('email already in use', ['email']);
  await reserveName(store, emailReservation(email), owner, 'email');
}

/** Frees every stream a user's login names hold (a no-op for each it does not hold). */
export async function releaseLoginNames(
  store: EventStore,
  owner: string,
  username: string,
  email: string,
): Promise<void> {
  await releaseName(store, usernameReservation(username), owner);
  await releaseName(store, emailReservation(username), owner);
  await releaseName(store, emailReservation(email), owner);
}
