/**
 * Device policies of the partner (`/devicepolicies/`, `/devicepolicies/<id>`) and the preferences
 * a policy may set (`/devicepreferences`): what the management appliance's groups pages read on
 * every load.
 */
import {
  CreateDevicePolicyBody,
  type DevicePolicy,
  DevicePolicyActionQuery,
  type DevicePreference,
  notFound,
  Subjects,
  UpdateDevicePolicyBody,
  type z,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { replyCreated } from '../../http/created.js';
import { JsonBody } from '../../http/json-body.js';
import { PartnerGuard, PartnerId } from '../../http/partner.guard.js';
import { Body, parseBody, Query } from '../../http/request.js';
import { RPC } from '../../http/tokens.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';

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

  @Get('devicepreferences')
  preferences(): Promise<DevicePreference[]> {
    return this.rpc.call(Subjects.accounts.listDevicePreferences, {});
  }

  @Get('devicepolicies')
  list(@PartnerId() partnerId: string): Promise<DevicePolicy[]> {
    return this.rpc.call(Subjects.accounts.listDevicePolicies, { partnerId });
  }

  @Post('devicepolicies')
  async create(
    @PartnerId() partnerId: string,
    @Body(CreateDevicePolicyBody, { required: true, nested: NESTED }) body: CreateDevicePolicyBody,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const policy = await this.rpc.call<DevicePolicy>(Subjects.accounts.createDevicePolicy, { partnerId, ...body });
    replyCreated(req, res, policy.id, policy);
  }

  @Get('devicepolicies/:id')
  get(@PartnerId() partnerId: string, @Param('id') id: string): Promise<DevicePolicy> {
    return this.rpc.call(Subjects.accounts.getDevicePolicy, { partnerId, id: policyId(id) });
  }

  /** Changes the policy; `?action=delete` deletes it (the body is ignored), as groups and users do. */
  @Post('devicepolicies/:id')
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: string,
    @Param('id') id: string,
    @Query(DevicePolicyActionQuery) query: z.output<typeof DevicePolicyActionQuery>,
    @JsonBody() raw: unknown,
  ): Promise<DevicePolicy | null> {
    if (query.action === 'delete') return this.remove(partnerId, id);
    const changes = parseBody(UpdateDevicePolicyBody, raw, { nested: NESTED });
    return this.rpc.call(Subjects.accounts.updateDevicePolicy, { partnerId, id: policyId(id), changes });
  }

  @Delete('devicepolicies/:id')
  async remove(@PartnerId() partnerId: string, @Param('id') id: string): Promise<null> {
    await this.rpc.call(Subjects.accounts.deleteDevicePolicy, { partnerId, id: policyId(id) });
    return null;
  }
}
