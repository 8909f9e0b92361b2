/** Example records of interface A for the OpenAPI document, typed against the contracts. */
import {
  type BillingView,
  type BrandShareEntry,
  type ClientRevisionCount,
  type CreateUserReply,
  type DeviceRecord,
  type Group,
  type PartnerFeatures,
  type PartnerInfo,
  type PartnerQuota,
  type PartnerSettings,
  type Plan,
  UNLIMITED_BYTES,
  type UserRecord,
  type UserShareRoom,
} from '@burrow/contracts';

export const GB = 1_000_000_000;
export const T0 = 1_700_000_000;

export const examplePlans = [
  { plan_id: 1, storage_bytes: 100 * GB, name: '100 GB', promo: false },
  { plan_id: 2, storage_bytes: 1000 * GB, name: '1 TB', promo: false },
  { plan_id: 3, storage_bytes: 5000 * GB, name: '5 TB', promo: false },
  { plan_id: 4, storage_bytes: 2000 * GB, name: '2 TB promotion', promo: true },
  { plan_id: 5, storage_bytes: UNLIMITED_BYTES, name: 'Unlimited', promo: false },
] satisfies Plan[];

export const exampleRoom = {
  room_key: 'k7Pq2mXa',
  name: 'Holiday photos',
  description: 'Pictures from the lake, summer 2024',
  enabled: true,
  password_required: false,
  expires: null,
  creation_time: T0 + 86_400,
  update_time: T0 + 90_000,
  last_login: T0 + 400_000,
  downloads: 12,
  last_access: T0 + 400_000,
} satisfies UserShareRoom;

export const exampleUser = {
  avatar_id: 17,
  username: 'jdoe',
  name: 'Jane Doe',
  email: 'jane.doe@example.com',
  share_id: 'jdoe',
  share_identifier: 'jdoe',
  promo: null,
  creation_time: T0,
  last_login: T0 + 500_000,
  bytes_stored: 52_428_800_000,
  storage_bytes: 1000 * GB + 5 * GB,
  bonus_bytes: 5 * GB,
  plan_id: 2,
  group_id: 3,
  enabled: true,
  purgehold_active: false,
  share_rooms: [exampleRoom],
  num_devices: 2,
} satisfies UserRecord;

export const exampleNewUser = {
  ...exampleUser,
  avatar_id: 18,
  username: 'bsmith',
  name: 'Bob Smith',
  email: 'bob.smith@example.com',
  share_id: 'bsmith',
  share_identifier: 'bsmith',
  creation_time: T0 + 600_000,
  last_login: null,
  bytes_stored: 0,
  storage_bytes: 100 * GB,
  bonus_bytes: 0,
  plan_id: 1,
  group_id: null,
  share_rooms: [],
  num_devices: 0,
} satisfies UserRecord;

export const exampleCreated = {
  user: exampleNewUser,
  username: 'bsmith',
  temp_password: 'q3VZ0pLwK8sXe1Rt',
} satisfies CreateUserReply;

export const exampleDevices = [
  {
    name: 'laptop',
    creation_time: T0 + 3600,
    last_backup_complete: T0 + 499_000,
    lastlogin: T0 + 500_000,
    last_login: T0 + 500_000,
    lastcommit: T0 + 499_000,
    client_revision: 1207,
    sysplatform: 'darwin',
  },
  {
    name: 'office-pc',
    creation_time: T0 + 7200,
    last_backup_complete: null,
    lastlogin: T0 + 100_000,
    last_login: T0 + 100_000,
    lastcommit: null,
    client_revision: 1185,
    sysplatform: 'win32',
  },
] satisfies DeviceRecord[];

export const exampleGroup = {
  group_id: 3,
  name: 'Engineering',
  plan_id: 2,
  webapi_enable: true,
  check_domain: false,
  device_policy: null,
} satisfies Group;
export const exampleGroups = [
  exampleGroup,
  { group_id: 4, name: 'Sales', plan_id: 1, webapi_enable: false, check_domain: true, device_policy: null },
] satisfies Group[];

export const exampleSettings = {
  omva_url: 'https://appliance.example.com/omva',
  support_email: 'help@example.com',
  share_link_ttl: 10080,
  autopurge_interval: 30,
  purgehold_duration: 86400,
  ad_domain: 'corp.example.com',
  signup_network_restriction: ['10.0.0.0/8', '2001:db8::/32'],
  versionpurge_interval: null,
  admin_email: 'admin@example.com',
  sharing_enabled: true,
  api_version: null,
} satisfies PartnerSettings;

export const exampleFeatures = {
  netkes: false,
  ldap: true,
  group_permissions: true,
  signup_restrictions: false,
  email_as_username: false,
} satisfies PartnerFeatures;
export const exampleQuota = {
  bytes_available: 10_000 * GB,
  bytes_allocated: 3105 * GB,
  bytes_used: 812 * GB,
  share_count: 14,
  device_count: 57,
} satisfies PartnerQuota;
export const exampleInfo = {
  partner_id: '0f6c1d2e-4b7a-4c1e-9a51-5d3c2b1a0f9e',
  company_name: 'Example Backup Co',
  brand_identifier: 'examplebackup',
  username: 'examplebackup',
} satisfies PartnerInfo;

export const exampleBrandShares = [
  { username: 'jdoe', name: 'Jane Doe', email: 'jane.doe@example.com', shares: [exampleRoom] },
] satisfies BrandShareEntry[];
export const exampleRevisions = [
  { revision: 1185, count: 12 },
  { revision: 1207, count: 45 },
] satisfies ClientRevisionCount[];

export const billingAddress = {
  name: 'Example Backup Co',
  address: ['100 Main Street', 'Suite 400'],
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};
export const exampleBillingInvoice = {
  billing_mode: 'invoice',
  ...billingAddress,
  card: null,
  updated_at: T0 + 700_000,
} satisfies BillingView;
export const exampleBillingPrepaid = {
  billing_mode: 'prepaid',
  ...billingAddress,
  card: { brand: 'visa', last4: '4242', expiration_month: 12, expiration_year: 2030 },
  updated_at: T0 + 700_000,
} satisfies BillingView;
export const exampleBillingNothing = {
  billing_mode: 'invoice',
  name: null,
  address: null,
  city: null,
  state: null,
  postal_code: null,
  country: null,
  card: null,
  updated_at: null,
} satisfies BillingView;
