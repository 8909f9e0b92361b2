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

export const ACCOUNTS_API_CONTROLLERS = [PlansController, PartnerController, BillingController, GroupsController, UsersController, ReportsController, DevicePoliciesController, PartnerBackupController, BillingApiController];

@Module({ controllers: ACCOUNTS_API_CONTROLLERS })
export class AccountsApiModule {}
