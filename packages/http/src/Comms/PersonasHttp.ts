import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CommsApi } from "@voiceagent/domain/CommsApi"
import { makePage } from "@voiceagent/domain/Pagination"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import * as Effect from "effect/Effect"

export const PersonasHttpLive = HttpApiBuilder.group(
  CommsApi,
  "personas",
  (handlers) =>
    Effect.map(
      AgentsRepo,
      (agents) =>
        handlers.handle("listPersonas", ({ urlParams }) =>
          Effect.map(agents.listPersonas(urlParams), ({ items, total }) =>
            makePage(items, total, urlParams)))
    )
)
