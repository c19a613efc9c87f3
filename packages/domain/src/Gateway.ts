/**
 * The local gateway: one origin that routes by path prefix to the three services.
 * This table is the single source of truth; `--help` prints it and docs/gateway.md shows it.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { PayloadTooLarge, RateLimited } from "./ApiError.js"
import {
  CampaignDocumentSchemas,
  CampaignsGroup,
  ChatAppGroup,
  ChatAppWebhookGroup,
  ContactListsGroup,
  DncGroup,
  SmsGroup
} from "./CampaignApi.js"
import {
  AgentsGroup,
  AgentWebhookGroup,
  CallsGroup,
  KnowledgeBasesGroup,
  PersonasGroup,
  TelephonyCallbacksGroup,
  VoiceNumbersGroup
} from "./CommsApi.js"
import { HealthGroup } from "./Health.js"
import { makeApi } from "./HttpApis.js"
import { ApiKeysGroup, AuthGroup, ProfileGroup, TopUpsGroup, WalletGroup } from "./PlatformCoreApi.js"
import { WEB_CALL_STREAM_PATH, WebCallsGroup } from "./WebCalls.js"

export const ServiceNames = ["platform-core", "comms", "campaign"] as const
export type ServiceName = (typeof ServiceNames)[number]

export interface GatewayRoute {
  readonly prefix: string
  readonly service: ServiceName
}

export const GatewayRoutes: ReadonlyArray<GatewayRoute> = [
  { prefix: "/api/v1/auth", service: "platform-core" },
  { prefix: "/api/v1/profile", service: "platform-core" },
  { prefix: "/api/v1/tenant", service: "platform-core" },
  { prefix: "/api/v1/tenants", service: "platform-core" },
  { prefix: "/api/v1/api-keys", service: "platform-core" },
  { prefix: "/api/v1/wallet", service: "platform-core" },
  { prefix: "/api/v1/billing", service: "platform-core" },
  { prefix: "/api/v1/analytics", service: "platform-core" },
  { prefix: "/api/v1/integrations", service: "platform-core" },
  { prefix: "/api/v1/agents", service: "comms" },
  { prefix: "/api/v1/channels", service: "comms" },
  { prefix: "/api/v1/calls", service: "comms" },
  { prefix: "/api/v1/call-logs", service: "comms" },
  { prefix: "/api/v1/voice-numbers", service: "comms" },
  { prefix: "/api/v1/prompts", service: "comms" },
  { prefix: "/api/v1/knowledge-bases", service: "comms" },
  { prefix: "/api/v1/webhook-deliveries", service: "comms" },
  { prefix: "/api/v1/telephony", service: "comms" },
  { prefix: "/api/v1/campaigns", service: "campaign" },
  { prefix: "/api/v1/contact-lists", service: "campaign" },
  { prefix: "/api/v1/dnc", service: "campaign" },
  { prefix: "/api/v1/chatapp", service: "campaign" },
  { prefix: "/api/v1/sms-agent", service: "campaign" }
]

const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + "/")

/** The service owning `path`, matching whole path segments (`/api/v1/agents2` is not `/api/v1/agents`). */
export const routeFor = (path: string): GatewayRoute | undefined =>
  GatewayRoutes.find((route) => under(path, route.prefix))

/**
 * The paths the gateway opens WebSockets on, forwarded to their service as they are (a web call's
 * stream). A request to upgrade anywhere else is refused: 400 `UPGRADE_NOT_SUPPORTED`.
 */
export const GatewayWebSocketRoutes: ReadonlyArray<GatewayRoute> = [
  { prefix: WEB_CALL_STREAM_PATH, service: "comms" }
]

export const webSocketRouteFor = (path: string): GatewayRoute | undefined =>
  GatewayWebSocketRoutes.find((route) => under(path, route.prefix))

/** OpenAPI 3.1's SPDX `identifier` (the platform's license type predates it and has only `url`). */
const spdxLicense: OpenApi.OpenAPISpecLicense & { readonly identifier: string } = { name: "MIT", identifier: "MIT" }

/** Every public endpoint of every service, for the gateway's merged OpenAPI document. */
export class PlatformApi extends makeApi("voice-agent-platform")
  .add(HealthGroup)
  .add(AuthGroup)
  .add(ProfileGroup)
  .add(ApiKeysGroup)
  .add(WalletGroup)
  .add(TopUpsGroup)
  .add(PersonasGroup)
  .add(AgentsGroup)
  .add(VoiceNumbersGroup)
  .add(AgentWebhookGroup)
  .add(CallsGroup)
  .add(WebCallsGroup)
  .add(KnowledgeBasesGroup)
  .add(TelephonyCallbacksGroup)
  .add(ContactListsGroup)
  .add(CampaignsGroup)
  .add(DncGroup)
  .add(ChatAppGroup)
  .add(ChatAppWebhookGroup)
  .add(SmsGroup)
  // the gateway's own answers, on any route it proxies
  .addError(RateLimited.http)
  .addError(PayloadTooLarge.http)
  .annotate(HttpApi.AdditionalSchemas, CampaignDocumentSchemas)
  .annotate(OpenApi.Title, "Voice Agent Platform API")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "One origin for every service. Errors always use the body " +
      "{\"error\":{\"code\",\"message\",\"requestId\",\"details\"}}."
  )
  .annotate(OpenApi.License, spdxLicense)
  // Relative: the gateway that serves this document is the server (each deployment has its own origin).
  .annotate(OpenApi.Servers, [{ url: "/", description: "The gateway serving this document" }])
{}

export const gatewayRouteNotFoundMessage = (path: string) => `No gateway route for ${path}`
