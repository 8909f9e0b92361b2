/**
 * User logins for the storage interface (cookie login and HTTP Basic): the login name is the
 * username or the email address, in any case; the reply carries what the storage interface's
 * policy needs (is the user enabled, does their group allow the web interface).
 */
import { type AuthenticatedUser, type AuthenticateUserRequest, type SessionUserRequest, Streams, Subjects, unauthorized } from '@burrow/contracts';
import { createHash } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { groupsCollection } from '../groups/groups.projection.js';
import { DEFAULT_SETTINGS } from '../partners/settings.js';
import { partnersCollection } from '../partners/partners.projection.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../shared/context.js';
import { CredentialCheck, latestPasswordHash } from '../shared/credential-check.js';
import { type UserDoc, usersCollection } from './users.projection.js';

@Controller()
export class UserLoginHandlers {
  private readonly credentials: CredentialCheck;

  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {
    this.credentials = new CredentialCheck(ctx, 'user', 'invalid username or password');
  }

  private async findUser(login: string): Promise<UserDoc | null> {
    const key = login.toLowerCase();
    const users = usersCollection(this.ctx.docs);
    return (await users.findOne({ usernameKey: key })) ?? (login.includes('@') ? await users.findOne({ emailKey: key }) : null);
  }

  @MessagePattern(Subjects.accounts.authenticateUser)
  async authenticate(@Payload() { login, password, address }: AuthenticateUserRequest): Promise<AuthenticatedUser> {
    const name = typeof login === 'string' ? login.trim() : '';
    let user: UserDoc | null = null;
    await this.credentials.check(
      { name: name.toLowerCase(), password, address },
      async () => (user = await this.findUser(name)) && { id: user._id },
      (id) => latestPasswordHash(this.ctx, Streams.user(id), ['UserPasswordChanged', 'UserCreated']),
    );
    const found = user as unknown as UserDoc;
    return this.describe(found, await this.passwordHash(found._id));
  }

  /**
   * A cookie session's user as they are now (enabled, group policy), provided the password is
   * still the one the session was opened with; otherwise 401, as for a deleted user.
   */
  @MessagePattern(Subjects.accounts.sessionUser)
  async session(@Payload() { userId, stamp }: SessionUserRequest): Promise<AuthenticatedUser> {
    const user = typeof userId === 'string' ? await usersCollection(this.ctx.docs).get(userId) : null;
    const hash = user ? await this.passwordHash(user._id) : null;
    if (!user || !hash || typeof stamp !== 'string' || sessionStamp(hash) !== stamp) throw unauthorized('the session has ended: log in again');
    return this.describe(user, hash);
  }

  private passwordHash(userId: string): Promise<string | null> {
    return latestPasswordHash(this.ctx, Streams.user(userId), ['UserPasswordChanged', 'UserCreated']);
  }

  private async describe(user: UserDoc, hash: string | null): Promise<AuthenticatedUser> {
    const [group, partner] = await Promise.all([
      user.group_id === null ? null : groupsCollection(this.ctx.docs).get(String(user.group_id)),
      partnersCollection(this.ctx.docs).get(user.partnerId),
    ]);
    const settings = partner?.settings ?? DEFAULT_SETTINGS;
    return {
      userId: user._id, partnerId: user.partnerId, username: user.username, email: user.email, name: user.name,
      enabled: user.enabled, webapi_enable: group?.webapi_enable ?? true, sessionStamp: hash ? sessionStamp(hash) : '',
      sharing_enabled: settings.sharing_enabled ?? DEFAULT_SETTINGS.sharing_enabled,
      share_link_ttl: settings.share_link_ttl ?? DEFAULT_SETTINGS.share_link_ttl,
    };
  }
}

/** A value that changes with the password hash and reveals nothing usable about it. */
const sessionStamp = (passwordHash: string): string => createHash('sha256').update('burrow-session-stamp\0').update(passwordHash).digest('base64url').slice(0, 22);
