/**
 * User logins for the storage interface (cookie login and HTTP Basic): the login name is the
 * username or the email address, in any case (one namespace across partners); the reply carries what the storage interface's
 * policy needs (is the user enabled, does their group allow the web interface).
 */
import {
  type AuthenticatedUser,
  type AuthenticateUserRequest,
  type SessionUserRequest,
  Subjects,
  unauthorized,
} from '@burrow/contracts';
import { createHash } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { groupsCollection } from '../read-models/groups.projection.js';
import { DEFAULT_SETTINGS } from '../partners/settings.js';
import { partnersCollection } from '../partners/partners.projection.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { CredentialCheck, credentialsCurrent } from '../logins/credential-check.js';
import { userCredentialsCollection } from './user-credentials.projection.js';
import { type UserDoc, usersCollection } from '../read-models/users.projection.js';

@Controller()
export class UserLoginHandlers {
  private readonly credentials: CredentialCheck;

  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {
    this.credentials = new CredentialCheck(ctx, 'user', 'invalid username or password');
  }

  /**
   * The users a login name may be: the one with that username and the one with that email. One
   * namespace holds both kinds brand-wide (name-reservations.ts), so these are one user, or only
   * one exists; two different users only where both were made before that rule, and then the
   * password decides (CredentialCheck).
   */
  private async findUsers(login: string): Promise<UserDoc[]> {
    const key = login.toLowerCase();
    const users = usersCollection(this.ctx.docs);
    const [byUsername, byEmail] = await Promise.all([
      users.findOne({ usernameKey: key }),
      login.includes('@') ? users.findOne({ emailKey: key }) : null,
    ]);
    return [byUsername, byEmail].filter(
      (u, i, all): u is UserDoc => u !== null && all.findIndex((o) => o?._id === u._id) === i,
    );
  }

  @MessagePattern(Subjects.accounts.authenticateUser)
  async authenticate(@Payload() { login, password, address }: AuthenticateUserRequest): Promise<AuthenticatedUser> {
    const name = typeof login === 'string' ? login.trim() : '';
    let users: UserDoc[] = [];
    const userId = await this.credentials.check(
      { name: name.toLowerCase(), password, address },
      async () => (users = await this.findUsers(name)).map((u) => ({ id: u._id })),
      async (id) => (await userCredentialsCollection(this.ctx.docs).get(id))?.passwordHash ?? null,
    );
    const found = users.find((u) => u._id === userId)!;
    return this.describe(found, await this.credentialStamp(found._id));
  }

  /**
   * A cookie session's (or link's, or session extension's) user as they are now (enabled, group
   * policy), provided the credential stamp is still the one it was made with: the password is the
   * same and the user was not disabled since; otherwise 401, as for a deleted user.
   */
  @MessagePattern(Subjects.accounts.sessionUser)
  async session(@Payload() { userId, stamp }: SessionUserRequest): Promise<AuthenticatedUser> {
    await credentialsCurrent(this.ctx);
    const user = typeof userId === 'string' ? await usersCollection(this.ctx.docs).get(userId) : null;
    const current = user ? await this.credentialStamp(user._id) : null;
    if (!user || !current || typeof stamp !== 'string' || current !== stamp)
      throw unauthorized('the session has ended: log in again');
    return this.describe(user, current);
  }

  /**
   * What sessions, links and extensions are bound to: the password hash and the last time the user
   * was disabled. A password change or a disable changes it, so everything made before ends (a
   * re-enable does not bring it back). null for a user without a password. Read from the read
   * models (user-credentials.projection.ts: why that is in force at once on every replica).
   */
  private async credentialStamp(userId: string): Promise<string | null> {
    const credentials = await userCredentialsCollection(this.ctx.docs).get(userId);
    return credentials?.passwordHash ? sessionStamp(credentials.passwordHash, credentials.disabledAt) : null;
  }

  private async describe(user: UserDoc, stamp: string | null): Promise<AuthenticatedUser> {
    const [group, partner] = await Promise.all([
      user.group_id === null ? null : groupsCollection(this.ctx.docs).get(String(user.group_id)),
      partnersCollection(this.ctx.docs).get(user.partnerId),
    ]);
    const settings = partner?.settings ?? DEFAULT_SETTINGS;
    return {
      userId: user._id,
      partnerId: user.partnerId,
      username: user.username,
      email: user.email,
      name: user.name,
      enabled: user.enabled,
      webapi_enable: group?.webapi_enable ?? true,
      sessionStamp: stamp ?? '',
      sharing_enabled: settings.sharing_enabled ?? DEFAULT_SETTINGS.sharing_enabled,
      share_link_ttl: settings.share_link_ttl ?? DEFAULT_SETTINGS.share_link_ttl,
    };
  }
}

/**
 * A value that changes with the password hash and with each disable, and reveals nothing usable
 * about either (a user never disabled keeps the stamp of the password alone).
 */
function sessionStamp(passwordHash: string, disabledAt: number | undefined): string {
  const h = createHash('sha256').update('burrow-session-stamp\0').update(passwordHash);
  if (disabledAt !== undefined) h.update(`\0disabled@${disabledAt}`);
  return h.digest('base64url').slice(0, 22);
}
