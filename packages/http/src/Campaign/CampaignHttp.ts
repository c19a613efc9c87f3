import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CampaignApi } from "@voiceagent/domain/CampaignApi"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { makeHealth } from "../Health.js"
import { CampaignsHttpLive, DncHttpLive } from "./CampaignsHttp.js"
import { ContactListsHttpLive } from "./ContactListsHttp.js"
import { ChatAppHttpLive, ChatAppWebhookHttpLive, SmsHttpLive } from "./MessagingHttp.js"

const HealthLive = HttpApiBuilder.group(
  CampaignApi,
  "health",
  (handlers) =>
    Effect.map(
      makeHealth("campaign"),
      (health) => handlers.handle("healthz", () => health.alive).handle("readyz", () => health.ready)
    )
)

export const CampaignHttpLive = HttpApiBuilder.api(CampaignApi).pipe(Layer.provide([
  HealthLive,
  ContactListsHttpLive,
  CampaignsHttpLive,
  DncHttpLive,
  ChatAppHttpLive,
  ChatAppWebhookHttpLive,
  SmsHttpLive
]))
