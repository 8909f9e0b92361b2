/**
 * Request and reply payloads on the bus. Every accounts/billing request made for a partner carries
 * `partnerId`, set by the gateway from the authenticated credentials, never from client input.
 */

export interface PartnerScoped {
  partnerId: string;
}

export interface Plan {
  plan_id: number;
  storage_bytes: number;
  name: string;
  /** true when the plan is normally sold with a promo code (partners set it without one) */
  promo: boolean;
}

export interface PartnerFeatures {
  netkes: boolean;
  ldap: boolean;
  group_permissions: boolean;
  signup_restrictions: boolean;
  email_as_username: boolean;
}

export interface PartnerSettings {
  omva_url: string | null;
  support_email: string | null;
  share_link_ttl: number;
  autopurge_interval: number | null;
  purgehold_duration: number;
  ad_domain: string | null;
  signup_network_restriction: string[];
  versionpurge_interval: number | null;
  admin_email: string | null;
  sharing_enabled: boolean;
  api_version: string | null;
}

export interface PartnerQuota {
  bytes_available: number | null;
  bytes_allocated: number;
  bytes_used: number;
  share_count: number;
  device_count: number;
}

export interface PartnerInfo {
  partner_id: string;
  company_name: string;
  brand_identifier: string;
  username: string;
}

export interface AuthenticatedPartner {
  partnerId: string;
  username: string;
}

export interface Group {
  group_id: number;
  name: string;
  plan_id: number;
  webapi_enable: boolean;
  check_domain: boolean;
  device_policy: null;
}

export interface UserShareRoom {
  room_key: string;
  name: string;
  description: string;
  enabled: boolean;
  password_required: boolean;
  creation_time: number;
  update_time: number;
  last_login: number | null;
}

export interface UserRecord {
  avatar_id: number;
  username: string;
  name: string;
  email: string;
  share_id: string;
  share_identifier: string;
  promo: string | null;
  creation_time: number;
  last_login: number | null;
  bytes_stored: number;
  storage_bytes: number;
  bonus_bytes: number;
  plan_id: number;
  group_id: number | null;
  enabled: boolean;
  purgehold_active: boolean;
  share_rooms: UserShareRoom[];
  num_devices: number;
}

export interface DeviceRecord {
  name: string;
  creation_time: number;
  last_backup_complete: number | null;
  lastlogin: number | null;
  lastcommit: number | null;
  client_revision: number;
  sysplatform: string;
}

export interface UserChanges {
  name?: string;
  email?: string;
  plan_id?: number;
  group_id?: number | null;
  bonus_bytes?: number;
  enabled?: boolean;
  purgehold_active?: boolean;
  password?: string;
}

export interface CreateUserRequest extends PartnerScoped {
  username?: string;
  name: string;
  email: string;
  plan_id?: number;
  group_id?: number | null;
  bonus_bytes?: number;
  password?: string;
  enabled?: boolean;
  purgehold_active?: boolean;
}

export interface CreateUserReply {
  user: UserRecord;
  username: string;
  temp_password?: string;
}

export interface ListUsersRequest extends PartnerScoped {
  plan_id?: number;
  group_id?: number;
  search?: string;
  search_by?: { field: string; op: '=' | '>' | '>=' | '<' | '<='; value: string };
  order_by?: string;
  limit?: number;
  offset?: number;
}

export interface GroupChanges {
  name?: string;
  plan_id?: number;
  webapi_enable?: boolean;
  check_domain?: boolean;
  force?: boolean;
}

export interface BrandShareEntry {
  username: string;
  name: string;
  email: string;
  shares: UserShareRoom[];
}

export interface ClientRevisionCount {
  revision: number;
  count: number;
}

export interface CreatePartnerRequest {
  username: string;
  password: string;
  company_name: string;
  brand_identifier?: string;
  bytes_available: number | null;
  features?: Partial<PartnerFeatures>;
}

export interface HealthReply {
  service: string;
  ok: boolean;
  position: number;
}
