/** Enterprise settings a partner has before changing any (their shape is in the contracts). */
import type { PartnerSettings } from '@burrow/contracts';

export const DEFAULT_SETTINGS: PartnerSettings = {
  omva_url: null,
  support_email: null,
  share_link_ttl: 10080,
  autopurge_interval: 0,
  purgehold_duration: 0,
  ad_domain: null,
  signup_network_restriction: [],
  versionpurge_interval: null,
  admin_email: null,
  sharing_enabled: true,
  api_version: null,
};
