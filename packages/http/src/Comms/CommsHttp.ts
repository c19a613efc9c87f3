import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CommsApi } from "@voiceagent/domain/CommsApi"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { makeHealth } from "../Health.js"
import { AgentsHttpLive, AgentWebhookHttpLive } from "./AgentsHttp.js"
import { CallsHttpLive, TelephonyCallbacksHttpLive } from "./CallsHttp.js"
import { KnowledgeBasesHttpLive } from "./KnowledgeBasesHttp.js"
import { PersonasHttpLive } from "./PersonasHttp.js"
import { VoiceNumbersHttpLive } from "./VoiceNumbersHttp.js"
import { WebCallsHttpLive } from "./WebCallsHttp.js"

const HealthLive = HttpApiBuilder.group(
  CommsApi,
  "health",
  (handlers) =>
    Effect.map(
      makeHealth("comms"),
      (health) => handlers.handle("healthz", () => health.alive).handle("readyz", () => health.ready)
    )
)

export const CommsHttpLive = HttpApiBuilder.api(CommsApi).pipe(
  Layer.provide([
    HealthLive,
    PersonasHttpLive,
    AgentsHttpLive,
    AgentWebhookHttpLive,
    VoiceNumbersHttpLive,
    CallsHttpLive,
    WebCallsHttpLive,
    KnowledgeBasesHttpLive,
    TelephonyCallbacksHttpLive
  ])
)
