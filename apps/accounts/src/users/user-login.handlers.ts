/**
 * User logins for the storage interface (cookie login and HTTP Basic): the login name is the
 * username or the email address, in any case; the reply carries what the storage interface's
 * policy needs (is the user enabled, does their group allow the web interface).
 */
import { type AuthenticatedUser, type AuthenticateUserRequest, Streams, Subjects } from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { groupsCollection } from '../groups/groups.projection.js';
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
    const group = found.group_id === null ? null : await groupsCollection(this.ctx.docs).get(String(found.group_id));
    return {
      userId: found._id, partnerId: found.partnerId, username: found.username, email: found.email, name: found.name,
      enabled: found.enabled, webapi_enable: group?.webapi_enable ?? true,
    };
  }
}
