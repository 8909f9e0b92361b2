/** Interface A, the partner accounts interface, at `/` and `/apis/accounts/v1/`, and the appliance's billing API at `/apis/billing/v1/`. */
import { Module } from '@nestjs/common';
import { BillingController } from './billing/billing.controller.js';
import { BillingApiController } from './billing-api/billing-api.controller.js';
import { DevicePoliciesController } from './device-policies/device-policies.controller.js';
import { GroupsController } from './groups/groups.controller.js';
import { PartnerController } from './partner/partner.controller.js';
import { PartnerBackupController } from './partner-backup/partner-backup.controller.js';
import { PlansController } from './plans/plans.controller.js';
import { ReportsController } from './reports/reports.controller.js';
import { UsersController } from './users/users.controller.js';

/** In the order the OpenAPI document lists their routes (their paths do not overlap, so Nest's order does not matter). */
export const ACCOUNTS_API_CONTROLLERS = [
  PlansController,
  UsersController,
  GroupsController,
  PartnerController,
  BillingController,
  ReportsController,
  DevicePoliciesController,
  PartnerBackupController,
  BillingApiController,
];

@Module({ controllers: ACCOUNTS_API_CONTROLLERS })
export class AccountsApiModule {}
