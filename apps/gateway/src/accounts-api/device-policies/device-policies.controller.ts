/**
 * Device policies of the partner (`/devicepolicies/`, `/devicepolicies/<id>`) and the preferences
 * a policy may set (`/devicepreferences`): what the management appliance's groups pages read on
 * every load.
 */
import {
  CreateDevicePolicyBody,
  type DevicePolicy,
  notFound,
  type PreferenceCategory,
  Subjects,
  type z,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, Param, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { replyCreated } from '../../http/created.js';
import { JsonBody } from '../../http/json-body.js';
import { PartnerGuard, PartnerId } from '../../partner-access/partner.guard.js';
import type { PartnerIdentity } from '../../partner-access/partner-in-call.js';
import { Body, parseBody, Query } from '../../http/request.js';
import { RPC } from '../../http/tokens.js';
import { Route } from '../../http/route.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';
import { DEVICE_POLICY_ROUTES } from './device-policies.routes.js';

/** Preference errors are named `policy.<preference>`. */
const NESTED = ['policy'];

/** A policy id from the path; anything but a positive integer names no policy. */
function policyId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw notFound(`no device policy ${raw}`);
  return Number(raw);
}

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class DevicePoliciesController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Route(DEVICE_POLICY_ROUTES.preferences)
  preferences(): Promise<PreferenceCategory[]> {
    return this.rpc.call(Subjects.accounts.listDevicePreferences, {});
  }

  @Route(DEVICE_POLICY_ROUTES.list)
  list(@PartnerId() partnerId: PartnerIdentity): Promise<DevicePolicy[]> {
    return this.rpc.call(Subjects.accounts.listDevicePolicies, { partnerId });
  }

  @Route(DEVICE_POLICY_ROUTES.create)
  async create(
    @PartnerId() partnerId: PartnerIdentity,
    @Body(DEVICE_POLICY_ROUTES.create.body, { required: true, nested: NESTED }) body: CreateDevicePolicyBody,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const policy = await this.rpc.call<DevicePolicy>(Subjects.accounts.createDevicePolicy, { partnerId, ...body });
    replyCreated(req, res, policy.id, policy);
  }

  @Route(DEVICE_POLICY_ROUTES.get)
  get(@PartnerId() partnerId: PartnerIdentity, @Param('id') id: string): Promise<DevicePolicy> {
    return this.rpc.call(Subjects.accounts.getDevicePolicy, { partnerId, id: policyId(id) });
  }

  /** Changes the policy; `?action=delete` deletes it (the body is ignored), as groups and users do. */
  @Route(DEVICE_POLICY_ROUTES.update)
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('id') id: string,
    @Query(DEVICE_POLICY_ROUTES.update.query) query: z.output<typeof DEVICE_POLICY_ROUTES.update.query>,
    @JsonBody() raw: unknown,
  ): Promise<DevicePolicy | null> {
    if (query.action === 'delete') return this.remove(partnerId, id);
    const changes = parseBody(DEVICE_POLICY_ROUTES.update.body, raw, { nested: NESTED });
    return this.rpc.call(Subjects.accounts.updateDevicePolicy, { partnerId, id: policyId(id), changes });
  }

  @Route(DEVICE_POLICY_ROUTES.remove)
  async remove(@PartnerId() partnerId: PartnerIdentity, @Param('id') id: string): Promise<null> {
    await this.rpc.call(Subjects.accounts.deleteDevicePolicy, { partnerId, id: policyId(id) });
    return null;
  }
}
